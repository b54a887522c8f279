package dev.agentmemory.store.jdbc.reliability;

import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.audit.AuditReport;
import org.jspecify.annotations.Nullable;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The journal an {@link InstanceWorker} keeps of what its engine acknowledged, one tab-separated
 * line per operation, and its parsed form for {@link MultiInstanceCheck}. Times are
 * {@link System#nanoTime()}, which all processes of one Linux machine share (CLOCK_MONOTONIC),
 * taken right before the call and right after it returned.
 *
 * <pre>
 * W user key recordId version w start end                 a write acknowledged
 * B user batch start end parts (key recordId version w)*  a batch acknowledged, all its parts
 * F user key start end ids|-                              a forget acknowledged, the ids it forgot
 * R user key start end recordId|- w|-                     a read and what it saw
 * A user consistent summary                               the instance's audit of the user at its end
 * X op user message                                       an operation that failed (not acknowledged)
 * </pre>
 */
final class InstanceJournal {

    private InstanceJournal() {
    }

    /** An acknowledged write of one key (alone, or a part of batch {@code batch}). */
    record Write(int instance, String user, String key, String recordId, long version, String w,
                 @Nullable String batch, long start, long end) {
    }

    /** An acknowledged soft forget of one key, with the ids of the records it forgot. */
    record Forget(int instance, String user, String key, List<String> ids, long start, long end) {
    }

    /** A read of one key and the record it saw (null: none). */
    record Read(int instance, String user, String key, @Nullable String recordId, @Nullable String w,
                long start, long end) {
    }

    /** An instance's audit of a user, at its end. */
    record Audit(int instance, String user, boolean consistent, String summary) {
    }

    /** Everything the journals of all instances say. */
    static final class Entries {
        final List<Write> writes = new ArrayList<>();
        final List<Forget> forgets = new ArrayList<>();
        final List<Read> reads = new ArrayList<>();
        final List<Audit> audits = new ArrayList<>();
        final List<String> failures = new ArrayList<>();
        long batches;
    }

    static String write(String user, String key, String id, long version, String w, long start, long end) {
        return String.join("\t", "W", user, key, id, Long.toString(version), w, Long.toString(start), Long.toString(end));
    }

    static String batch(String user, String batch, List<MemoryRecord> records, long start, long end) {
        List<String> f = new ArrayList<>(List.of("B", user, batch, Long.toString(start), Long.toString(end),
                Integer.toString(records.size())));
        for (MemoryRecord r : records) {
            f.addAll(List.of(r.key().path(), r.id(), Long.toString(r.version()), w(r)));
        }
        return String.join("\t", f);
    }

    static String forget(String user, String key, List<String> ids, long start, long end) {
        return String.join("\t", "F", user, key, Long.toString(start), Long.toString(end),
                ids.isEmpty() ? "-" : String.join(",", ids));
    }

    static String read(String user, String key, @Nullable MemoryRecord seen, long start, long end) {
        return String.join("\t", "R", user, key, Long.toString(start), Long.toString(end),
                seen == null ? "-" : seen.id(), seen == null ? "-" : w(seen));
    }

    static String audit(String user, AuditReport audit) {
        return String.join("\t", "A", user, Boolean.toString(audit.consistent() && audit.conflictingKeys().isEmpty()),
                clean(String.join(" | ", audit.lines())));
    }

    static String failed(String op, String user, Exception e) {
        return String.join("\t", "X", op, user, clean(String.valueOf(e.getMessage())));
    }

    /** The write id a record's value carries. */
    static String w(MemoryRecord r) {
        return r.value() == null ? "-" : r.value().node().path("w").asText("-");
    }

    private static String clean(String text) {
        return text.replace('\t', ' ').replace('\n', ' ');
    }

    /**
     * Adds the complete lines of instance {@code instance}'s journal to {@code into}; a last line
     * without its newline (the instance was killed while writing it) is left out.
     */
    static void parse(int instance, Path file, Entries into) throws IOException {
        String text = Files.readString(file, StandardCharsets.UTF_8);
        int complete = text.lastIndexOf('\n') + 1;
        for (String line : text.substring(0, complete).split("\n")) {
            if (line.isEmpty()) {
                continue;
            }
            String[] f = line.split("\t", -1);
            switch (f[0]) {
                case "W" -> into.writes.add(new Write(instance, f[1], f[2], f[3], Long.parseLong(f[4]), f[5], null,
                        Long.parseLong(f[6]), Long.parseLong(f[7])));
                case "B" -> {
                    int parts = Integer.parseInt(f[5]);
                    for (int i = 0; i < parts; i++) {
                        int at = 6 + 4 * i;
                        into.writes.add(new Write(instance, f[1], f[at], f[at + 1], Long.parseLong(f[at + 2]), f[at + 3],
                                f[2], Long.parseLong(f[3]), Long.parseLong(f[4])));
                    }
                    into.batches++;
                }
                case "F" -> into.forgets.add(new Forget(instance, f[1], f[2],
                        f[5].equals("-") ? List.of() : Arrays.asList(f[5].split(",")),
                        Long.parseLong(f[3]), Long.parseLong(f[4])));
                case "R" -> into.reads.add(new Read(instance, f[1], f[2], f[5].equals("-") ? null : f[5],
                        f[6].equals("-") ? null : f[6], Long.parseLong(f[3]), Long.parseLong(f[4])));
                case "A" -> into.audits.add(new Audit(instance, f[1], Boolean.parseBoolean(f[2]), f[3]));
                case "X" -> into.failures.add("instance " + instance + " " + f[1] + " of " + f[2] + ": " + f[3]);
                default -> throw new AssertionError("journal " + file + ": unknown line " + line);
            }
        }
    }
}

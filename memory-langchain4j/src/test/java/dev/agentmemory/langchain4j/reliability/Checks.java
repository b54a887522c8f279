package dev.agentmemory.langchain4j.reliability;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryEngine;
import dev.agentmemory.core.MemoryException;
import dev.agentmemory.core.audit.AuditReport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What the plugin-level reliability tests share: classifying how a hostile call ended, the audit's
 * replay check, raw byte scans of a data directory, and the injection dataset.
 */
final class Checks {

    static final Path DATASET = dev.agentmemory.core.testing.Datasets.injection();

    @FunctionalInterface
    interface Call {
        Object run() throws Exception;
    }

    private final List<String> violations = new ArrayList<>();
    private long cases;
    private long succeeded;
    private long failedCleanly;

    /** Runs a call; returns its result, or null when it failed (cleanly or not). */
    Object call(String label, Call call) {
        cases++;
        try {
            Object result = call.run();
            succeeded++;
            return result;
        } catch (Throwable t) {
            String problem = problem(t);
            if (problem == null) {
                failedCleanly++;
            } else {
                violations.add(shorten(label) + ": " + problem + " -> " + shorten(String.valueOf(t)));
            }
            return null;
        }
    }

    /**
     * Why a failure is not one of the documented ones (IllegalArgumentException,
     * IllegalStateException or a MemoryException with a message naming the problem, or a
     * NullPointerException from {@code requireNonNull(x, "x")}), or null when it is.
     */
    static String problem(Throwable t) {
        String message = t.getMessage();
        boolean named = message != null && !message.isBlank();
        if (t instanceof NullPointerException) {
            return !named || message.contains("because \"") || message.startsWith("Cannot invoke")
                    ? "a NullPointerException from a missing check" : null;
        }
        if (t instanceof IllegalArgumentException || t instanceof IllegalStateException) {
            return named ? null : "no message naming the problem";
        }
        if (t instanceof MemoryException) {
            for (Throwable c = t.getCause(); c != null; c = c.getCause()) {
                if (c instanceof SQLException) {
                    return "a database error leaked out";
                }
            }
            return named ? null : "no message naming the problem";
        }
        return "undocumented exception type " + t.getClass().getName();
    }

    void violation(String what) {
        violations.add(shorten(what));
    }

    /** Records a violation when a caller's live state differs from the replay of its stored log. */
    void checkConsistent(String after, MemoryEngine engine, Caller... callers) {
        for (Caller c : callers) {
            AuditReport report = engine.audit(c, Duration.ofDays(3650));
            if (!report.replayMatches()) {
                violations.add("after " + after + ": audit of " + c.tenant() + "/" + c.user() + " failed: "
                        + report.lines());
            }
        }
    }

    List<String> violations() {
        return List.copyOf(violations);
    }

    long cases() {
        return cases;
    }

    long succeeded() {
        return succeeded;
    }

    long failedCleanly() {
        return failedCleanly;
    }

    static String shorten(String s) {
        String oneLine = s.replace('\n', ' ');
        return oneLine.length() > 300 ? oneLine.substring(0, 300) + "...(" + oneLine.length() + " chars)" : oneLine;
    }

    /** The files under {@code dir} whose raw bytes contain {@code text} in UTF-8. */
    static List<Path> filesContaining(Path dir, String text) {
        byte[] needle = text.getBytes(StandardCharsets.UTF_8);
        List<Path> hits = new ArrayList<>();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                if (indexOf(Files.readAllBytes(f), needle) >= 0) {
                    hits.add(f);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return hits;
    }

    private static int indexOf(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    /** The texts of the injection dataset, or an assumption failure (skip) when it is absent. */
    static List<String> injectionTexts() throws IOException {
        assumeTrue(Files.exists(DATASET), "injection dataset not found at " + DATASET);
        ObjectMapper json = new ObjectMapper();
        List<String> out = new ArrayList<>();
        for (String line : Files.readAllLines(DATASET)) {
            if (!line.isBlank()) {
                out.add(json.readTree(line).get("text").asText());
            }
        }
        return out;
    }
}

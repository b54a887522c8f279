package dev.agentmemory.bench;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.Proposal.Outcome;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.store.jdbc.JdbcStores;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Durable write throughput on the H2 file store (every commit written to the file before the
 * call returns, {@code WRITE_DELAY=0}): records per second written one proposal per call (each
 * its own transaction) and in batches of 100 proposals per call; then bytes per stored memory,
 * the database file's size after {@code SHUTDOWN COMPACT} divided by the records it holds.
 * Records are persistent user decisions with distinct keys and sentence-like values (~80 chars).
 */
final class DurableWriteBench {

    static final int BATCH = 100;

    private final Path dir;

    DurableWriteBench(Path dir) {
        this.dir = dir;
    }

    ObjectNode run(int records, PrintStream out) throws Exception {
        Path file = Files.createDirectories(dir.resolve("durable")).resolve("memory");
        Random random = new Random(11);
        String[] words = Words.vocabulary(3_000, random);
        Caller caller = Caller.of("bench", "writer");
        int single = Math.max(1, records / 5);
        double singlePerSecond;
        double batchPerSecond;
        long bytes;
        try (MemoryEngine engine = MemoryEngine.builder().store(JdbcStores.h2File(file)).build()) {
            for (int i = 0; i < 50; i++) {
                engine.propose(caller, List.of(proposal(caller, "warm." + i, words, random)));
            }
            long t = System.nanoTime();
            for (int i = 0; i < single; i++) {
                check(engine.propose(caller, List.of(proposal(caller, "single." + i, words, random))));
            }
            singlePerSecond = single / ((System.nanoTime() - t) / 1e9);
            t = System.nanoTime();
            int written = 0;
            while (written < records) {
                List<Proposal> batch = new ArrayList<>(BATCH);
                for (int i = 0; i < BATCH && written + i < records; i++) {
                    batch.add(proposal(caller, "batch." + (written + i), words, random));
                }
                check(engine.propose(caller, batch));
                written += batch.size();
            }
            batchPerSecond = records / ((System.nanoTime() - t) / 1e9);
            engine.admin().compact();
        }
        bytes = Files.size(file.resolveSibling("memory.mv.db"));
        long stored = 50L + single + records;
        ObjectNode json = JsonNodeFactory.instance.objectNode();
        json.put("store", "H2 file, fsync per append, no reuse of freed space");
        json.put("records_per_second_one_per_call", Math.round(singlePerSecond));
        json.put("records_per_second_batch_" + BATCH, Math.round(batchPerSecond));
        json.put("records_stored", stored);
        json.put("file_bytes_after_compaction", bytes);
        json.put("bytes_per_memory", Math.round((double) bytes / stored));
        out.printf("%nDurable writes (H2 file): %d records/s one per call (%d calls), %d records/s in batches of %d"
                        + " (%d records); %d bytes per stored memory after compaction (%d bytes / %d records)%n",
                Math.round(singlePerSecond), single, Math.round(batchPerSecond), BATCH, records,
                Math.round((double) bytes / stored), bytes, stored);
        return json;
    }

    private static Proposal proposal(Caller caller, String key, String[] words, Random random) {
        return Proposal.set(caller.persistent(), "fact." + key, Words.sentence(words, random, 12))
                .kind(Kind.DECISION).source(Source.USER).build();
    }

    private static void check(List<Outcome> outcomes) {
        for (Outcome o : outcomes) {
            if (!o.isApplied()) {
                throw new IllegalStateException("benchmark write was not applied: " + o);
            }
        }
    }
}

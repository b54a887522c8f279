package dev.agentmemory.store.jdbc.bench;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.engine.MemoryEngine.Messages;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.event.StoredMessage;
import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.core.spi.StoredEvent;
import dev.agentmemory.core.store.InMemoryEventStore;
import dev.agentmemory.store.jdbc.JdbcStores;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Measures a cold open (a new engine on an H2 file, then the first read of one user) of a user
 * with 1k, 10k and 100k events, with snapshots disabled and enabled, side by side in one run.
 * The log is half chat turns (a window of 20 messages) and half record writes over 200 keys.
 * "first open, snapshots on" is the open that finds no snapshot yet: it replays the log and
 * writes one (what a snapshot write costs, done once every interval). Not a test: prints the
 * README's table. Run after {@code mvn -q -o -pl memory-testing,memory-core test-compile
 * dependency:build-classpath -Dmdep.outputFile=cp.txt} with {@code java -cp
 * memory-core/target/test-classes:memory-core/target/classes:$(cat memory-core/cp.txt)
 * dev.agentmemory.store.jdbc.bench.SnapshotColdOpenBench [events ...]}.
 */
public final class SnapshotColdOpenBench {

    private static final Caller ALICE = Caller.of("shop", "alice");
    private static final int ROUNDS = 5;

    private SnapshotColdOpenBench() {
    }

    public static void main(String[] args) throws Exception {
        int[] sizes = args.length > 0 ? Arrays.stream(args).mapToInt(Integer::parseInt).toArray()
                : new int[] {1_000, 10_000, 100_000};
        // warm-up: the JIT, H2's classes, Jackson's serializers
        run(2_000, false);
        System.out.println("| events per user | cold open, snapshots off | cold open, snapshots on | ratio"
                + " | first open, snapshots on (replay + write snapshot) | snapshot size |");
        System.out.println("|---|---|---|---|---|---|");
        for (int n : sizes) {
            run(n, true);
        }
    }

    private static void run(int events, boolean print) throws Exception {
        Path dir = Files.createTempDirectory("snapshot-bench");
        Path db = dir.resolve("mem");
        fill(db, events);
        double off = median(() -> coldOpen(db, 0));
        double first = coldOpen(db, 1_000);
        double on = median(() -> coldOpen(db, 1_000));
        long size;
        try (EventStore store = JdbcStores.h2File(db)) {
            size = store.snapshot(new Partition("shop", "alice")).orElseThrow().payload().length();
        }
        if (print) {
            System.out.printf("| %,d | %.0f ms | %.0f ms | %.1fx | %.0f ms | %.1f MB |%n", events, off, on, off / on,
                    first, size / 1e6);
        }
    }

    /** Milliseconds from a new engine to the first read of alice returning. */
    private static double coldOpen(Path db, int snapshotEvery) {
        try (MemoryEngine engine = MemoryEngine.builder().store(JdbcStores.h2File(db))
                .snapshotEvery(snapshotEvery).build()) {
            long t0 = System.nanoTime();
            if (engine.current(ALICE, ALICE.persistent(), MemoryKey.of("pref.0")).isEmpty()) {
                throw new IllegalStateException("the bench's user has no pref.0");
            }
            return (System.nanoTime() - t0) / 1e6;
        }
    }

    private interface Measure {
        double ms();
    }

    private static double median(Measure m) {
        double[] t = new double[ROUNDS];
        for (int i = 0; i < ROUNDS; i++) {
            t[i] = m.ms();
        }
        Arrays.sort(t);
        return t[ROUNDS / 2];
    }

    /** Writes {@code events} events for alice through an engine in memory, then copies them into an H2 file. */
    private static void fill(Path db, int events) {
        InMemoryEventStore memory = new InMemoryEventStore();
        Partition p = new Partition("shop", "alice");
        try (MemoryEngine engine = MemoryEngine.builder().store(memory).snapshotEvery(0).build()) {
            for (int i = 0; memory.lastSequence(p) < events; i++) {
                if (i % 2 == 0) {
                    engine.write(ALICE, Proposal.set(ALICE.persistent(), "pref." + (i / 2 % 200),
                            "value " + i + " of a preference the user stated").kind(Kind.PREFERENCE).build());
                } else {
                    int n = i;
                    engine.messages().changeIndexed(ALICE, "s1", (window, next) -> new Messages.WindowChange(
                            window.size() >= 20 ? List.of(window.get(0).index()) : List.of(),
                            List.of(new StoredMessage(next, next, n % 4 == 1 ? "USER" : "AI",
                                    "{\"text\":\"turn " + n + ": a chat message of ordinary length, about the order\"}",
                                    "turn " + n + ": a chat message of ordinary length, about the order"))));
                }
            }
        }
        List<StoredEvent> log = memory.read(p, 0);
        try (EventStore store = JdbcStores.h2File(db)) {
            for (int from = 0; from < log.size(); from += 1_000) {
                List<StoredEvent> batch = new ArrayList<>(log.subList(from, Math.min(log.size(), from + 1_000)));
                store.append(p, from, batch);
            }
        }
    }
}

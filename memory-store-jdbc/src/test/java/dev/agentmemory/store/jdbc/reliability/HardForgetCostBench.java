package dev.agentmemory.store.jdbc.reliability;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ForgetMode;
import dev.agentmemory.core.ForgetTarget;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.core.spi.StoredEvent;
import dev.agentmemory.store.jdbc.JdbcStores;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Measures what a hard forget costs on H2 files holding 1, 10 and 100 MiB of live data (other
 * users' events), against a soft forget of the same kind on the same file. Not a test (it takes a
 * minute and prints numbers); the README's storage table comes from it. Run after
 * {@code mvn -q -o -pl memory-core test-compile dependency:build-classpath -Dmdep.outputFile=cp.txt}
 * with {@code java -cp memory-core/target/test-classes:memory-core/target/classes:$(cat memory-core/cp.txt)
 * dev.agentmemory.store.jdbc.reliability.HardForgetCostBench [MiB ...]}.
 */
public final class HardForgetCostBench {

    private HardForgetCostBench() {
    }

    public static void main(String[] args) throws Exception {
        List<Integer> sizes = new ArrayList<>();
        for (String a : args.length > 0 ? args : new String[] {"1", "10", "100"}) {
            sizes.add(Integer.parseInt(a));
        }
        System.out.println("| live data | file | soft forget | hard forget (incl. compaction) | file after |");
        System.out.println("|---|---|---|---|---|");
        for (int mib : sizes) {
            Path dir = Files.createTempDirectory("forget-cost");
            Path db = dir.resolve("mem");
            fill(db, (long) mib << 20);
            Caller alice = Caller.of("shop", "alice");
            try (MemoryEngine engine = MemoryEngine.builder().store(JdbcStores.h2File(db)).build()) {
                engine.write(alice, Proposal.set(alice.persistent(), "soft.key", "SOFT-value").kind(Kind.DECISION).build());
                engine.write(alice, Proposal.set(alice.persistent(), "card", "SECRET-4111").kind(Kind.DECISION).build());
                long size = Files.size(dir.resolve("mem.mv.db"));
                long t0 = System.nanoTime();
                engine.forget(alice, ForgetTarget.key(alice.persistent(), MemoryKey.of("soft.key")), ForgetMode.SOFT);
                long soft = System.nanoTime() - t0;
                t0 = System.nanoTime();
                engine.forget(alice, ForgetTarget.key(alice.persistent(), MemoryKey.of("card")), ForgetMode.HARD);
                long hard = System.nanoTime() - t0;
                System.out.printf("| %d MiB | %.1f MiB | %.0f ms | %.0f ms | %.1f MiB |%n", mib, size / 1048576.0,
                        soft / 1e6, hard / 1e6, Files.size(dir.resolve("mem.mv.db")) / 1048576.0);
            }
        }
    }

    /** Other users' events, about {@code bytes} of payload in all, then compacted to live data only. */
    private static void fill(Path db, long bytes) {
        Random random = new Random(1);
        try (EventStore store = JdbcStores.h2File(db)) {
            long written = 0;
            int user = 0;
            long seq = 0;
            while (written < bytes) {
                if (seq >= 2_000) {
                    user++;
                    seq = 0;
                }
                List<StoredEvent> batch = new ArrayList<>();
                for (int i = 0; i < 100; i++) {
                    StringBuilder s = new StringBuilder("{\"v\":\"");
                    for (int c = 0; c < 1_000; c++) {
                        s.append((char) ('a' + random.nextInt(26)));
                    }
                    s.append("\"}");
                    seq++;
                    batch.add(new StoredEvent(seq, Instant.parse("2024-10-15T10:00:00Z"), "filler", "bench", "tr", s.toString()));
                    written += s.length();
                }
                store.append(new Partition("filler", "u" + user), seq - 100, batch);
            }
            store.compact();
        }
    }
}

package dev.agentmemory.store.jdbc.bench;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.Scope;
import dev.agentmemory.core.store.InMemoryEventStore;
import dev.agentmemory.store.jdbc.JdbcStores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Measures write throughput and read latency of the engine on an embedded H2 file. A
 * measurement, not a test: it asserts only that the work was done, and runs only with
 * {@code -Dbench=true}:
 * <pre>mvn -B -q -o test -pl memory-core -Dtest=CoreThroughput -Dbench=true [-Dbench.store=memory]</pre>
 */
@EnabledIfSystemProperty(named = "bench", matches = "true")
class CoreThroughput {

    static final int WRITES = 2_000;
    static final int READS = 20_000;

    @TempDir
    Path dir;

    @Test
    void measure() throws Exception {
        Caller alice = Caller.of("shop", "alice");
        Scope session = alice.session("s1");
        boolean memory = "memory".equals(System.getProperty("bench.store"));
        String where = memory ? "in-memory" : "H2 file";
        try (MemoryEngine engine = MemoryEngine.builder()
                .store(memory ? new InMemoryEventStore() : JdbcStores.h2File(dir.resolve("bench"))).build()) {
            // warm-up
            for (int i = 0; i < 200; i++) {
                engine.write(alice, Proposal.set(alice.session("warm"), "k" + (i % 20), "v" + i).build());
            }

            long t0 = System.nanoTime();
            for (int i = 0; i < WRITES; i++) {
                engine.write(alice, Proposal.set(session, "key" + (i % 100), "value " + i).build());
            }
            double single = WRITES / seconds(t0);

            t0 = System.nanoTime();
            for (int i = 0; i < WRITES / 10; i++) {
                List<Proposal> batch = new ArrayList<>();
                for (int j = 0; j < 10; j++) {
                    batch.add(Proposal.set(session, "batch" + j, "value " + i).build());
                }
                engine.propose(alice, batch);
            }
            double batched = WRITES / seconds(t0);

            int users = 4;
            ExecutorService pool = Executors.newFixedThreadPool(users);
            t0 = System.nanoTime();
            List<Future<?>> futures = new ArrayList<>();
            for (int u = 0; u < users; u++) {
                Caller user = Caller.of("shop", "user" + u);
                futures.add(pool.submit(() -> {
                    for (int i = 0; i < WRITES / users; i++) {
                        engine.write(user, Proposal.set(user.persistent(), "pref" + (i % 50), "v" + i)
                                .kind(Kind.PREFERENCE).build());
                    }
                }));
            }
            for (Future<?> f : futures) {
                f.get();
            }
            double parallel = WRITES / seconds(t0);
            pool.shutdown();

            long[] current = new long[READS];
            for (int i = 0; i < READS; i++) {
                long s = System.nanoTime();
                engine.current(alice, session, MemoryKey.of("key" + (i % 100)));
                current[i] = System.nanoTime() - s;
            }
            long[] view = new long[READS / 10];
            for (int i = 0; i < view.length; i++) {
                long s = System.nanoTime();
                engine.view(alice, session);
                view[i] = System.nanoTime() - s;
            }
            int events = engine.admin().log(alice).size();
            long[] cold = new long[5];
            for (int i = 0; i < cold.length; i++) {
                engine.admin().invalidateCache();
                long s = System.nanoTime();
                engine.current(alice, session, MemoryKey.of("key1"));
                cold[i] = System.nanoTime() - s;
            }

            System.out.printf(Locale.ROOT, "%s, one user, one write per call:   %8.0f writes/s%n", where, single);
            System.out.printf(Locale.ROOT, "%s, one user, 10 proposals a call:  %8.0f writes/s%n", where, batched);
            System.out.printf(Locale.ROOT, "%s, %d users in parallel:            %8.0f writes/s%n", where, users, parallel);
            System.out.printf(Locale.ROOT, "current(key), cached:      p50 %7.1f us  p99 %7.1f us%n",
                    pct(current, 50), pct(current, 99));
            System.out.printf(Locale.ROOT, "view(scope of 110 keys):   p50 %7.1f us  p99 %7.1f us%n", pct(view, 50), pct(view, 99));
            System.out.printf(Locale.ROOT, "first read after restart (replay of %d events): p50 %.1f ms%n",
                    events, pct(cold, 50) / 1000.0);
            assertThat(engine.view(alice, session).keys()).hasSize(110);
        }
    }

    private static double seconds(long startNanos) {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    private static double pct(long[] nanos, int p) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        return sorted[Math.min(sorted.length - 1, sorted.length * p / 100)] / 1000.0;
    }
}

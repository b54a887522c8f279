package dev.agentmemory.store.jdbc.reliability;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ForgetMode;
import dev.agentmemory.core.ForgetTarget;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.engine.MemoryEngine.Messages;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.MemoryValue;
import dev.agentmemory.core.Proposal.Outcome;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.StaleVersionException;
import dev.agentmemory.core.MemoryRecord.Status;
import dev.agentmemory.core.event.StoredMessage;
import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.store.jdbc.JdbcStores;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 6, test 2 (engine side): many threads, many users, two engines on one JDBC store.
 * Appends to shared lists must never be lost, versions per key must be contiguous, message
 * windows must hold every appended message once with contiguous indices, reads never see a
 * version go backwards, and the run ends within a bound (a deadlock fails it). Engines sharing
 * a store detect each other's appends ({@link StaleVersionException}) and retry.
 */
class ConcurrencyTest {

    private static final int THREADS = 8;
    private static final int OPS_PER_THREAD = 150;
    private static final List<Caller> USERS = List.of(Caller.of("acme", "u1"), Caller.of("acme", "u2"),
            Caller.of("acme", "u3"), Caller.of("globex", "u1"), Caller.of("globex", "u2"));

    private final Map<String, Set<String>> appended = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> setsApplied = new ConcurrentHashMap<>();
    private final Map<String, Set<String>> messagesSent = new ConcurrentHashMap<>();
    private final AtomicLong retries = new AtomicLong();
    private final AtomicLong reads = new AtomicLong();

    @Test
    void should_lose_no_update_and_keep_versions_contiguous_when_many_threads_write_through_two_engines()
            throws Exception {
        // given: two engines (two application instances) on one store
        EventStore store = JdbcStores.h2InMemory("concurrency");
        runTwoEngines(store, store);
    }

    /**
     * The test on two engines over {@code firstStore} and {@code secondStore}, which hold the
     * same data (one store twice, or two stores on one database); closes both.
     */
    void runTwoEngines(EventStore firstStore, EventStore secondStore) throws Exception {
        MemoryEngine first = MemoryEngine.builder().store(firstStore).build();
        MemoryEngine second = MemoryEngine.builder().store(secondStore).build();

        // when
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int thread = t;
            futures.add(pool.submit(() -> work(thread, thread % 4 == 3 ? second : first)));
        }
        pool.shutdown();
        boolean finished = pool.awaitTermination(3, TimeUnit.MINUTES);
        assertThat(finished).as("all writers finished (no deadlock)").isTrue();
        for (Future<?> f : futures) {
            f.get();
        }

        // then: a fresh engine reads everything from the store
        first.admin().invalidateCache();
        long versionsChecked = 0;
        long elementsChecked = 0;
        long messagesChecked = 0;
        for (Caller u : USERS) {
            assertThat(first.admin().audit(u, Duration.ofDays(1)).replayMatches()).isTrue();
            for (int k = 0; k < 3; k++) {
                MemoryKey list = MemoryKey.of("list" + k);
                Set<String> expected = appended.getOrDefault(id(u, list.path()), Set.of());
                List<String> got = new ArrayList<>();
                first.current(u, u.persistent(), list).ifPresent(r -> r.value().node().forEach(n -> got.add(n.asText())));
                assertThat(got).as("elements of %s %s", u, list).hasSize(expected.size())
                        .containsExactlyInAnyOrderElementsOf(expected);
                elementsChecked += got.size();
                versionsChecked += checkContiguous(first, u, list);

                MemoryKey shared = MemoryKey.of("shared" + k);
                long sets = setsApplied.getOrDefault(id(u, shared.path()), new AtomicLong()).get();
                List<MemoryRecord> history = first.history(u, u.persistent(), shared);
                assertThat(history).as("versions of %s %s", u, shared).hasSize((int) sets);
                versionsChecked += checkContiguous(first, u, shared);
            }
            for (int s = 0; s < 2; s++) {
                String session = "chat" + s;
                Map<Long, StoredMessage> history = first.messages().history(u, session);
                List<Long> indices = new ArrayList<>(history.keySet());
                for (int i = 0; i < indices.size(); i++) {
                    assertThat(indices.get(i)).as("message index of %s %s", u, session).isEqualTo(i);
                }
                Set<String> texts = new HashSet<>();
                history.values().forEach(m -> assertThat(texts.add(m.text())).as("duplicate message %s", m.text()).isTrue());
                assertThat(texts).isEqualTo(messagesSent.getOrDefault(id(u, session), Set.of()));
                messagesChecked += texts.size();
            }
        }
        System.out.printf("CONCURRENCY (engine): threads=%d, ops=%d, list elements checked=%d, versions checked=%d, "
                        + "messages checked=%d, reads=%d, stale-engine retries=%d%n", THREADS, THREADS * OPS_PER_THREAD,
                elementsChecked, versionsChecked, messagesChecked, reads.get(), retries.get());
        assertThat(elementsChecked).isGreaterThan(100);
        first.close();
        if (secondStore != firstStore) {
            second.close();
        }
    }

    private void work(int thread, MemoryEngine engine) {
        Random random = new Random(thread);
        Map<String, Long> lastVersionSeen = new java.util.HashMap<>();
        for (int op = 0; op < OPS_PER_THREAD; op++) {
            Caller u = USERS.get(random.nextInt(USERS.size()));
            int k = random.nextInt(3);
            String element = "t" + thread + "-" + op;
            switch (random.nextInt(5)) {
                case 0, 1 -> {
                    MemoryKey list = MemoryKey.of("list" + k);
                    Outcome o = retry(() -> engine.propose(u, Proposal.append(u.persistent(), list, MemoryValue.of(element))
                            .kind(Kind.DECISION).build()));
                    assertThat(o.result()).isEqualTo(Outcome.Result.APPLIED);
                    appended.computeIfAbsent(id(u, list.path()), x -> ConcurrentHashMap.newKeySet()).add(element);
                }
                case 2 -> {
                    MemoryKey shared = MemoryKey.of("shared" + k);
                    Outcome o = retry(() -> engine.propose(u, Proposal.set(u.persistent(), shared, MemoryValue.of(element))
                            .kind(Kind.DECISION).build()));
                    assertThat(o.result()).isEqualTo(Outcome.Result.APPLIED);
                    setsApplied.computeIfAbsent(id(u, shared.path()), x -> new AtomicLong()).incrementAndGet();
                }
                case 3 -> {
                    String session = "chat" + (k % 2);
                    retry(() -> engine.messages().change(u, session, w -> {
                        long next = engine.messages().history(u, session).isEmpty() ? 0
                                : engine.messages().history(u, session).lastKey() + 1;
                        List<Long> evicted = w.size() >= 4 ? List.of(w.get(0).index()) : List.of();
                        return new Messages.WindowChange(evicted,
                                List.of(new StoredMessage(next, next, "USER", "{}", element)));
                    }));
                    messagesSent.computeIfAbsent(id(u, session), x -> ConcurrentHashMap.newKeySet()).add(element);
                }
                default -> {
                    // a read sees each key's version only move forward (for one engine and thread)
                    MemoryKey shared = MemoryKey.of("shared" + k);
                    engine.current(u, u.persistent(), shared).ifPresent(r -> {
                        String slot = id(u, shared.path());
                        long before = lastVersionSeen.getOrDefault(slot, 0L);
                        assertThat(r.version()).as("version of %s seen by thread %d", slot, thread)
                                .isGreaterThanOrEqualTo(before);
                        lastVersionSeen.put(slot, r.version());
                    });
                    reads.incrementAndGet();
                }
            }
        }
        if (thread == 0) {
            // a soft forget racing with the writers leaves tombstones, versions stay contiguous
            Caller u = USERS.get(0);
            // (retried like the writes: this store says it has no other writers, so the engine
            // leaves a lost append race to its caller, for a forget as for a write)
            retry(() -> engine.forget(u, ForgetTarget.key(u.persistent(), MemoryKey.of("shared2")), ForgetMode.SOFT));
        }
    }

    private <T> T retry(Supplier<T> call) {
        for (int attempt = 0; ; attempt++) {
            try {
                return call.get();
            } catch (StaleVersionException e) {
                // another engine appended first; this engine reloaded the user and can retry
                retries.incrementAndGet();
                assertThat(attempt).as("retries of one call").isLessThan(1000);
            }
        }
    }

    private static long checkContiguous(MemoryEngine engine, Caller u, MemoryKey key) {
        List<MemoryRecord> history = engine.history(u, u.persistent(), key);
        for (int v = 0; v < history.size(); v++) {
            assertThat(history.get(v).version()).as("version %d of %s %s", v + 1, u, key).isEqualTo(v + 1L);
            if (v < history.size() - 1) {
                assertThat(history.get(v).status()).isIn(Status.SUPERSEDED, Status.FORGOTTEN);
            }
        }
        return history.size();
    }

    private static String id(Caller u, String key) {
        return u.tenant() + "/" + u.user() + "/" + key;
    }
}

package dev.agentmemory.store.jdbc.reliability;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ForgetMode;
import dev.agentmemory.core.ForgetTarget;
import dev.agentmemory.core.ScopeView.KeyState;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.engine.MemoryEngine.Messages;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.MemoryValue;
import dev.agentmemory.core.Proposal.Outcome;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.ReadOptions;
import dev.agentmemory.core.Scope;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.core.StaleVersionException;
import dev.agentmemory.core.MemoryRecord.Status;
import dev.agentmemory.core.TaskInfo;
import dev.agentmemory.core.event.Change;
import dev.agentmemory.core.event.LoggedEvent;
import dev.agentmemory.core.event.StoredMessage;
import dev.agentmemory.store.jdbc.testing.PostgresTestDatabase;
import dev.agentmemory.store.jdbc.testing.RequiresPostgres;
import dev.agentmemory.store.jdbc.JdbcStores;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Several engines in one JVM, each with its own pool on one PostgreSQL schema (as application
 * instances): many threads writing one user lose no update and store no sequence twice; a write
 * expecting a version another engine moved on fails with {@link StaleVersionException} naming the
 * key and stores nothing; and what one engine writes or forgets, another's next read shows
 * (records, the chat window, tasks).
 */
@ExtendWith(RequiresPostgres.class)
class PostgresInstancesTest {

    private static final int ENGINES = 3;
    private static final int THREADS_PER_ENGINE = 2;
    private static final Caller ALICE = Caller.of("shop", "alice");
    private static final Scope P = ALICE.persistent();

    private PostgresTestDatabase pg;
    private String schema;
    private final List<MemoryEngine> engines = new ArrayList<>();

    @BeforeEach
    void openEngines() {
        pg = PostgresTestDatabase.require(getClass());
        schema = pg.createSchema("instances");
        for (int i = 0; i < ENGINES; i++) {
            engines.add(MemoryEngine.builder().store(JdbcStores.connect(pg.urlOf(schema), pg.user(), pg.password())).build());
        }
    }

    @AfterEach
    void closeEngines() {
        engines.forEach(MemoryEngine::close);
        pg.dropSchema(schema);
    }

    private MemoryEngine fresh() {
        return MemoryEngine.builder().store(JdbcStores.connect(pg.urlOf(schema), pg.user(), pg.password())).build();
    }

    private static Proposal set(String key, String value) {
        return Proposal.set(P, MemoryKey.of(key), MemoryValue.of(value)).kind(Kind.DECISION).source(Source.SYSTEM).build();
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void should_store_every_acknowledged_write_once_when_threads_of_three_engines_write_one_user() throws Exception {
        // given
        int opsPerThread = 40;
        Map<String, MemoryRecord> acknowledged = new ConcurrentHashMap<>();
        Set<String> failed = ConcurrentHashMap.newKeySet();

        // when: every thread writes unique values to a few keys, alone or two in one batch
        runThreads(opsPerThread, (engine, thread, op) -> {
            String a = "t" + thread + "-" + op + "a";
            String b = "t" + thread + "-" + op + "b";
            try {
                if (op % 3 == 0) {
                    List<Outcome> outcomes = engine.propose(ALICE, List.of(set("k" + op % 4, a), set("k" + (op + 1) % 4, b)));
                    assertThat(outcomes).allMatch(Outcome::isApplied);
                    acknowledged.put(a, outcomes.get(0).record());
                    acknowledged.put(b, outcomes.get(1).record());
                } else {
                    acknowledged.put(a, engine.write(ALICE, set("k" + op % 4, a)));
                }
            } catch (StaleVersionException e) {
                // lost the append race too often: not applied, and nothing of it may be stored
                failed.add(a);
                failed.add(b);
            }
        });

        // then: the stored log holds each acknowledged write once, at the version it was given,
        // nothing of a failed one, and one event per sequence number
        try (MemoryEngine check = fresh()) {
            List<LoggedEvent> log = check.admin().log(ALICE);
            Map<String, Integer> stored = new HashMap<>();
            Map<String, MemoryRecord> storedRecord = new HashMap<>();
            for (int i = 0; i < log.size(); i++) {
                assertThat(log.get(i).seq()).as("sequence of event %d", i + 1).isEqualTo(i + 1L);
                if (log.get(i).change() instanceof Change.RecordWritten w) {
                    String value = w.record().value().node().asText();
                    stored.merge(value, 1, Integer::sum);
                    storedRecord.put(value, w.record());
                }
            }
            Set<String> versions = new HashSet<>();
            for (Map.Entry<String, MemoryRecord> e : acknowledged.entrySet()) {
                assertThat(stored.get(e.getKey())).as("copies of acknowledged write %s", e.getKey()).isEqualTo(1);
                MemoryRecord r = storedRecord.get(e.getKey());
                assertThat(r.id()).isEqualTo(e.getValue().id());
                assertThat(r.version()).as("version of %s", e.getKey()).isEqualTo(e.getValue().version());
                assertThat(versions.add(r.key().path() + "@" + r.version()))
                        .as("%s version %d acknowledged once", r.key(), r.version()).isTrue();
            }
            for (String f : failed) {
                assertThat(stored).as("a write that failed").doesNotContainKey(f);
            }
            assertThat(stored).hasSize(acknowledged.size());
            for (int k = 0; k < 4; k++) {
                List<MemoryRecord> history = check.history(ALICE, P, MemoryKey.of("k" + k));
                for (int v = 0; v < history.size(); v++) {
                    assertThat(history.get(v).version()).as("versions of k%d", k).isEqualTo(v + 1L);
                }
            }
            assertThat(check.admin().audit(ALICE, Duration.ofDays(1)).consistent()).isTrue();
            System.out.printf("POSTGRES INSTANCES (writes): engines=%d, threads=%d, acknowledged writes=%d,"
                            + " failed (stale after the engine's retries)=%d, log events=%d%n", ENGINES,
                    ENGINES * THREADS_PER_ENGINE, acknowledged.size(), failed.size() / 2, log.size());
        }
        assertThat(acknowledged).hasSizeGreaterThan(ENGINES * THREADS_PER_ENGINE * opsPerThread / 2);
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void should_lose_no_increment_when_threads_of_three_engines_compare_and_set_one_counter() throws Exception {
        // given
        int incrementsPerThread = 15;
        AtomicLong retries = new AtomicLong();

        // when: read the counter, write it plus one expecting the version read, retry when stale
        runThreads(incrementsPerThread, (engine, thread, op) -> {
            for (int attempt = 0; ; attempt++) {
                assertThat(attempt).as("attempts of one increment (thread %d)", thread).isLessThan(200);
                KeyState read = engine.keyState(ALICE, P, MemoryKey.of("counter"), ReadOptions.DEFAULT);
                long version = read.currentRecord().map(MemoryRecord::version).orElse(0L);
                long value = read.currentRecord().map(r -> r.value().node().asLong()).orElse(0L);
                try {
                    engine.write(ALICE, Proposal.set(P, MemoryKey.of("counter"), MemoryValue.of(value + 1))
                            .kind(Kind.DECISION).source(Source.SYSTEM).expectVersion(version).build());
                    return;
                } catch (StaleVersionException e) {
                    assertThat(e.getMessage()).contains("counter");
                    retries.incrementAndGet();
                }
            }
        });

        // then: every increment is one version, in order
        int total = ENGINES * THREADS_PER_ENGINE * incrementsPerThread;
        try (MemoryEngine check = fresh()) {
            List<MemoryRecord> history = check.history(ALICE, P, MemoryKey.of("counter"));
            assertThat(history).hasSize(total);
            for (int v = 0; v < history.size(); v++) {
                assertThat(history.get(v).version()).isEqualTo(v + 1L);
                assertThat(history.get(v).value().node().asLong()).isEqualTo(v + 1L);
            }
            assertThat(check.current(ALICE, P, MemoryKey.of("counter")).orElseThrow().value().node().asLong())
                    .isEqualTo(total);
        }
        System.out.printf("POSTGRES INSTANCES (compare-and-set): increments=%d, stale retries=%d%n", total, retries.get());
    }

    @Test
    void should_refuse_a_write_expecting_a_version_another_engine_moved_on_naming_the_key_and_storing_nothing() {
        // given: A reads version 1, then B writes version 2
        MemoryEngine a = engines.get(0);
        MemoryEngine b = engines.get(1);
        a.write(ALICE, set("plan", "first"));
        long read = a.current(ALICE, P, MemoryKey.of("plan")).orElseThrow().version();
        assertThat(b.current(ALICE, P, MemoryKey.of("plan"))).map(MemoryRecord::text).contains("first");
        b.write(ALICE, set("plan", "second"));
        int logSize = b.admin().log(ALICE).size();

        // when / then
        assertThatThrownBy(() -> a.write(ALICE, Proposal.set(P, MemoryKey.of("plan"), MemoryValue.of("third"))
                .kind(Kind.DECISION).source(Source.SYSTEM).expectVersion(read).build()))
                .isInstanceOf(StaleVersionException.class)
                .hasMessageContaining("plan")
                .hasMessageContaining("version 2")
                .hasMessageContaining("expected version 1")
                .satisfies(e -> System.out.println("STALE VERSION: " + e.getMessage()));
        try (MemoryEngine check = fresh()) {
            assertThat(check.admin().log(ALICE)).hasSize(logSize);
            assertThat(check.current(ALICE, P, MemoryKey.of("plan"))).map(MemoryRecord::text).contains("second");
        }
        assertThat(a.current(ALICE, P, MemoryKey.of("plan"))).map(MemoryRecord::text).contains("second");
    }

    @Test
    void should_show_what_one_engine_wrote_or_forgot_at_the_next_read_of_another() {
        // given: B has read alice's memory (her state is cached there)
        MemoryEngine a = engines.get(0);
        MemoryEngine b = engines.get(1);
        assertThat(b.view(ALICE, P).keys()).isEmpty();
        assertThat(b.messages().window(ALICE, "chat")).isEmpty();
        assertThat(b.tasks().active(ALICE, "chat")).isEmpty();

        // when A writes a record, a message and starts a task, then B's next reads show them
        MemoryRecord written = a.write(ALICE, set("city", "Lisbon"));
        assertThat(b.current(ALICE, P, MemoryKey.of("city"))).as("B's get by key")
                .map(MemoryRecord::text).contains("Lisbon");
        assertThat(b.view(ALICE, P).keys()).as("B's records").extracting(k -> k.key().path()).containsExactly("city");
        assertThat(b.record(ALICE, written.id())).as("B's record by id").map(MemoryRecord::status).contains(Status.ACTIVE);

        a.messages().changeIndexed(ALICE, "chat", (window, next) -> new Messages.WindowChange(List.of(),
                List.of(new StoredMessage(next, next, "USER", "{\"text\":\"hello from A\"}", "hello from A"))));
        assertThat(b.messages().window(ALICE, "chat")).as("B's chat window").extracting(StoredMessage::text)
                .containsExactly("hello from A");

        a.tasks().start(ALICE, "chat", "trip", "plan the trip");
        assertThat(b.tasks().active(ALICE, "chat")).as("B's active task").map(TaskInfo::task).contains("trip");

        // and when A forgets them, B's next reads no longer show them
        a.forget(ALICE, ForgetTarget.key(P, MemoryKey.of("city")), ForgetMode.SOFT);
        assertThat(b.current(ALICE, P, MemoryKey.of("city"))).as("B's get by key after A's forget").isEmpty();
        assertThat(b.view(ALICE, P).keys()).as("B's records after A's forget").isEmpty();
        assertThat(b.record(ALICE, written.id())).map(MemoryRecord::status).contains(Status.FORGOTTEN);

        a.forget(ALICE, ForgetTarget.messages("chat", List.of(0L)), ForgetMode.SOFT);
        assertThat(b.messages().window(ALICE, "chat")).as("B's chat window after A's forget")
                .extracting(StoredMessage::text).doesNotContain("hello from A");

        a.tasks().end(ALICE, "chat", "trip");
        assertThat(b.tasks().active(ALICE, "chat")).as("B's active task after A ended it").isEmpty();

        // B writes on top of what it now sees, and A sees that
        b.write(ALICE, set("city", "Porto"));
        assertThat(a.current(ALICE, P, MemoryKey.of("city"))).map(MemoryRecord::text).contains("Porto");
        assertThat(a.admin().audit(ALICE, Duration.ofDays(1)).consistent()).isTrue();
        assertThat(b.admin().audit(ALICE, Duration.ofDays(1)).consistent()).isTrue();
    }

    @FunctionalInterface
    private interface Op {
        void run(MemoryEngine engine, int thread, int op);
    }

    /** Runs {@code ops} operations on each thread, the threads spread over the engines, bounded in time. */
    private void runThreads(int ops, Op op) throws Exception {
        int threads = ENGINES * THREADS_PER_ENGINE;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                MemoryEngine engine = engines.get(t % ENGINES);
                futures.add(pool.submit(() -> {
                    for (int i = 0; i < ops; i++) {
                        op.run(engine, thread, i);
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get(90, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
    }
}

package dev.agentmemory.core.testing;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ForgetMode;
import dev.agentmemory.core.ForgetReceipt;
import dev.agentmemory.core.ForgetTarget;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.Scope.Layer;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.engine.MemoryEngine.Messages;
import dev.agentmemory.core.MemoryException;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.MemoryValue;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.Scope;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.core.StaleVersionException;
import dev.agentmemory.core.MemoryRecord.Status;
import dev.agentmemory.core.TaskInfo;
import dev.agentmemory.core.MemoryRecord.Verification;
import dev.agentmemory.core.event.LoggedEvent;
import dev.agentmemory.core.event.StoredMessage;
import dev.agentmemory.core.ledger.ActionRecord.ActionStart;
import dev.agentmemory.core.ledger.ActionRecord.OperationId;
import dev.agentmemory.core.spi.DerivedData;
import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.core.spi.DerivedData.ForgetRequest;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.core.spi.StoredEvent;
import dev.agentmemory.testing.TestClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.groups.Tuple.tuple;

/**
 * Everything the engine does that storage touches, run against every store: what is written
 * is read back, survives a restart, is forgotten from the stored bytes, sealed at rest, and
 * not lost under concurrency. A store's test extends this class (JUnit 5) and implements
 * {@link #newStore()}, {@link #reopen()} and {@link #rawPayloads}:
 *
 * <pre>{@code
 * class MyStoreEngineTest extends MemoryEngineStorageContract {
 *     @Override protected EventStore newStore() { return MyStore.open(url); }
 *     @Override protected EventStore reopen() { return MyStore.open(url); }
 *     @Override protected List<String> rawPayloads(Partition p) { return selectPayloads(url, p); }
 * }
 * }</pre>
 */
public abstract class MemoryEngineStorageContract {

    protected static final Caller ALICE = Caller.of("shop", "alice");
    protected static final Caller BOB = Caller.of("shop", "bob");
    protected static final MemoryKey COLOR = MemoryKey.of("exchange.color");
    protected static final byte[] KEY = "0123456789abcdef0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.UTF_8);

    protected final TestClock clock = TestClock.start();
    protected EventStore store;
    protected MemoryEngine engine;

    /** A fresh, empty store. Called before each test. */
    protected abstract EventStore newStore();

    /** A store on the same data as {@link #store} after it was closed (a process restart). */
    protected abstract EventStore reopen();

    /** The payloads of {@code partition} exactly as the storage medium holds them, in sequence order (read past the store's own code). */
    protected abstract List<String> rawPayloads(Partition partition);

    @BeforeEach
    void open() {
        store = newStore();
        engine = MemoryEngine.builder().store(store).clock(clock).build();
    }

    @AfterEach
    void close() {
        engine.close();
    }

    /** Closes the engine, reopens the store and builds a new engine on it with {@code config}. */
    protected MemoryEngine restart(UnaryOperator<MemoryEngine.Builder> config) {
        engine.close();
        store = reopen();
        engine = config.apply(MemoryEngine.builder().store(store).clock(clock)).build();
        return engine;
    }

    /** The storage partition of {@code c}. */
    protected static Partition partition(Caller c) {
        return new Partition(c.tenant(), c.user());
    }

    @Test
    void should_supersede_old_version_and_keep_it_in_history_when_key_is_rewritten() {
        // given
        Scope s = ALICE.session("s1");
        engine.write(ALICE, Proposal.set(s, "exchange.color", "black").build());
        clock.advance(Duration.ofMinutes(1));

        // when
        MemoryRecord white = engine.write(ALICE, Proposal.set(s, "exchange.color", "white").build());

        // then
        assertThat(engine.current(ALICE, s, COLOR)).contains(white);
        assertThat(engine.history(ALICE, s, COLOR))
                .extracting(MemoryRecord::text, MemoryRecord::status, MemoryRecord::version)
                .containsExactly(tuple("black", Status.SUPERSEDED, 1L), tuple("white", Status.ACTIVE, 2L));
        assertThat(white.supersedes()).isEqualTo(engine.history(ALICE, s, COLOR).get(0).id());
        assertThat(engine.admin().log(ALICE)).extracting(e -> e.seq()).containsExactly(1L, 2L);
    }

    @Test
    void should_find_same_state_and_history_when_restarted() {
        // given: records, a task, an alias, a pending action, messages
        Scope session = ALICE.session("s1");
        engine.write(ALICE, Proposal.set(session, "exchange.color", "black").build());
        engine.write(ALICE, Proposal.set(session, "exchange.color", "white").build());
        engine.write(ALICE, Proposal.set(ALICE.persistent(), "lang", "zh").kind(Kind.PREFERENCE).build());
        engine.tasks().start(ALICE, "s1", "refund", "refund the earbuds");
        engine.write(ALICE, Proposal.set(ALICE.task("s1", "refund"), "order", "20241015").build());
        engine.aliases().register(ALICE, "order:20241015", "the order ending in 15");
        String op = OperationId.of("create-exchange", "order:20241015");
        engine.ledger().begin(ALICE, op, "create-exchange", MemoryValue.of("white"));
        engine.messages().change(ALICE, "s1", w -> new Messages.WindowChange(List.of(),
                List.of(new StoredMessage(0, 0, "USER", "{\"text\":\"hi\"}", "hi"))));
        var replayBefore = engine.admin().replay(ALICE);
        var historyBefore = engine.history(ALICE, session, COLOR);
        var logBefore = engine.admin().log(ALICE);

        // when
        MemoryEngine reopened = restart(b -> b);

        // then
        assertThat(reopened.admin().replay(ALICE)).isEqualTo(replayBefore);
        assertThat(reopened.admin().log(ALICE)).isEqualTo(logBefore);
        assertThat(reopened.history(ALICE, session, COLOR)).isEqualTo(historyBefore);
        assertThat(reopened.view(ALICE, session).text("exchange.color")).contains("white");
        assertThat(reopened.tasks().active(ALICE, "s1")).get().extracting(TaskInfo::task).isEqualTo("refund");
        assertThat(reopened.aliases().resolve(ALICE, "The order  ending in 15")).contains("order:20241015");
        assertThat(reopened.ledger().begin(ALICE, op, "create-exchange", MemoryValue.of("white")).decision())
                .isEqualTo(ActionStart.Decision.NEEDS_RECONCILIATION);
        assertThat(reopened.messages().window(ALICE, "s1")).extracting(StoredMessage::text).containsExactly("hi");
        assertThat(reopened.admin().audit(ALICE, Duration.ofDays(30)).consistent()).isTrue();
        assertThat(reopened.admin().users("shop")).containsExactly(partition(ALICE));
    }

    @Test
    void should_serve_the_same_state_from_a_snapshot_plus_the_tail_when_restarted() {
        // given: 23 events with a snapshot every 5 (a store without snapshot support keeps none)
        restart(b -> b.snapshotEvery(5));
        Scope s = ALICE.session("s1");
        for (int i = 0; i < 20; i++) {
            engine.write(ALICE, Proposal.set(s, "k" + (i % 4), "v" + i).build());
        }
        engine.messages().change(ALICE, "s1", w -> new Messages.WindowChange(List.of(),
                List.of(new StoredMessage(0, 0, "USER", "{\"text\":\"hi\"}", "hi"))));
        engine.tasks().start(ALICE, "s1", "refund", "refund the earbuds");
        engine.aliases().register(ALICE, "order:20241015", "the order ending in 15");
        var replayBefore = engine.admin().replay(ALICE);
        java.util.Optional<dev.agentmemory.core.spi.StoredSnapshot> snapshot = store.snapshot(partition(ALICE));
        snapshot.ifPresent(x -> assertThat(x.seq()).isEqualTo(20));

        // when
        MemoryEngine reopened = restart(b -> b.snapshotEvery(5));

        // then: snapshot plus tail serves what the whole log replays to
        assertThat(reopened.admin().replay(ALICE)).isEqualTo(replayBefore);
        assertThat(reopened.view(ALICE, s).text("k3")).contains("v19");
        assertThat(reopened.messages().window(ALICE, "s1")).extracting(StoredMessage::text).containsExactly("hi");
        assertThat(reopened.tasks().active(ALICE, "s1")).get().extracting(TaskInfo::task).isEqualTo("refund");
        assertThat(reopened.aliases().resolve(ALICE, "the order ending in 15")).contains("order:20241015");
        assertThat(reopened.admin().audit(ALICE, Duration.ofDays(30)).consistent()).isTrue();

        // and a forget deletes the snapshot that held the value
        reopened.forget(ALICE, ForgetTarget.key(s, MemoryKey.of("k0")), ForgetMode.SOFT);
        assertThat(store.snapshot(partition(ALICE))).isEmpty();
        assertThat(restart(b -> b.snapshotEvery(5)).current(ALICE, s, MemoryKey.of("k0"))).isEmpty();
        assertThat(engine.admin().audit(ALICE, Duration.ofDays(30)).consistent()).isTrue();
    }

    @Test
    void should_serve_state_as_of_a_sequence_when_restarted() {
        Scope s = ALICE.session("s1");
        engine.write(ALICE, Proposal.set(s, "exchange.color", "black").build());
        engine.write(ALICE, Proposal.set(s, "exchange.color", "white").build());

        MemoryEngine reopened = restart(b -> b);

        assertThat(reopened.asOfSequence(ALICE, s, 1).text("exchange.color")).contains("black");
        assertThat(reopened.asOfSequence(ALICE, s, 2).text("exchange.color")).contains("white");
        assertThat(reopened.asOfSequence(ALICE, s, 0).keys()).isEmpty();
    }

    @Test
    void should_leave_tombstone_and_keep_log_when_key_is_soft_forgotten() {
        // given
        Scope p = ALICE.persistent();
        engine.write(ALICE, Proposal.set(p, "lang", "soft-zh-value").kind(Kind.PREFERENCE).build());
        engine.write(ALICE, Proposal.set(p, "lang", "en").kind(Kind.PREFERENCE).build());

        // when
        ForgetReceipt receipt = engine.forget(ALICE, ForgetTarget.key(p, MemoryKey.of("lang")), ForgetMode.SOFT);

        // then
        assertThat(receipt.recordIds()).hasSize(2);
        assertThat(receipt.keys()).containsExactly("shop/alice/persistent lang");
        assertThat(receipt.eventsScrubbed()).isZero();
        assertThat(engine.current(ALICE, p, MemoryKey.of("lang"))).isEmpty();
        assertThat(engine.history(ALICE, p, MemoryKey.of("lang")))
                .extracting(MemoryRecord::status, MemoryRecord::value)
                .containsExactly(tuple(Status.FORGOTTEN, null), tuple(Status.FORGOTTEN, null));
        assertThat(String.join("\n", rawPayloads(partition(ALICE)))).contains("soft-zh-value");
        assertThat(restart(b -> b).current(ALICE, p, MemoryKey.of("lang"))).isEmpty();
    }

    @Test
    void should_remove_value_from_stored_log_and_tell_derived_data_when_key_is_hard_forgotten() {
        // given
        List<ForgetRequest> told = new CopyOnWriteArrayList<>();
        engine.admin().register(new DerivedData() {
            @Override
            public String name() {
                return "embeddings";
            }

            @Override
            public int forget(ForgetRequest request) {
                told.add(request);
                return request.recordIds().size();
            }
        });
        Scope p = ALICE.persistent();
        engine.write(ALICE, Proposal.set(p, "home", "Hailan-secret-street").kind(Kind.OBSERVATION).build());
        engine.write(ALICE, Proposal.set(p, "home", "Nordvik-secret-road").kind(Kind.OBSERVATION).build());
        engine.write(ALICE, Proposal.set(p, "lang", "kept-zh-value").kind(Kind.PREFERENCE).build());

        // when
        ForgetReceipt receipt = engine.forget(ALICE, ForgetTarget.key(p, MemoryKey.of("home")), ForgetMode.HARD);

        // then
        String raw = String.join("\n", rawPayloads(partition(ALICE)));
        assertThat(raw).doesNotContain("Hailan-secret-street").doesNotContain("Nordvik-secret-road").contains("kept-zh-value");
        assertThat(receipt.eventsScrubbed()).isEqualTo(2);
        assertThat(receipt.derived()).containsEntry("embeddings", 2);
        assertThat(told).singleElement().satisfies(r -> {
            assertThat(r.hard()).isTrue();
            assertThat(r.wholeUser()).isFalse();
            assertThat(r.recordIds()).containsExactlyInAnyOrderElementsOf(receipt.recordIds());
        });
        assertThat(engine.history(ALICE, p, MemoryKey.of("home"))).extracting(MemoryRecord::status)
                .containsExactly(Status.FORGOTTEN, Status.FORGOTTEN);
        assertThat(engine.admin().audit(ALICE, Duration.ofDays(1)).replayMatches()).isTrue();
        assertThat(restart(b -> b).view(ALICE, p).values()).containsOnlyKeys(MemoryKey.of("lang"));
    }

    @Test
    void should_remove_verification_evidence_from_stored_log_when_key_is_hard_forgotten() {
        // regression: a refutation's evidence quoting the forgotten value stayed in the log
        Scope s = ALICE.session("s1");
        MemoryRecord city = engine.write(ALICE, Proposal.set(s, "city", "Hailan").kind(Kind.OBSERVATION)
                .source(Source.MODEL).build());
        engine.verification().refute(ALICE, city.id(), "user: I live in Secretville, not Hailan");

        engine.forget(ALICE, ForgetTarget.key(s, MemoryKey.of("city")), ForgetMode.HARD);

        assertThat(String.join("\n", rawPayloads(partition(ALICE)))).doesNotContain("Secretville", "Hailan");
        assertThat(engine.admin().audit(ALICE, Duration.ofDays(1)).replayMatches()).isTrue();
        assertThat(engine.history(ALICE, s, MemoryKey.of("city"))).singleElement()
                .extracting(MemoryRecord::verification, MemoryRecord::evidence).containsExactly(Verification.REFUTED, null);
    }

    @Test
    void should_remove_every_value_message_alias_and_title_when_user_is_hard_forgotten() {
        // given
        engine.write(ALICE, Proposal.set(ALICE.persistent(), "lang", "value-zh-1").kind(Kind.PREFERENCE).build());
        engine.tasks().start(ALICE, "s1", "t1", "title-earbuds-2");
        engine.write(ALICE, Proposal.set(ALICE.task("s1", "t1"), "color", "value-white-3").build());
        engine.aliases().register(ALICE, "order:20241015", "alias-my-white-earbuds-4");
        engine.messages().change(ALICE, "s1", w -> new Messages.WindowChange(List.of(),
                List.of(new StoredMessage(0, 0, "USER", "{\"text\":\"message-5\"}", "message-5"))));
        engine.write(BOB, Proposal.set(BOB.persistent(), "lang", "value-bob").kind(Kind.PREFERENCE).build());

        // when
        ForgetReceipt receipt = engine.forget(ALICE, ForgetTarget.user(), ForgetMode.HARD);

        // then
        assertThat(receipt.recordIds()).hasSize(2);
        assertThat(receipt.messages()).isEqualTo(1);
        String raw = String.join("\n", rawPayloads(partition(ALICE)));
        assertThat(raw).doesNotContain("value-zh-1", "title-earbuds-2", "value-white-3", "alias-my-white-earbuds-4",
                "message-5");
        assertThat(engine.servable(ALICE, Layer.PERSISTENT)).isEmpty();
        assertThat(engine.aliases().resolve(ALICE, "alias-my-white-earbuds-4")).isEmpty();
        assertThat(engine.messages().window(ALICE, "s1")).isEmpty();
        assertThat(engine.admin().audit(ALICE, Duration.ofDays(1)).replayMatches()).isTrue();
        assertThat(engine.view(BOB, BOB.persistent()).text("lang")).contains("value-bob");
    }

    @Test
    void should_seal_payloads_at_rest_when_an_encryption_key_is_given() {
        // given
        MemoryEngine sealed = restart(b -> b.encryptionKey(KEY));
        Scope p = ALICE.persistent();

        // when
        sealed.write(ALICE, Proposal.set(p, "card.last4", "cleartext-4242").kind(Kind.OBSERVATION).build());

        // then
        List<String> raw = rawPayloads(partition(ALICE));
        assertThat(raw).singleElement().asString().startsWith("aesgcm1:").doesNotContain("cleartext-4242");
        assertThat(restart(b -> b.encryptionKey(KEY)).view(ALICE, p).text("card.last4")).contains("cleartext-4242");
    }

    @Test
    void should_fail_clearly_when_sealed_log_is_read_without_or_with_wrong_key() {
        restart(b -> b.encryptionKey(KEY)).write(ALICE,
                Proposal.set(ALICE.persistent(), "lang", "zh").kind(Kind.PREFERENCE).build());

        assertThatThrownBy(() -> restart(b -> b).view(ALICE, ALICE.persistent()))
                .isInstanceOf(MemoryException.class)
                .hasMessage("event 1 is encrypted but no encryption key is configured");
        byte[] wrong = KEY.clone();
        wrong[0] ^= 1;
        assertThatThrownBy(() -> restart(b -> b.encryptionKey(wrong)).view(ALICE, ALICE.persistent()))
                .isInstanceOf(MemoryException.class)
                .hasMessage("cannot decrypt event 1: wrong key or damaged payload");
    }

    @Test
    void should_scrub_sealed_payloads_when_hard_forgetting_with_encryption() {
        MemoryEngine sealed = restart(b -> b.encryptionKey(KEY));
        Scope p = ALICE.persistent();
        sealed.write(ALICE, Proposal.set(p, "home", "secret-home").kind(Kind.OBSERVATION).build());
        List<String> before = rawPayloads(partition(ALICE));

        sealed.forget(ALICE, ForgetTarget.key(p, MemoryKey.of("home")), ForgetMode.HARD);

        assertThat(rawPayloads(partition(ALICE))).doesNotContainAnyElementsOf(before)
                .allMatch(s -> s.startsWith("aesgcm1:"));
        assertThat(sealed.admin().log(ALICE).get(0).change()).isInstanceOfSatisfying(
                dev.agentmemory.core.event.Change.RecordWritten.class, w -> assertThat(w.record().value()).isNull());
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void should_produce_contiguous_versions_and_lose_nothing_when_many_threads_write_one_key() throws Exception {
        // given
        int threads = 8;
        int each = 12;
        Scope s = ALICE.session("s1");
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> futures = new ArrayList<>();
        try {
            for (int t = 0; t < threads; t++) {
                int thread = t;
                futures.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < each; i++) {
                        engine.write(ALICE, Proposal.set(s, "counter", "t" + thread + "-" + i).build());
                    }
                    return null;
                }));
            }

            // when
            start.countDown();
            for (Future<?> f : futures) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }

        // then
        int n = threads * each;
        List<MemoryRecord> history = engine.history(ALICE, s, MemoryKey.of("counter"));
        assertThat(history).extracting(MemoryRecord::version)
                .containsExactlyElementsOf(LongStream.rangeClosed(1, n).boxed().toList());
        assertThat(history).filteredOn(r -> r.status() == Status.ACTIVE).hasSize(1);
        assertThat(history).extracting(MemoryRecord::text).doesNotHaveDuplicates().hasSize(n);
        assertThat(history.get(n - 1).status()).isEqualTo(Status.ACTIVE);
        assertThat(restart(b -> b).history(ALICE, s, MemoryKey.of("counter"))).isEqualTo(history);
    }

    @Test
    void should_follow_or_detect_another_engine_that_appended_to_the_same_store() {
        // given: two engines on one store; the first has cached alice's state
        Scope s = ALICE.session("s1");
        engine.write(ALICE, Proposal.set(s, "exchange.color", "black").build());
        MemoryEngine other = MemoryEngine.builder().store(store).clock(clock).build();
        other.write(ALICE, Proposal.set(s, "exchange.color", "white").build());
        Proposal red = Proposal.set(s, "exchange.color", "red").build();

        if (store.sharedWithOtherWriters()) {
            // a shared store is followed: the first engine's next call has caught up
            assertThat(engine.current(ALICE, s, COLOR).orElseThrow().text()).isEqualTo("white");
            assertThat(engine.admin().audit(ALICE, Duration.ofDays(1)).replayMatches()).isTrue();
            engine.write(ALICE, red);
        } else {
            // a store said to be this engine's alone is not: the audit sees the live state behind the log
            var report = engine.admin().audit(ALICE, Duration.ofDays(1));
            assertThat(report.replayMatches()).isFalse();
            assertThat(report.replayDifference()).isEqualTo("live state is at seq 1, the log at 2");
            assertThat(report.consistent()).isFalse();
            // and a write from the stale engine fails without storing anything, then succeeds on retry
            assertThatThrownBy(() -> engine.write(ALICE, red)).isInstanceOf(StaleVersionException.class);
            assertThat(engine.admin().log(ALICE)).hasSize(2);
            engine.write(ALICE, red);
        }
        assertThat(engine.history(ALICE, s, COLOR)).extracting(MemoryRecord::text, MemoryRecord::status)
                .containsExactly(tuple("black", Status.SUPERSEDED), tuple("white", Status.SUPERSEDED),
                        tuple("red", Status.ACTIVE));
        assertThat(engine.admin().log(ALICE)).hasSize(3);
    }

    @Test
    void should_detect_replay_mismatch_when_stored_payload_was_tampered_with() {
        Scope s = ALICE.session("s1");
        MemoryRecord black = engine.write(ALICE, Proposal.set(s, "exchange.color", "black").build());
        StoredEvent stored = store.read(partition(ALICE), 0).get(0);

        store.rewrite(partition(ALICE), java.util.Map.of(1L, stored.payload().replace("black", "pink")));

        var report = engine.admin().audit(ALICE, Duration.ofDays(1));
        assertThat(report.replayMatches()).isFalse();
        assertThat(report.replayDifference()).isEqualTo("record " + black.id() + " (exchange.color) differs");
        assertThat(report.lines().get(0)).startsWith("state == replay(log) at seq 1: NO, record ");
    }

    @Test
    void should_keep_users_apart_in_storage() {
        engine.write(ALICE, Proposal.set(ALICE.persistent(), "lang", "zh").kind(Kind.PREFERENCE).build());
        engine.write(BOB, Proposal.set(BOB.persistent(), "lang", "en").kind(Kind.PREFERENCE).build());

        MemoryEngine reopened = restart(b -> b);

        assertThat(reopened.view(ALICE, ALICE.persistent()).text("lang")).contains("zh");
        assertThat(reopened.view(BOB, BOB.persistent()).text("lang")).contains("en");
        assertThat(reopened.admin().log(ALICE)).hasSize(1);
        assertThat(reopened.admin().users("shop")).containsExactly(partition(ALICE), partition(BOB));
        assertThat(reopened.admin().users("bank")).isEmpty();
    }

    @Test
    void should_tell_when_a_stored_event_was_appended_without_decoding_it() {
        // given: two events a minute apart, sealed, read back by an engine without the key
        MemoryEngine sealed = restart(b -> b.encryptionKey(KEY));
        sealed.write(ALICE, Proposal.set(ALICE.persistent(), "lang", "zh").kind(Kind.PREFERENCE).build());
        clock.advance(Duration.ofMinutes(1));
        sealed.write(ALICE, Proposal.set(ALICE.persistent(), "lang", "en").kind(Kind.PREFERENCE).build());
        List<LoggedEvent> log = sealed.admin().log(ALICE);

        MemoryEngine keyless = restart(b -> b);

        // then: the times as the log holds them, though no event can be decoded
        assertThatThrownBy(() -> keyless.admin().log(ALICE, 1)).isInstanceOf(MemoryException.class);
        assertThat(keyless.admin().appendedAt(ALICE, 1)).contains(log.get(0).at());
        assertThat(keyless.admin().appendedAt(ALICE, 2)).contains(log.get(1).at()).isNotEqualTo(
                keyless.admin().appendedAt(ALICE, 1));
        assertThat(keyless.admin().appendedAt(ALICE, 3)).isEmpty();
        assertThat(keyless.admin().appendedAt(BOB, 1)).isEmpty();
        assertThatThrownBy(() -> keyless.admin().appendedAt(ALICE, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}

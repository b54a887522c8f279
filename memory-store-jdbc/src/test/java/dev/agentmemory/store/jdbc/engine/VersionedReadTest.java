package dev.agentmemory.store.jdbc.engine;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ForgetMode;
import dev.agentmemory.core.ForgetTarget;
import dev.agentmemory.core.ScopeView.KeyState;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.MemoryValue;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.ReadOptions;
import dev.agentmemory.core.Scope;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.core.MemoryRecord.Status;
import dev.agentmemory.testing.TestClock;
import dev.agentmemory.core.internal.state.MemoryState;
import dev.agentmemory.store.jdbc.JdbcStores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.time.Duration;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

/** Current values, history, "as of" a time or a sequence, expiry and validity windows. */
class VersionedReadTest {

    static final Caller ALICE = Caller.of("shop", "alice");
    static final MemoryKey COLOR = MemoryKey.of("exchange.color");
    static final MemoryKey LIMIT = MemoryKey.of("policy:P17.hotel_limit");

    final TestClock clock = TestClock.start();
    final MemoryEngine engine = MemoryEngine.builder().clock(clock).ttl(Kind.OBSERVATION, Duration.ofDays(1)).build();
    final Scope session = ALICE.session("s1");

    @Test
    void should_serve_state_as_of_a_time() {
        // given
        Instant t0 = clock.instant();
        engine.write(ALICE, Proposal.set(session, COLOR, MemoryValue.of("black")).build());
        clock.advance(Duration.ofHours(1));
        engine.write(ALICE, Proposal.set(session, COLOR, MemoryValue.of("white")).build());

        // then
        assertThat(engine.asOf(ALICE, session, t0.minusSeconds(1)).keys()).isEmpty();
        assertThat(engine.asOf(ALICE, session, t0).text("exchange.color")).contains("black");
        assertThat(engine.asOf(ALICE, session, t0.plus(Duration.ofMinutes(59))).text("exchange.color")).contains("black");
        assertThat(engine.asOf(ALICE, session, clock.instant()).text("exchange.color")).contains("white");
        assertThat(engine.asOf(ALICE, session, clock.instant()).seq()).isEqualTo(2);
    }

    @Test
    void should_serve_state_as_of_every_sequence() {
        engine.write(ALICE, Proposal.set(session, COLOR, MemoryValue.of("black")).build());
        engine.write(ALICE, Proposal.set(session, COLOR, MemoryValue.of("white")).build());
        engine.propose(ALICE, Proposal.invalidate(session, COLOR).build());

        assertThat(engine.asOfSequence(ALICE, session, 1).text("exchange.color")).contains("black");
        assertThat(engine.asOfSequence(ALICE, session, 2).text("exchange.color")).contains("white");
        assertThat(engine.asOfSequence(ALICE, session, 3).keys()).isEmpty();
        assertThat(engine.asOfSequence(ALICE, session, 99).seq()).isEqualTo(3);
    }

    @Test
    void should_report_expired_value_as_needing_reverification_not_as_current() {
        // given
        MemoryRecord stock = engine.write(ALICE, Proposal.set(session, "stock.white", "3").kind(Kind.OBSERVATION)
                .source(Source.TOOL).build());
        MemoryKey key = MemoryKey.of("stock.white");

        // when
        clock.advance(Duration.ofDays(1));

        // then
        KeyState k = engine.keyState(ALICE, session, key, ReadOptions.DEFAULT);
        assertThat(k.current()).isNull();
        assertThat(k.needsReverification()).isEqualTo(stock);
        assertThat(engine.current(ALICE, session, key)).isEmpty();
        assertThat(engine.view(ALICE, session).values()).isEmpty();
        assertThat(engine.view(ALICE, session).key(key)).get().extracting(KeyState::needsReverification).isEqualTo(stock);
        assertThat(engine.asOf(ALICE, session, clock.instant().minusSeconds(1)).text("stock.white")).contains("3");
    }

    @Test
    void should_mark_due_records_expired_in_the_log_and_let_a_fresh_value_supersede_them() {
        engine.write(ALICE, Proposal.set(session, "stock.white", "3").kind(Kind.OBSERVATION).source(Source.TOOL).build());
        engine.write(ALICE, Proposal.set(session, "color", "white").build());
        clock.advance(Duration.ofDays(2));

        assertThat(engine.verification().expireDue(ALICE)).isEqualTo(1);
        assertThat(engine.verification().expireDue(ALICE)).isZero();
        assertThat(engine.history(ALICE, session, MemoryKey.of("stock.white"))).extracting(MemoryRecord::status)
                .containsExactly(Status.EXPIRED);

        engine.write(ALICE, Proposal.set(session, "stock.white", "5").kind(Kind.OBSERVATION).source(Source.TOOL).build());
        assertThat(engine.view(ALICE, session).text("stock.white")).contains("5");
        assertThat(engine.history(ALICE, session, MemoryKey.of("stock.white"))).extracting(MemoryRecord::status)
                .containsExactly(Status.SUPERSEDED, Status.ACTIVE);
    }

    @Test
    void should_pick_the_version_whose_validity_contains_the_trip_date_in_the_P17_case() {
        // given: limit 600 valid until 2024-12-01, superseded by 700 for trips from that date on
        Scope p = ALICE.persistent();
        Instant change = Instant.parse("2024-12-01T00:00:00Z");
        engine.write(ALICE, Proposal.set(p, LIMIT, MemoryValue.of(600)).kind(Kind.REFERENCE).source(Source.SYSTEM)
                .validity(null, change).build());
        clock.advance(Duration.ofDays(1));
        engine.write(ALICE, Proposal.set(p, LIMIT, MemoryValue.of(700)).kind(Kind.REFERENCE).source(Source.SYSTEM)
                .validity(change, null).build());

        // then
        assertThat(engine.applicableAt(ALICE, p, LIMIT, Instant.parse("2024-11-20T00:00:00Z"))).get()
                .extracting(MemoryRecord::text, MemoryRecord::status).containsExactly("600", Status.SUPERSEDED);
        assertThat(engine.applicableAt(ALICE, p, LIMIT, change)).get().extracting(MemoryRecord::text).isEqualTo("700");
        assertThat(engine.applicableAt(ALICE, p, LIMIT, Instant.parse("2025-01-10T00:00:00Z"))).get()
                .extracting(MemoryRecord::text).isEqualTo("700");
        // read on 2024-10-16, before 700's window begins: 600 applies now, 700 is upcoming
        // (this asserted 700 as current before its window began: issue 23, item 2)
        assertThat(engine.current(ALICE, p, LIMIT)).get().extracting(MemoryRecord::text).isEqualTo("600");
        assertThat(engine.keyState(ALICE, p, LIMIT, ReadOptions.DEFAULT).upcoming()).extracting(MemoryRecord::text)
                .containsExactly("700");
        clock.advance(Duration.between(clock.instant(), change));
        assertThat(engine.current(ALICE, p, LIMIT)).get().extracting(MemoryRecord::text).isEqualTo("700");
        assertThat(engine.history(ALICE, p, LIMIT)).extracting(MemoryRecord::text, MemoryRecord::status)
                .containsExactly(tuple("600", Status.SUPERSEDED), tuple("700", Status.ACTIVE));
    }

    @Test
    void should_find_nothing_applicable_when_no_version_covers_the_date() {
        Scope p = ALICE.persistent();
        engine.write(ALICE, Proposal.set(p, LIMIT, MemoryValue.of(700)).kind(Kind.REFERENCE)
                .validity(Instant.parse("2024-12-01T00:00:00Z"), null).build());

        assertThat(engine.applicableAt(ALICE, p, LIMIT, Instant.parse("2024-06-01T00:00:00Z"))).isEmpty();
    }

    @Test
    void should_not_apply_forgotten_or_conflicting_versions() {
        Scope p = ALICE.persistent();
        engine.write(ALICE, Proposal.set(p, LIMIT, MemoryValue.of(600)).kind(Kind.REFERENCE).build());
        engine.propose(ALICE, Proposal.set(p, LIMIT, MemoryValue.of(900)).kind(Kind.INFERENCE).source(Source.MODEL).build());
        Instant any = Instant.parse("2024-11-20T00:00:00Z");

        assertThat(engine.applicableAt(ALICE, p, LIMIT, any)).get().extracting(MemoryRecord::text).isEqualTo("600");
        engine.forget(ALICE, ForgetTarget.key(p, LIMIT), ForgetMode.SOFT);
        assertThat(engine.applicableAt(ALICE, p, LIMIT, any)).isEmpty();
    }
    @Test
    void should_end_an_invalidated_key_now_keep_its_past_and_replay_it_the_same_after_a_reopen(@TempDir Path dir) {
        Scope p = ALICE.persistent();
        MemoryKey language = MemoryKey.of("answer.language");
        Instant t0 = clock.instant();
        Instant t1 = t0.plus(Duration.ofHours(1));
        Instant t2 = t0.plus(Duration.ofHours(2));
        MemoryState replayed;
        List<MemoryRecord> history;
        try (MemoryEngine h2 = MemoryEngine.builder().clock(clock).store(JdbcStores.h2File(dir.resolve("mem"))).build()) {
            // given: Chinese at t0, English from t1
            MemoryRecord chinese = h2.write(ALICE, Proposal.set(p, language, MemoryValue.of("Chinese")).kind(Kind.PREFERENCE).build());
            clock.advance(Duration.ofHours(1));
            MemoryRecord english = h2.write(ALICE, Proposal.set(p, language, MemoryValue.of("English")).kind(Kind.PREFERENCE).build());
            clock.advance(Duration.ofHours(1));

            // when: the user takes the preference back at t2
            MemoryRecord ended = h2.write(ALICE, Proposal.invalidate(p, language).reason("the user took it back").build());

            // then: nothing is current, the history keeps both versions, the past still answers
            assertThat(ended).extracting(MemoryRecord::id, MemoryRecord::status, MemoryRecord::value)
                    .containsExactly(english.id(), Status.FORGOTTEN, null);
            assertThat(h2.current(ALICE, p, language)).isEmpty();
            assertThat(h2.view(ALICE, p).keys()).isEmpty();
            history = h2.history(ALICE, p, language);
            assertThat(history).extracting(MemoryRecord::id, MemoryRecord::status)
                    .containsExactly(tuple(chinese.id(), Status.SUPERSEDED), tuple(english.id(), Status.FORGOTTEN));
            assertThat(h2.asOf(ALICE, p, t0).text("answer.language")).contains("Chinese");
            assertThat(h2.asOf(ALICE, p, t2.minusSeconds(1)).text("answer.language")).contains("English");
            assertThat(h2.asOf(ALICE, p, t2).keys()).isEmpty();
            assertThat(h2.asOfSequence(ALICE, p, 2).text("answer.language")).contains("English");
            assertThat(h2.asOfSequence(ALICE, p, 3).keys()).isEmpty();
            assertThat(h2.admin().audit(ALICE, Duration.ofDays(1))).satisfies(a -> {
                assertThat(a.consistent()).as(a.lines().toString()).isTrue();
                assertThat(a.seq()).isEqualTo(3);
            });
            replayed = h2.admin().replay(ALICE);
        }

        // and after a reopen of the file: the same replay, history and answers
        try (MemoryEngine reopened = MemoryEngine.builder().clock(clock).store(JdbcStores.h2File(dir.resolve("mem"))).build()) {
            assertThat(reopened.admin().replay(ALICE)).isEqualTo(replayed);
            assertThat(reopened.history(ALICE, p, language)).isEqualTo(history);
            assertThat(reopened.current(ALICE, p, language)).isEmpty();
            assertThat(reopened.asOf(ALICE, p, t1).text("answer.language")).contains("English");
            assertThat(reopened.asOf(ALICE, p, t2).keys()).isEmpty();
            assertThat(reopened.admin().audit(ALICE, Duration.ofDays(1)).consistent()).isTrue();
        }
    }
}

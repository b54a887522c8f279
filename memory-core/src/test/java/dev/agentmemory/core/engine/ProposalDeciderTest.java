package dev.agentmemory.core.engine;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.Proposal.Outcome;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.Scope;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.core.MemoryRecord.Status;
import dev.agentmemory.core.event.Change;
import dev.agentmemory.core.event.LoggedEvent;
import dev.agentmemory.core.internal.state.PartitionState;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The proposal decider on its own: a state, a proposal, a time and the settings in; the outcome
 * and the changes out. No store, no lock, no engine; the state is built by applying events.
 */
class ProposalDeciderTest {

    static final Caller ALICE = Caller.of("shop", "alice");
    static final Instant NOW = Instant.parse("2026-03-01T10:00:00Z");
    final Scope session = ALICE.session("s1");

    static EngineConfig config(boolean strict, int maxRecords, MemoryEngine.AtLimit atLimit, Map<Kind, Duration> ttl) {
        return new EngineConfig(strict, 64 * 1024, 1024 * 1024, maxRecords, atLimit == MemoryEngine.AtLimit.FORGET_OLDEST, ttl, Set.of(), null, List.of(),
                dev.agentmemory.core.policy.InstructionDetector.standard());
    }

    static final EngineConfig LENIENT = config(false, 100, MemoryEngine.AtLimit.REJECT, Map.of());

    /** Applies a decision's changes as the partition runtime would log them. */
    static void apply(PartitionState state, ProposalDecider.Decision d) {
        for (Change c : d.changes()) {
            state.apply(new LoggedEvent(state.lastSeq() + 1, NOW, "agent", "trace", c));
        }
    }

    @Test
    void a_first_value_is_one_record_written_and_the_state_is_left_alone() {
        PartitionState state = new PartitionState();
        ProposalDecider.Decision d = new ProposalDecider(LENIENT)
                .decide(ALICE, state, Proposal.set(session, "order.item", "ink").build(), NOW);

        assertThat(d.outcome().result()).isEqualTo(Outcome.Result.APPLIED);
        assertThat(d.changes()).singleElement().isInstanceOfSatisfying(Change.RecordWritten.class, w -> {
            assertThat(w.record().version()).isEqualTo(1);
            assertThat(w.record().status()).isEqualTo(Status.ACTIVE);
            assertThat(w.record().seq()).isEqualTo(1);
            assertThat(w.record().observedAt()).isEqualTo(NOW);
            assertThat(w.superseded()).isEmpty();
        });
        assertThat(state.lastSeq()).isZero();
        assertThat(state.records()).isEmpty();
    }

    @Test
    void the_same_value_again_changes_nothing_and_a_new_one_supersedes() {
        PartitionState state = new PartitionState();
        ProposalDecider decider = new ProposalDecider(LENIENT);
        ProposalDecider.Decision first = decider.decide(ALICE, state, Proposal.set(session, "order.item", "ink").build(), NOW);
        apply(state, first);

        ProposalDecider.Decision again = decider.decide(ALICE, state, Proposal.set(session, "order.item", "ink").build(), NOW);
        assertThat(again.changes()).isEmpty();
        assertThat(again.outcome().record()).isEqualTo(first.outcome().record());

        ProposalDecider.Decision next = decider.decide(ALICE, state,
                Proposal.set(session, "order.item", "toner").build(), NOW.plusSeconds(1));
        assertThat(next.changes()).singleElement().isInstanceOfSatisfying(Change.RecordWritten.class, w -> {
            assertThat(w.record().version()).isEqualTo(2);
            assertThat(w.superseded()).containsExactly(first.outcome().record().id());
        });
    }

    @Test
    void a_kind_rule_rejects_before_anything_is_written() {
        Proposal p = Proposal.set(session, "user.pref.color", "red").kind(Kind.PREFERENCE).source(Source.TOOL).build();
        ProposalDecider.Decision d = new ProposalDecider(LENIENT).decide(ALICE, new PartitionState(), p, NOW);

        assertThat(d.outcome().result()).isEqualTo(Outcome.Result.REJECTED);
        assertThat(d.outcome().reason()).isEqualTo(p.ruleViolation().orElseThrow());
        assertThat(d.changes()).isEmpty();
    }

    @Test
    void an_inference_against_a_user_value_is_a_conflict_or_in_strict_mode_a_rejection() {
        PartitionState lenient = new PartitionState();
        apply(lenient, new ProposalDecider(LENIENT).decide(ALICE, lenient, Proposal.set(session, "user.city", "Oslo").build(), NOW));
        Proposal guess = Proposal.set(session, "user.city", "Bergen").kind(Kind.INFERENCE).source(Source.MODEL).build();

        ProposalDecider.Decision held = new ProposalDecider(LENIENT).decide(ALICE, lenient, guess, NOW.plusSeconds(1));
        assertThat(held.outcome().result()).isEqualTo(Outcome.Result.CONFLICT);
        assertThat(held.changes()).singleElement().isInstanceOfSatisfying(Change.RecordWritten.class,
                w -> assertThat(w.record().status()).isEqualTo(Status.CONFLICT));

        ProposalDecider strict = new ProposalDecider(config(true, 100, MemoryEngine.AtLimit.REJECT, Map.of()));
        ProposalDecider.Decision rejected = strict.decide(ALICE, lenient, guess, NOW.plusSeconds(1));
        assertThat(rejected.outcome().result()).isEqualTo(Outcome.Result.REJECTED);
        assertThat(rejected.outcome().reason()).startsWith("conflict (strict mode): ");
        assertThat(rejected.changes()).isEmpty();
    }

    @Test
    void at_the_record_limit_the_oldest_observation_goes_first_and_the_write_follows_it() {
        ProposalDecider decider = new ProposalDecider(config(false, 1, MemoryEngine.AtLimit.FORGET_OLDEST, Map.of()));
        PartitionState state = new PartitionState();
        ProposalDecider.Decision old = decider.decide(ALICE, state,
                Proposal.set(ALICE.persistent(), "user.seen", "yes").kind(Kind.OBSERVATION).build(), NOW);
        apply(state, old);

        ProposalDecider.Decision d = decider.decide(ALICE, state, Proposal.set(session, "order.item", "ink").build(), NOW);
        assertThat(d.outcome().result()).isEqualTo(Outcome.Result.APPLIED);
        assertThat(d.changes()).hasSize(2);
        assertThat(d.changes().get(0)).isInstanceOfSatisfying(Change.RecordsForgotten.class,
                f -> assertThat(f.ids()).containsExactly(old.outcome().record().id()));
        // the record's event is the second of the two
        assertThat(d.changes().get(1)).isInstanceOfSatisfying(Change.RecordWritten.class,
                w -> assertThat(w.record().seq()).isEqualTo(state.lastSeq() + 2));

        ProposalDecider rejecting = new ProposalDecider(config(false, 1, MemoryEngine.AtLimit.REJECT, Map.of()));
        ProposalDecider.Decision full = rejecting.decide(ALICE, state, Proposal.set(session, "order.item", "ink").build(), NOW);
        assertThat(full.outcome().result()).isEqualTo(Outcome.Result.REJECTED);
        assertThat(full.outcome().reason()).contains("limit of 1 records");
        assertThat(full.changes()).isEmpty();
    }

    @Test
    void task_scopes_need_a_started_task_and_ttls_come_from_the_settings() {
        ProposalDecider decider = new ProposalDecider(config(false, 100, MemoryEngine.AtLimit.REJECT,
                Map.of(Kind.OBSERVATION, Duration.ofHours(2))));
        ProposalDecider.Decision never = decider.decide(ALICE, new PartitionState(),
                Proposal.set(ALICE.task("s1", "t1"), "invoice.id", "7").build(), NOW);
        assertThat(never.outcome().result()).isEqualTo(Outcome.Result.REJECTED);
        assertThat(never.outcome().reason()).contains("never started");

        ProposalDecider.Decision ttl = decider.decide(ALICE, new PartitionState(),
                Proposal.set(session, "user.seen", "yes").kind(Kind.OBSERVATION).build(), NOW);
        assertThat(ttl.outcome().record().expiresAt()).isEqualTo(NOW.plus(Duration.ofHours(2)));
    }

    @Test
    void an_invalidation_forgets_the_live_versions_or_is_rejected_when_there_are_none() {
        ProposalDecider decider = new ProposalDecider(LENIENT);
        PartitionState state = new PartitionState();
        assertThat(decider.decide(ALICE, state, Proposal.invalidate(session, MemoryKey.of("order.item")).build(), NOW)
                .outcome().result()).isEqualTo(Outcome.Result.REJECTED);

        ProposalDecider.Decision written = decider.decide(ALICE, state, Proposal.set(session, "order.item", "ink").build(), NOW);
        apply(state, written);
        ProposalDecider.Decision gone = decider.decide(ALICE, state,
                Proposal.invalidate(session, MemoryKey.of("order.item")).build(), NOW);
        assertThat(gone.outcome().result()).isEqualTo(Outcome.Result.APPLIED);
        assertThat(gone.changes()).singleElement().isInstanceOfSatisfying(Change.RecordsForgotten.class,
                f -> assertThat(f.ids()).containsExactly(written.outcome().record().id()));
    }
}

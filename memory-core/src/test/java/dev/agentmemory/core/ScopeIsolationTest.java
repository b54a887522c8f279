package dev.agentmemory.core;

import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.internal.state.MemoryState;
import dev.agentmemory.core.ledger.ActionRecord.OperationId;
import dev.agentmemory.testing.TestClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import dev.agentmemory.core.MemoryRecord.Access;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.Scope.Layer;
import dev.agentmemory.core.Proposal.Outcome;

/** Nothing is ever read or changed across tenant or user, whatever the caller passes. */
class ScopeIsolationTest {

    static final Caller ALICE = Caller.of("shop", "alice");
    static final Caller BOB = Caller.of("shop", "bob");
    static final Caller ALICE_AT_BANK = Caller.of("bank", "alice");
    static final MemoryKey LANG = MemoryKey.of("lang");

    final TestClock clock = TestClock.start();
    final MemoryEngine engine = MemoryEngine.builder().clock(clock).build();

    @Test
    void should_deny_every_read_of_another_users_scope() {
        // given
        engine.write(ALICE, Proposal.set(ALICE.persistent(), "lang", "zh").kind(Kind.PREFERENCE).build());
        Scope alices = ALICE.persistent();
        String denied = "caller shop/bob cannot touch scope shop/alice/persistent of another tenant or user";

        // when / then
        assertThatThrownBy(() -> engine.current(BOB, alices, LANG)).isInstanceOf(MemoryException.AccessDenied.class).hasMessage(denied);
        assertThatThrownBy(() -> engine.keyState(BOB, alices, LANG, ReadOptions.DEFAULT)).hasMessage(denied);
        assertThatThrownBy(() -> engine.view(BOB, alices)).isInstanceOf(MemoryException.AccessDenied.class);
        assertThatThrownBy(() -> engine.history(BOB, alices, LANG)).isInstanceOf(MemoryException.AccessDenied.class);
        assertThatThrownBy(() -> engine.applicableAt(BOB, alices, LANG, clock.instant())).isInstanceOf(MemoryException.AccessDenied.class);
        assertThatThrownBy(() -> engine.asOf(BOB, alices, clock.instant())).isInstanceOf(MemoryException.AccessDenied.class);
        assertThatThrownBy(() -> engine.asOfSequence(BOB, alices, 1)).isInstanceOf(MemoryException.AccessDenied.class);
        assertThatThrownBy(() -> engine.admin().diff(BOB, BOB.persistent(), alices)).isInstanceOf(MemoryException.AccessDenied.class);
    }

    @Test
    void should_deny_reads_across_tenants_when_user_names_are_equal() {
        engine.write(ALICE, Proposal.set(ALICE.persistent(), "lang", "zh").kind(Kind.PREFERENCE).build());

        assertThatThrownBy(() -> engine.view(ALICE_AT_BANK, ALICE.persistent()))
                .isInstanceOf(MemoryException.AccessDenied.class)
                .hasMessage("caller bank/alice cannot touch scope shop/alice/persistent of another tenant or user");
        assertThat(engine.view(ALICE_AT_BANK, ALICE_AT_BANK.persistent()).keys()).isEmpty();
        assertThat(engine.admin().log(ALICE_AT_BANK)).isEmpty();
    }

    @Test
    void should_deny_whole_batch_and_store_nothing_when_one_proposal_names_another_user() {
        // given
        MemoryState before = engine.admin().replay(ALICE);
        List<Proposal> batch = List.of(
                Proposal.set(ALICE.session("s1"), "color", "white").build(),
                Proposal.set(BOB.session("s1"), "color", "black").build());

        // when / then
        assertThatThrownBy(() -> engine.propose(ALICE, batch))
                .isInstanceOf(MemoryException.AccessDenied.class)
                .hasMessage("caller shop/alice cannot touch scope shop/bob/session/s1 of another tenant or user");
        assertThat(engine.admin().replay(ALICE)).isEqualTo(before);
        assertThat(engine.admin().log(ALICE)).isEmpty();
        assertThat(engine.admin().log(BOB)).isEmpty();
    }

    @Test
    void should_deny_forgetting_another_users_key_or_scope() {
        engine.write(ALICE, Proposal.set(ALICE.persistent(), "lang", "zh").kind(Kind.PREFERENCE).build());

        assertThatThrownBy(() -> engine.forget(BOB, ForgetTarget.key(ALICE.persistent(), LANG), ForgetMode.HARD))
                .isInstanceOf(MemoryException.AccessDenied.class);
        assertThatThrownBy(() -> engine.forget(BOB, ForgetTarget.scope(ALICE.persistent()), ForgetMode.SOFT))
                .isInstanceOf(MemoryException.AccessDenied.class);
        assertThat(engine.view(ALICE, ALICE.persistent()).text("lang")).contains("zh");
    }

    @Test
    void should_return_nothing_of_another_user_through_callers_own_calls() {
        // given: alice has everything
        engine.write(ALICE, Proposal.set(ALICE.persistent(), "lang", "zh").kind(Kind.PREFERENCE).build());
        MemoryRecord candidate = engine.write(ALICE, Proposal.set(ALICE.session("s1"), "color", "white")
                .source(Source.MODEL).kind(Kind.INFERENCE).build());
        engine.tasks().start(ALICE, "s1", "t1", "refund");
        engine.aliases().register(ALICE, "order:20241015", "my white earbuds");
        String op = OperationId.of("refund", "order:20241015");
        engine.ledger().begin(ALICE, op, "refund", MemoryValue.of(1));

        // then: bob, with the same session names, sees none of it
        assertThat(engine.servable(BOB, Layer.PERSISTENT)).isEmpty();
        assertThat(engine.servable(BOB, Layer.SESSION)).isEmpty();
        assertThat(engine.view(BOB, BOB.session("s1")).keys()).isEmpty();
        assertThat(engine.tasks().list(BOB, "s1")).isEmpty();
        assertThat(engine.tasks().active(BOB, "s1")).isEmpty();
        assertThat(engine.aliases().resolve(BOB, "my white earbuds")).isEmpty();
        assertThat(engine.ledger().action(BOB, op)).isEmpty();
        assertThat(engine.ledger().pending(BOB)).isEmpty();
        assertThat(engine.admin().log(BOB)).isEmpty();
        assertThat(engine.admin().audit(BOB, Duration.ofDays(1)).conflictingKeys()).isEmpty();
        assertThatThrownBy(() -> engine.verification().confirm(BOB, candidate.id()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("no record \"" + candidate.id() + "\" for shop/bob");
        assertThat(engine.forget(BOB, ForgetTarget.user(), ForgetMode.HARD).recordIds()).isEmpty();
        assertThat(engine.view(ALICE, ALICE.persistent()).text("lang")).contains("zh");
    }

    @Test
    void should_serve_private_record_only_to_its_writer_agent() {
        // given
        Caller planner = ALICE.as("planner");
        engine.write(planner, Proposal.set(ALICE.session("s1"), "plan", "draft").access(Access.PRIVATE).build());

        // then
        assertThat(engine.view(planner, ALICE.session("s1")).text("plan")).contains("draft");
        assertThat(engine.view(ALICE, ALICE.session("s1")).keys()).isEmpty();
        assertThat(engine.history(ALICE, ALICE.session("s1"), MemoryKey.of("plan"))).isEmpty();
        assertThat(engine.servable(ALICE, Layer.SESSION)).isEmpty();
    }

    @Test
    void should_serve_protected_record_to_owner_and_writer_only() {
        engine.write(ALICE, Proposal.set(ALICE.session("s1"), "refund.limit", "500").access(Access.PROTECTED)
                .owner("billing").build());

        assertThat(engine.view(ALICE.as("billing"), ALICE.session("s1")).text("refund.limit")).contains("500");
        assertThat(engine.view(ALICE, ALICE.session("s1")).text("refund.limit")).contains("500");
        assertThat(engine.view(ALICE.as("marketing"), ALICE.session("s1")).keys()).isEmpty();
    }

    @Test
    void should_reject_overwrite_when_current_value_belongs_to_another_agent() {
        engine.write(ALICE.as("planner"), Proposal.set(ALICE.session("s1"), "plan", "draft").access(Access.PRIVATE).build());

        Outcome outcome = engine.propose(ALICE, Proposal.set(ALICE.session("s1"), "plan", "mine").build());

        assertThat(outcome.result()).isEqualTo(Outcome.Result.REJECTED);
        assertThat(outcome.reason()).isEqualTo("the current value of plan belongs to another agent");
        assertThat(engine.admin().log(ALICE)).hasSize(1);
    }
}

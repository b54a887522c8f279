package dev.agentmemory.core;

import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.ledger.ActionRecord;
import dev.agentmemory.core.ledger.ActionRecord.ActionStart;
import dev.agentmemory.core.ledger.ActionRecord.OperationId;
import dev.agentmemory.testing.TestClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ActionLedgerTest {

    static final Caller ALICE = Caller.of("shop", "alice");

    final TestClock clock = TestClock.start();
    final MemoryEngine engine = MemoryEngine.builder().clock(clock).build();

    @Test
    void should_derive_the_same_id_from_the_same_intent_only() {
        String id = OperationId.of("create-exchange", "order:20241015", "white");

        assertThat(OperationId.of("create-exchange", "order:20241015", "white")).isEqualTo(id).startsWith("create-exchange-");
        assertThat(OperationId.of("create-exchange", "order:20241015", "black")).isNotEqualTo(id);
        assertThat(OperationId.of("create-exchange", "order:20241015white")).isNotEqualTo(id);
        assertThatThrownBy(() -> OperationId.of(" ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("action must not be blank");
    }

    @Test
    void should_proceed_once_then_require_reconciliation_while_no_outcome_is_known() {
        // given
        String id = OperationId.of("create-exchange", "order:20241015");
        ActionStart first = engine.ledger().begin(ALICE, id, "create-exchange", MemoryValue.parse("{\"color\":\"white\"}"));

        // when: a crash, then the same intent again
        ActionStart again = engine.ledger().begin(ALICE, id, "create-exchange", MemoryValue.parse("{\"color\":\"white\"}"));

        // then
        assertThat(first.decision()).isEqualTo(ActionStart.Decision.PROCEED);
        assertThat(again.decision()).isEqualTo(ActionStart.Decision.NEEDS_RECONCILIATION);
        assertThat(engine.ledger().pending(ALICE)).extracting(ActionRecord::operationId).containsExactly(id);
        assertThat(engine.admin().audit(ALICE, java.time.Duration.ofDays(1)).pendingActions())
                .containsExactly(id + " create-exchange");
        assertThat(engine.admin().log(ALICE)).hasSize(1);
    }

    @Test
    void should_return_recorded_outcome_when_intent_repeats_after_completion() {
        String id = OperationId.of("create-exchange", "order:20241015");
        engine.ledger().begin(ALICE, id, "create-exchange", MemoryValue.of("white"));
        clock.advance(java.time.Duration.ofSeconds(2));
        ActionRecord done = engine.ledger().complete(ALICE, id, true, MemoryValue.parse("{\"exchange\":\"EX-77\"}"));

        ActionStart repeated = engine.ledger().begin(ALICE, id, "create-exchange", MemoryValue.of("white"));

        assertThat(repeated.decision()).isEqualTo(ActionStart.Decision.ALREADY_DONE);
        assertThat(repeated.record()).isEqualTo(done);
        assertThat(done.outcome()).isEqualTo(MemoryValue.parse("{\"exchange\":\"EX-77\"}"));
        assertThat(done.success()).isTrue();
        assertThat(done.completedAt()).isEqualTo(clock.instant());
        assertThat(engine.ledger().pending(ALICE)).isEmpty();
        assertThat(engine.ledger().complete(ALICE, id, false, MemoryValue.of("late"))).isEqualTo(done);
        assertThat(engine.admin().log(ALICE)).hasSize(2);
    }

    @Test
    void should_refuse_outcome_without_intent() {
        assertThatThrownBy(() -> engine.ledger().complete(ALICE, "refund-00", true, MemoryValue.of("ok")))
                .isInstanceOf(IllegalStateException.class).hasMessage("no intent logged for operation refund-00");
        assertThat(engine.admin().log(ALICE)).isEmpty();
    }
}

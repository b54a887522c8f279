package dev.agentmemory.core.engine;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryValue;
import dev.agentmemory.core.event.Change;
import dev.agentmemory.core.ledger.ActionRecord;
import dev.agentmemory.core.ledger.ActionRecord.ActionStart;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import dev.agentmemory.core.engine.MemoryEngine.Ledger;

/** The action ledger ({@link Ledger}): intents and outcomes of side effects. */
final class ActionLedger implements Ledger {

    private final PartitionRuntime runtime;

    ActionLedger(PartitionRuntime runtime) {
        this.runtime = runtime;
    }

    @Override
    public ActionStart begin(Caller caller, String operationId, String action, MemoryValue params) {
        Objects.requireNonNull(operationId, "operationId");
        Objects.requireNonNull(action, "action");
        Objects.requireNonNull(params, "params");
        return runtime.write(caller, (s, tx) -> {
            ActionRecord existing = s.action(operationId);
            if (existing != null) {
                return new ActionStart(existing.pending() ? ActionStart.Decision.NEEDS_RECONCILIATION
                        : ActionStart.Decision.ALREADY_DONE, existing);
            }
            tx.add(s, new Change.ActionIntended(operationId, action, params));
            return new ActionStart(ActionStart.Decision.PROCEED,
                    Objects.requireNonNull(s.action(operationId), "the intent just written"));
        });
    }

    @Override
    public ActionRecord complete(Caller caller, String operationId, boolean success, MemoryValue outcome) {
        Objects.requireNonNull(operationId, "operationId");
        Objects.requireNonNull(outcome, "outcome");
        return runtime.write(caller, (s, tx) -> {
            ActionRecord existing = s.action(operationId);
            if (existing == null) {
                throw new IllegalStateException("no intent logged for operation " + operationId);
            }
            if (!existing.pending()) {
                return existing;
            }
            tx.add(s, new Change.ActionCompleted(operationId, success, outcome));
            return Objects.requireNonNull(s.action(operationId), "the entry just completed");
        });
    }

    @Override
    public List<ActionRecord> pending(Caller caller) {
        return runtime.read(caller, s -> s.actions().stream().filter(ActionRecord::pending).toList());
    }

    @Override
    public Optional<ActionRecord> action(Caller caller, String operationId) {
        return runtime.read(caller, s -> Optional.ofNullable(s.action(operationId)));
    }
}

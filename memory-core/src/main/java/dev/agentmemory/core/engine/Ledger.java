package dev.agentmemory.core.engine;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryValue;
import dev.agentmemory.core.ledger.ActionRecord;
import dev.agentmemory.core.ledger.ActionStart;

import java.util.List;
import java.util.Optional;

/**
 * The action ledger, from {@link MemoryEngine#ledger()}: the intent of every side-effecting
 * action is logged before it is performed and its outcome after, so that a retry after a crash
 * never performs it twice. A forget keeps the ledger.
 */
public interface Ledger {

    /**
     * Logs the intent of a side-effecting action before it is performed. A repeated intent with
     * the same id returns the recorded outcome ({@code ALREADY_DONE}) or, when none was recorded
     * (a crash between the call and its outcome), {@code NEEDS_RECONCILIATION}: ask the external
     * system before anything is retried. Only {@code PROCEED} means "perform it now".
     */
    ActionStart begin(Caller caller, String operationId, String action, MemoryValue params);

    /**
     * Logs the outcome of an intended action (also used to settle a reconciled one); a second
     * outcome for the same operation returns the first. {@link IllegalStateException} when no
     * intent was logged for it.
     */
    ActionRecord complete(Caller caller, String operationId, boolean success, MemoryValue outcome);

    /** Actions whose intent was logged without an outcome: to reconcile before any retry. */
    List<ActionRecord> pending(Caller caller);

    /** One ledger entry. */
    Optional<ActionRecord> action(Caller caller, String operationId);
}

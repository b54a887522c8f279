package dev.agentmemory.core.ledger;

import java.util.Objects;

/**
 * What {@code beginAction} found.
 *
 * @param decision go ahead, already done, or waiting for reconciliation
 * @param record   the ledger entry
 */
public record ActionStart(Decision decision, ActionRecord record) {

    /** What the caller must do next. */
    public enum Decision {
        /** The intent is now logged: perform the action, then complete it. */
        PROCEED,
        /** The same intent already completed: use the recorded outcome, do not perform again. */
        ALREADY_DONE,
        /** The same intent was logged without outcome: reconcile with the external system first. */
        NEEDS_RECONCILIATION
    }

    public ActionStart {
        Objects.requireNonNull(decision, "decision");
        Objects.requireNonNull(record, "record");
    }
}

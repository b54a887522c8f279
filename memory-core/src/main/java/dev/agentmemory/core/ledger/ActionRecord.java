package dev.agentmemory.core.ledger;

import dev.agentmemory.core.MemoryValue;
import org.jspecify.annotations.Nullable;

import java.time.Instant;
import java.util.Objects;

/**
 * A side-effecting action in the ledger: its intent, and its outcome once known.
 *
 * @param operationId stable id derived from the business intent
 * @param action      what the action does (e.g. {@code create-exchange})
 * @param params      the parameters it was intended with
 * @param intendedAt  when the intent was logged
 * @param outcome     what the external system answered, once known
 * @param success     whether it succeeded, once known
 * @param completedAt when the outcome was logged
 */
public record ActionRecord(String operationId, String action, MemoryValue params, Instant intendedAt,
                           @Nullable MemoryValue outcome, @Nullable Boolean success, @Nullable Instant completedAt) {
    public ActionRecord {
        Objects.requireNonNull(operationId, "operationId");
        Objects.requireNonNull(action, "action");
        Objects.requireNonNull(params, "params");
        Objects.requireNonNull(intendedAt, "intendedAt");
    }

    /** Whether the intent was logged but no outcome yet: must be reconciled before any retry. */
    public boolean pending() {
        return outcome == null;
    }
}

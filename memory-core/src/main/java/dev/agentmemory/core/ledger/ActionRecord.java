package dev.agentmemory.core.ledger;

import dev.agentmemory.core.MemoryValue;
import org.jspecify.annotations.Nullable;

import java.time.Instant;
import java.util.Objects;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

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

    /**
     * Stable ids for side-effecting actions, derived from the business intent, so that the same
     * intent always gets the same id (and is never submitted twice).
     */
    public static final class OperationId {
        private OperationId() {
        }

        /**
         * The id of an intent: the action name and the parts that make it the same business intent
         * (e.g. {@code of("create-exchange", "order:20241015", "earbuds", "white")}).
         */
        public static String of(String action, String... parts) {
            Objects.requireNonNull(action, "action");
            if (action.isBlank()) {
                throw new IllegalArgumentException("action must not be blank");
            }
            try {
                MessageDigest sha = MessageDigest.getInstance("SHA-256");
                sha.update(action.getBytes(StandardCharsets.UTF_8));
                for (String part : parts) {
                    Objects.requireNonNull(part, "part");
                    sha.update((byte) 0);
                    sha.update(part.getBytes(StandardCharsets.UTF_8));
                }
                return action.replaceAll("[^A-Za-z0-9_-]", "_") + "-" + HexFormat.of().formatHex(sha.digest(), 0, 12);
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("SHA-256 is missing from this JDK", e);
            }
        }
    }
}

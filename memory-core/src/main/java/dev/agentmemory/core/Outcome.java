package dev.agentmemory.core;

import org.jspecify.annotations.Nullable;

import java.util.Objects;
import java.util.Optional;

/**
 * What became of one proposal.
 *
 * @param proposal the proposal
 * @param result   applied, recorded as a conflict, or rejected
 * @param record   the record written (for applied and conflict results); for an applied
 *                 {@linkplain Proposal#invalidate invalidation}, the version it ended, as the
 *                 tombstone the state holds from then on (status forgotten, no value)
 * @param reason   why it was rejected or recorded as a conflict
 */
public record Outcome(Proposal proposal, Result result, @Nullable MemoryRecord record, @Nullable String reason) {

    /** The three ends of a proposal. */
    public enum Result {
        /** Written as the current version. */
        APPLIED,
        /** Written as a conflict candidate beside the current version; reads surface it. */
        CONFLICT,
        /** Not written. */
        REJECTED
    }

    public Outcome {
        Objects.requireNonNull(proposal, "proposal");
        Objects.requireNonNull(result, "result");
        if (result == Result.REJECTED && reason == null) {
            throw new IllegalArgumentException("a rejection needs a reason");
        }
    }

    /** A proposal applied as {@code r}. */
    public static Outcome applied(Proposal p, MemoryRecord r) {
        return new Outcome(p, Result.APPLIED, r, null);
    }

    /** A proposal held as a conflict with the current value, as {@code r}. */
    public static Outcome conflict(Proposal p, MemoryRecord r, String reason) {
        return new Outcome(p, Result.CONFLICT, r, reason);
    }

    /** A proposal rejected for {@code reason}. */
    public static Outcome rejected(Proposal p, String reason) {
        return new Outcome(p, Result.REJECTED, null, reason);
    }

    public boolean isApplied() {
        return result == Result.APPLIED;
    }

    public boolean isRejected() {
        return result == Result.REJECTED;
    }

    /** The written record, for applied and conflict results (for an invalidation, the version it ended). */
    public Optional<MemoryRecord> written() {
        return Optional.ofNullable(record);
    }
}

package dev.agentmemory.core.engine;


import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.MemoryRecord.Source;
import java.time.Instant;
import java.util.Objects;

/**
 * What happens when a new value meets the current one under the same key. "Newest write wins"
 * is not enough: the new value replaces the old only when it is at least as trusted and not
 * older; an inference (or any model output) never replaces what the user stated. Otherwise the
 * new value becomes a conflict candidate that reads surface, or, in strict mode, is rejected.
 */
final class ConflictPolicy {

    private ConflictPolicy() {
    }

    /** The verdict on one write. */
    enum Verdict {
        SUPERSEDE,
        CONFLICT
    }

    /**
     * A decision and its reason.
     *
     * @param verdict supersede or conflict
     * @param reason  why, in words
     */
    record Decision(Verdict verdict, String reason) {
        public Decision {
            Objects.requireNonNull(verdict, "verdict");
            Objects.requireNonNull(reason, "reason");
        }
    }

    /** Decides between the proposal (observed at {@code observedAt}) and the current version. */
    static Decision decide(Proposal p, Instant observedAt, MemoryRecord current) {
        boolean modelMade = p.kind() == Kind.INFERENCE || p.source() == Source.MODEL;
        if (modelMade && current.source() == Source.USER) {
            return new Decision(Verdict.CONFLICT,
                    "an inference never overwrites a user-stated value (version " + current.version() + ")");
        }
        if (!p.trust().atLeast(current.trust())) {
            return new Decision(Verdict.CONFLICT,
                    "the new value is less trusted than the current version " + current.version());
        }
        if (observedAt.isBefore(current.observedAt())) {
            return new Decision(Verdict.CONFLICT,
                    "the new value was observed before the current version " + current.version());
        }
        return new Decision(Verdict.SUPERSEDE, "newer and at least as trusted");
    }
}

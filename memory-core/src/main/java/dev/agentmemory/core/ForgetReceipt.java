package dev.agentmemory.core;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a forget removed.
 *
 * @param target         what was asked
 * @param mode           soft or hard
 * @param recordIds      records turned into tombstones
 * @param keys           the keys they held (scope-qualified, for humans)
 * @param messages       messages forgotten
 * @param redacted       messages rewritten because they stated a forgotten value (in every session
 *                       of the user; they keep their place in history and window)
 * @param eventsScrubbed stored events whose bytes were rewritten (hard only)
 * @param derived        items removed from each registered derived data set, by name
 */
public record ForgetReceipt(ForgetTarget target, ForgetMode mode, List<String> recordIds, List<String> keys,
                            int messages, int redacted, int eventsScrubbed, Map<String, Integer> derived) {
    public ForgetReceipt {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(mode, "mode");
        recordIds = List.copyOf(recordIds);
        keys = List.copyOf(keys);
        derived = Map.copyOf(derived);
        if (messages < 0 || redacted < 0 || eventsScrubbed < 0) {
            throw new IllegalArgumentException("counts must be >= 0: messages=" + messages + ", redacted=" + redacted
                    + ", eventsScrubbed=" + eventsScrubbed);
        }
    }

    /** Whether anything at all was removed. */
    public boolean removedAnything() {
        return !recordIds.isEmpty() || messages > 0 || redacted > 0;
    }
}

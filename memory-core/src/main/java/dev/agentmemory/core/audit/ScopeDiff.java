package dev.agentmemory.core.audit;

import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryValue;
import dev.agentmemory.core.Scope;

import java.util.Map;
import java.util.Objects;

/**
 * How the current values of two scopes differ.
 *
 * @param left      one scope
 * @param right     the other
 * @param onlyLeft  keys only the left scope has
 * @param onlyRight keys only the right scope has
 * @param changed   keys both have with different values: left value, right value
 */
public record ScopeDiff(Scope left, Scope right, Map<MemoryKey, MemoryValue> onlyLeft,
                        Map<MemoryKey, MemoryValue> onlyRight, Map<MemoryKey, Change> changed) {
    public ScopeDiff {
        Objects.requireNonNull(left, "left");
        Objects.requireNonNull(right, "right");
        onlyLeft = Map.copyOf(onlyLeft);
        onlyRight = Map.copyOf(onlyRight);
        changed = Map.copyOf(changed);
    }

    /** A key's two values. */
    public record Change(MemoryValue left, MemoryValue right) {
    }

    /** Whether the scopes hold the same current values. */
    public boolean same() {
        return onlyLeft.isEmpty() && onlyRight.isEmpty() && changed.isEmpty();
    }
}

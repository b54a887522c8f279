package dev.agentmemory.core;

import org.jspecify.annotations.Nullable;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What a read knows about one key: its current version (if any is servable), conflicting
 * candidates, and a version that would be current but passed its re-verify deadline.
 *
 * @param scope               where
 * @param key                 which key
 * @param current             the servable current version, or null
 * @param conflicts           versions that disagree with the current one and were not allowed to replace it
 * @param needsReverification the current version, when it expired (not served as current)
 */
public record KeyState(Scope scope, MemoryKey key, @Nullable MemoryRecord current, List<MemoryRecord> conflicts,
                       @Nullable MemoryRecord needsReverification) {
    public KeyState {
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(key, "key");
        conflicts = List.copyOf(conflicts);
    }

    /** The servable current version. */
    public Optional<MemoryRecord> currentRecord() {
        return Optional.ofNullable(current);
    }

    /** Whether a conflict is open on this key. */
    public boolean hasConflict() {
        return !conflicts.isEmpty();
    }

    /** Whether anything is worth showing (a current value, a conflict or an expired value). */
    public boolean isEmpty() {
        return current == null && conflicts.isEmpty() && needsReverification == null;
    }
}

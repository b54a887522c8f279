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
 * @param needsReverification the version that applies now, when it passed its re-verify deadline (not served as current)
 * @param upcoming            newer versions whose validity window has not begun yet (not current until it does)
 * @param noLongerValid       newer versions whose validity window has ended (not current)
 * @see StatusRule how each version is classified
 */
public record KeyState(Scope scope, MemoryKey key, @Nullable MemoryRecord current, List<MemoryRecord> conflicts,
                       @Nullable MemoryRecord needsReverification, List<MemoryRecord> upcoming,
                       List<MemoryRecord> noLongerValid) {
    public KeyState {
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(key, "key");
        conflicts = List.copyOf(conflicts);
        upcoming = List.copyOf(upcoming);
        noLongerValid = List.copyOf(noLongerValid);
    }

    /** A key state without versions out of their validity window. */
    public KeyState(Scope scope, MemoryKey key, @Nullable MemoryRecord current, List<MemoryRecord> conflicts,
                    @Nullable MemoryRecord needsReverification) {
        this(scope, key, current, conflicts, needsReverification, List.of(), List.of());
    }

    /** The servable current version. */
    public Optional<MemoryRecord> currentRecord() {
        return Optional.ofNullable(current);
    }

    /** Whether a conflict is open on this key. */
    public boolean hasConflict() {
        return !conflicts.isEmpty();
    }

    /** Whether anything is worth showing (a current value, a conflict, an expired, upcoming or ended value). */
    public boolean isEmpty() {
        return current == null && conflicts.isEmpty() && needsReverification == null && upcoming.isEmpty()
                && noLongerValid.isEmpty();
    }
}

package dev.agentmemory.core;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The keys of one scope as a read sees them.
 *
 * @param scope where
 * @param keys  every non-empty key, sorted by key
 * @param seq   the log sequence the view was read at
 */
public record ScopeView(Scope scope, List<KeyState> keys, long seq) {
    public ScopeView {
        Objects.requireNonNull(scope, "scope");
        keys = List.copyOf(keys);
    }

    /** The current values by key (keys without a servable current value are left out). */
    public Map<MemoryKey, MemoryValue> values() {
        Map<MemoryKey, MemoryValue> out = new LinkedHashMap<>();
        for (KeyState k : keys) {
            if (k.current() != null && k.current().value() != null) {
                out.put(k.key(), k.current().value());
            }
        }
        return out;
    }

    /** The state of one key, if it has any. */
    public Optional<KeyState> key(MemoryKey key) {
        return keys.stream().filter(k -> k.key().equals(key)).findFirst();
    }

    /** The current value's text of a key, if any. */
    public Optional<String> text(String key) {
        return key(MemoryKey.of(key)).flatMap(KeyState::currentRecord).map(MemoryRecord::text);
    }

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
}

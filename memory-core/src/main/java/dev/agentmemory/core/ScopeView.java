package dev.agentmemory.core;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

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
}

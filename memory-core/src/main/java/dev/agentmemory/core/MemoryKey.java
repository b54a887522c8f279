package dev.agentmemory.core;

import dev.agentmemory.core.internal.Ids;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A dotted path naming a value, such as {@code order.20241015.color} or
 * {@code order:20241015.color}. Segments are 1-64 characters of letters, digits, {@code _},
 * {@code -} and {@code :}; at most 16 segments. A first segment holding a colon names an entity
 * ({@code order:20241015}).
 */
public record MemoryKey(String path) implements Comparable<MemoryKey> {

    private static final Pattern SEGMENT = Pattern.compile("[A-Za-z0-9_:-]{1,64}");
    private static final int MAX_SEGMENTS = 16;

    public MemoryKey {
        if (path == null) {
            throw new IllegalArgumentException("key must not be null");
        }
        // what SEGMENT says, one character at a time: keys are checked on every record read back
        int segments = 1;
        int length = 0;
        boolean valid = true;
        for (int i = 0; i < path.length(); i++) {
            char c = path.charAt(i);
            if (c == '.') {
                segments++;
                valid &= length > 0;
                length = 0;
            } else {
                length++;
                valid &= length <= 64 && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                        || c == '_' || c == ':' || c == '-');
            }
        }
        valid &= length > 0;
        if (segments > MAX_SEGMENTS) {
            throw new IllegalArgumentException("key has more than " + MAX_SEGMENTS + " segments: " + Ids.quote(path));
        }
        if (!valid) {
            throw new IllegalArgumentException("invalid key " + Ids.quote(path)
                    + ": each dot-separated segment must match " + SEGMENT.pattern());
        }
    }

    /** Parses and validates a key. */
    public static MemoryKey of(String path) {
        return new MemoryKey(path);
    }

    /** The segments of the path. */
    public List<String> segments() {
        return Arrays.asList(path.split("\\."));
    }

    /** This key with one more segment. */
    public MemoryKey child(String segment) {
        return new MemoryKey(path + "." + segment);
    }

    /** The entity this key is about, when its first segment names one ({@code order:20241015}). */
    public Optional<String> entity() {
        String first = segments().get(0);
        return first.indexOf(':') > 0 ? Optional.of(first) : Optional.empty();
    }

    /** Whether this key equals {@code prefix} or lies under it. */
    public boolean startsWith(MemoryKey prefix) {
        return path.equals(prefix.path) || path.startsWith(prefix.path + ".");
    }

    @Override
    public int compareTo(MemoryKey o) {
        return path.compareTo(o.path);
    }

    @Override
    public String toString() {
        return path;
    }
}

package dev.agentmemory.langchain4j;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Objects;
import java.util.UUID;

/**
 * Which session a LangChain4j memory id stands for. {@link AgentMemory} holds one resolver
 * ({@link AgentMemory.Builder#sessionResolver}) and every part that reads a memory id goes through
 * it: the chat memory store, the retriever, the memory tools, the summarizer, the state extractor
 * and {@link AgentMemory#lastRecall}.
 *
 * <p>The {@linkplain #standard() standard} mapping accepts every id LangChain4j's own
 * {@code InMemoryChatMemoryStore} is commonly given, and keeps each distinct id apart:
 * <ul>
 *   <li>a {@link SessionRef}: itself;</li>
 *   <li>a {@code String} {@code "tenant/user/session"} whose three parts are valid identifiers
 *       and whose tenant is not {@value #DEFAULT_TENANT}: that session;</li>
 *   <li>any other {@code String} (including {@code "default"}, the id an AiService without
 *       {@code @MemoryId} uses), an {@code Integer}, a {@code Long} or a {@code UUID}: its own user
 *       with one session, in tenant {@value #DEFAULT_TENANT}. User and session are the same
 *       identifier, spelled from the id's type and value (see {@link #idFor}), so {@code 1},
 *       {@code 1L} and {@code "1"} are three users, and ids with characters identifiers do not
 *       allow are encoded, not refused.</li>
 * </ul>
 * Any other type is refused with an {@link IllegalArgumentException}; objects are never mapped
 * through {@code toString()}. Supply your own resolver to map them (or to map ids onto existing
 * tenants and users).
 *
 * <p>Implementations must be thread-safe and deterministic (the same id always gives the same
 * session), must not return null, and signal an id they refuse with an
 * {@link IllegalArgumentException}.
 */
@FunctionalInterface
public interface SessionResolver {

    /** The tenant of ids that name no tenant of their own. */
    String DEFAULT_TENANT = "default";

    /**
     * The session {@code memoryId} stands for; an {@link IllegalArgumentException} when it is
     * refused. Never called with a {@link SessionRef}: that always stands for itself.
     */
    SessionRef resolve(Object memoryId);

    /**
     * The session {@code resolver} maps {@code memoryId} to: a {@link SessionRef} itself, any
     * other id through the resolver (which must not return null). What every part of this
     * module calls.
     */
    static SessionRef resolve(SessionResolver resolver, Object memoryId) {
        Objects.requireNonNull(resolver, "resolver");
        Objects.requireNonNull(memoryId, "memoryId");
        if (memoryId instanceof SessionRef ref) {
            return ref;
        }
        return Objects.requireNonNull(resolver.resolve(memoryId), "SessionResolver returned null for a memory id");
    }

    /** The standard mapping described on this interface. */
    static SessionResolver standard() {
        return Standard.INSTANCE;
    }

    /**
     * The user and session identifier the standard mapping gives a {@code String},
     * {@code Integer}, {@code Long} or {@code UUID} id: a type letter ({@code s}, {@code i},
     * {@code l}, {@code u}), a dash, then the value with every character other than ASCII letters,
     * digits, {@code .}, {@code _}, {@code :} and {@code -} written as {@code @} and the two hex
     * digits of each of its UTF-8 bytes ({@code "user 1"} becomes {@code s-user@201}). When that
     * is longer than an identifier may be, {@code sh-} and the SHA-256 of the value in hex.
     */
    static String idFor(Object memoryId) {
        Objects.requireNonNull(memoryId, "memoryId");
        String type;
        String value;
        if (memoryId instanceof String s) {
            type = "s";
            value = s;
        } else if (memoryId instanceof Integer i) {
            type = "i";
            value = i.toString();
        } else if (memoryId instanceof Long l) {
            type = "l";
            value = l.toString();
        } else if (memoryId instanceof UUID u) {
            type = "u";
            value = u.toString();
        } else {
            throw Standard.refused(memoryId);
        }
        StringBuilder b = new StringBuilder(type).append('-');
        for (byte x : value.getBytes(StandardCharsets.UTF_8)) {
            int c = x & 0xff;
            if (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_'
                    || c == ':' || c == '-') {
                b.append((char) c);
            } else {
                b.append('@').append(Character.forDigit(c >> 4, 16)).append(Character.forDigit(c & 0xf, 16));
            }
        }
        if (b.length() <= 128) {
            return b.toString();
        }
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
            return type + "h-" + HexFormat.of().formatHex(hash);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}

/** The standard mapping of {@link SessionResolver}. */
final class Standard implements SessionResolver {

    static final Standard INSTANCE = new Standard();

    /** Longest part of a refused id quoted in the error. */
    private static final int QUOTED = 100;

    private Standard() {
    }

    @Override
    public SessionRef resolve(Object memoryId) {
        Objects.requireNonNull(memoryId, "memoryId");
        if (memoryId instanceof SessionRef ref) {
            return ref;
        }
        if (memoryId instanceof String s) {
            SessionRef parsed = SessionRef.parse(s);
            if (parsed != null && !parsed.tenant().equals(DEFAULT_TENANT)) {
                return parsed;
            }
        }
        String id = SessionResolver.idFor(memoryId);
        return new SessionRef(DEFAULT_TENANT, id, id);
    }

    @Override
    public String toString() {
        return "SessionResolver.standard()";
    }

    static IllegalArgumentException refused(Object memoryId) {
        return new IllegalArgumentException("memory id of type " + memoryId.getClass().getName() + " is not mapped"
                + " to a session: use a SessionRef, a String (\"tenant/user/session\" or any other), an Integer, a"
                + " Long or a UUID, or set AgentMemory.Builder#sessionResolver (not mapped through toString(): "
                + quote(String.valueOf(memoryId)) + ")");
    }

    /** {@code s} in quotes, control and non-ASCII characters escaped, cut to about 100 characters. */
    static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        int n = Math.min(s.length(), QUOTED);
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20 || c >= 0x7f) {
                b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        b.append('"');
        if (s.length() > QUOTED) {
            b.append("... (").append(s.length()).append(" characters)");
        }
        return b.toString();
    }
}

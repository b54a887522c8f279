package dev.agentmemory.langchain4j;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.Scope;

import org.jspecify.annotations.Nullable;

import java.util.Objects;

/**
 * Which tenant, user and session a LangChain4j memory id stands for. Use a {@code SessionRef}
 * itself as the {@code @MemoryId}, or its string form {@code tenant/user/session}.
 */
public record SessionRef(String tenant, String user, String session) {

    public SessionRef {
        // Scope validates the three identifiers and names the bad one.
        Scope.session(tenant, user, session);
    }

    /**
     * The strict form: a {@code SessionRef} itself, or a string {@code tenant/user/session}; anything
     * else is refused (no object is read through its {@code toString()}). {@link AgentMemory} maps
     * memory ids with its {@link SessionResolver}, which accepts more (see {@link SessionResolver#standard()}).
     */
    public static SessionRef of(Object memoryId) {
        Objects.requireNonNull(memoryId, "memoryId");
        if (memoryId instanceof SessionRef ref) {
            return ref;
        }
        if (!(memoryId instanceof String s)) {
            throw Standard.refused(memoryId);
        }
        String[] parts = s.split("/", -1);
        if (parts.length != 3) {
            throw new IllegalArgumentException("memory id must be a SessionRef or \"tenant/user/session\": "
                    + Standard.quote(s));
        }
        return new SessionRef(parts[0], parts[1], parts[2]);
    }

    /** {@code s} as {@code tenant/user/session} when it is three valid identifiers, else null. */
    static @Nullable SessionRef parse(String s) {
        String[] parts = s.split("/", -1);
        if (parts.length != 3) {
            return null;
        }
        try {
            return new SessionRef(parts[0], parts[1], parts[2]);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** The caller acting for this session's user through {@code agent}. */
    public Caller caller(String agent) {
        return new Caller(tenant, user, agent);
    }

    /** The session scope. */
    public Scope scope() {
        return Scope.session(tenant, user, session);
    }

    @Override
    public String toString() {
        return tenant + "/" + user + "/" + session;
    }
}

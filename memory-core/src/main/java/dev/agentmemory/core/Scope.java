package dev.agentmemory.core;

import dev.agentmemory.core.internal.Ids;
import org.jspecify.annotations.Nullable;

import java.util.Locale;
import java.util.Objects;

/**
 * Where a record lives: always a tenant and a user, then a layer. Session scopes name a session;
 * task scopes name a session and a task. Identifiers match {@code [A-Za-z0-9][A-Za-z0-9._:@-]{0,127}}.
 */
public record Scope(String tenant, String user, Layer layer, @Nullable String session, @Nullable String task) {

    public Scope {
        Ids.check(tenant, "tenant");
        Ids.check(user, "user");
        Objects.requireNonNull(layer, "layer");
        switch (layer) {
            case PERSISTENT -> {
                if (session != null || task != null) {
                    throw new IllegalArgumentException("a persistent scope names no session or task");
                }
            }
            case SESSION -> {
                Ids.check(session, "session");
                if (task != null) {
                    throw new IllegalArgumentException("a session scope names no task: " + task);
                }
            }
            case TASK -> {
                Ids.check(session, "session");
                Ids.check(task, "task");
            }
        }
    }

    /** The user's persistent memory. */
    public static Scope persistent(String tenant, String user) {
        return new Scope(tenant, user, Layer.PERSISTENT, null, null);
    }

    /** The variables of one conversation. */
    public static Scope session(String tenant, String user, String session) {
        return new Scope(tenant, user, Layer.SESSION, session, null);
    }

    /** The variables of one task inside a conversation. */
    public static Scope task(String tenant, String user, String session, String task) {
        return new Scope(tenant, user, Layer.TASK, session, task);
    }

    /**
     * The session scope this scope belongs to; fails for persistent scopes.
     *
     * @deprecated unused by the library; use {@link #session(String, String, String)} with this
     * scope's {@link #tenant()}, {@link #user()} and {@link #session()}
     */
    @Deprecated
    public Scope sessionScope() {
        if (session == null) {
            throw new IllegalStateException("a persistent scope has no session: " + this);
        }
        return session(tenant, user, session);
    }

    /** Whether this scope belongs to the given user. */
    public boolean belongsTo(String tenant, String user) {
        return this.tenant.equals(tenant) && this.user.equals(user);
    }

    /** Whether this scope is {@code other} or lies inside it (a task inside its session). */
    public boolean within(Scope other) {
        if (!belongsTo(other.tenant, other.user)) {
            return false;
        }
        return switch (other.layer) {
            case PERSISTENT -> layer == Layer.PERSISTENT;
            case SESSION -> Objects.equals(session, other.session) && layer != Layer.PERSISTENT;
            case TASK -> equals(other);
        };
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder(tenant).append('/').append(user).append('/').append(layer.name().toLowerCase(Locale.ROOT));
        if (session != null) {
            b.append('/').append(session);
        }
        if (task != null) {
            b.append('/').append(task);
        }
        return b.toString();
    }

    /** The drawer a record lives in. */
    public enum Layer {
        /** Facts kept across sessions for one user, read on demand. */
        PERSISTENT,
        /** Named variables of one conversation. */
        SESSION,
        /** Variables of one task inside a session; archived when the task ends. */
        TASK
    }
}

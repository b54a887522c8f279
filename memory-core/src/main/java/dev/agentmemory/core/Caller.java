package dev.agentmemory.core;

import dev.agentmemory.core.internal.Ids;

/**
 * Who is reading or writing: the tenant and user every call is bound to, and the agent acting
 * for them. The engine never returns or changes anything outside the caller's tenant and user.
 */
public record Caller(String tenant, String user, String agent) {

    public Caller {
        Ids.check(tenant, "tenant");
        Ids.check(user, "user");
        Ids.check(agent, "agent");
    }

    /** A caller acting as the default agent {@code "assistant"}. */
    public static Caller of(String tenant, String user) {
        return new Caller(tenant, user, "assistant");
    }

    /** This user's persistent scope. */
    public Scope persistent() {
        return Scope.persistent(tenant, user);
    }

    /** One of this user's sessions. */
    public Scope session(String session) {
        return Scope.session(tenant, user, session);
    }

    /** One of this user's tasks: the one started in {@code session} as {@code task}. */
    public Scope task(String session, String task) {
        return Scope.task(tenant, user, session, task);
    }

    /** The scope holding a task's state (in the session that started it, wherever it is held now). */
    public Scope task(TaskInfo task) {
        return Scope.task(tenant, user, task.session(), task.task());
    }

    /** The same user acting through another agent. */
    public Caller as(String otherAgent) {
        return new Caller(tenant, user, otherAgent);
    }
}

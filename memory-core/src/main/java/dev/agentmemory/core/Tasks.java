package dev.agentmemory.core;

import org.jspecify.annotations.Nullable;

import java.util.List;
import java.util.Optional;

/**
 * The task lifecycle of a user's sessions, from {@link MemoryEngine#tasks()}. A task's state lives
 * in the task scope of the session that started it; a session <em>holds</em> the tasks it started
 * (unless they moved) and those it resumed from another session. At most one task a session holds
 * is active. Misuse (a task that does not exist, or a transition its status does not allow) fails
 * with {@link IllegalStateException} naming the task and session.
 */
public interface Tasks {

    /**
     * Starts a task in a session; the session's active task (if any) is suspended first. The
     * task's state lives in this session's task scope, wherever the task is held later.
     */
    TaskInfo start(Caller caller, String session, String task, @Nullable String title);

    /** Suspends a task the session holds: its state stays intact, out of the active view, until resumed. */
    TaskInfo suspend(Caller caller, String session, String task);

    /**
     * Resumes a task with its state exactly as it was; the session's active task is suspended.
     * The task is one this session holds, or else the one open (active or suspended) task of that
     * id in another session of the same user, which then moves here: this session holds it from
     * now on and the other no longer does. When several other sessions have an open task of that
     * id, fails naming them; use {@link #resume(Caller, String, String, String)}.
     */
    TaskInfo resume(Caller caller, String session, String task);

    /**
     * Resumes the task {@code task} started in session {@code startedIn} (null: find it as
     * {@link #resume(Caller, String, String)} does) and makes {@code session} hold it.
     */
    TaskInfo resume(Caller caller, String session, @Nullable String startedIn, String task);

    /** Ends a task the session holds: its state is archived out of the active view. */
    TaskInfo end(Caller caller, String session, String task);

    /** The session's active task (held by it; its state lives in the scope of the session that started it). */
    Optional<TaskInfo> active(Caller caller, String session);

    /** Every task a session holds: started there and not moved away, or moved to it. */
    List<TaskInfo> list(Caller caller, String session);

    /**
     * Every task of the caller's user, in every session, ended ones included: for offering a
     * suspended task of an earlier conversation to resume. Never another user's.
     */
    List<TaskInfo> userTasks(Caller caller);
}

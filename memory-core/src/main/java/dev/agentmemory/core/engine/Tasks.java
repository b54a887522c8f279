package dev.agentmemory.core.engine;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.TaskInfo;
import org.jspecify.annotations.Nullable;

import java.util.List;
import java.util.Optional;

/**
 * The task lifecycle of a user's sessions, from {@link MemoryEngine#tasks()}. A task's state lives
 * in the task scope of the session that started it; a session <em>holds</em> the tasks it started
 * (unless they moved) and those it resumed from another session. At most one task a session holds
 * is active. Misuse (a task that does not exist, or a transition its status does not allow) fails
 * with {@link IllegalStateException} naming the task and session.
 *
 * <p><b>Tasks follow the user.</b> Suspend, resume and end accept any task of the caller's user,
 * asked from any of the user's sessions. The id {@code task} names, from {@code session}: the
 * task this session holds under that id; else the one open (active or suspended) task of that id
 * in the user's other sessions; else the one ended task of that id (refused by its status). When
 * several open tasks of other sessions share the id, the call fails listing each (the session it
 * was started in, its title, who holds it, its status) and changes nothing; name the session it
 * was started in ({@code startedIn}) to pick one. Another user's or tenant's tasks are never
 * found. Suspend and end leave a task held where it is; resume moves it to {@code session}.
 */
public interface Tasks {

    /**
     * Starts a task in a session; the session's active task (if any) is suspended first. The
     * task's state lives in this session's task scope, wherever the task is held later.
     */
    TaskInfo start(Caller caller, String session, String task, @Nullable String title);

    /**
     * Suspends a task of the user (see the class comment for which one {@code task} names): its
     * state stays intact, out of the active view, until resumed. It stays held where it is; the
     * returned {@link TaskInfo#heldBy()} says by which session.
     */
    TaskInfo suspend(Caller caller, String session, String task);

    /**
     * Suspends the task {@code task} started in session {@code startedIn} (null: find it as
     * {@link #suspend(Caller, String, String)} does), wherever it is held.
     */
    TaskInfo suspend(Caller caller, String session, @Nullable String startedIn, String task);

    /**
     * Resumes a task with its state exactly as it was; the session's active task is suspended.
     * The task is one this session holds, or else the one open (active or suspended) task of that
     * id in another session of the same user, which then moves here: this session holds it from
     * now on and the other no longer does. When several other sessions have an open task of that
     * id, fails naming them; use {@link #resume(Caller, String, String, String)}. An ended task is
     * refused.
     */
    TaskInfo resume(Caller caller, String session, String task);

    /**
     * Resumes the task {@code task} started in session {@code startedIn} (null: find it as
     * {@link #resume(Caller, String, String)} does) and makes {@code session} hold it.
     */
    TaskInfo resume(Caller caller, String session, @Nullable String startedIn, String task);

    /**
     * Ends a task of the user (see the class comment for which one {@code task} names): its state
     * is archived out of the active view. It stays held where it is; the returned
     * {@link TaskInfo#heldBy()} says by which session.
     */
    TaskInfo end(Caller caller, String session, String task);

    /**
     * Ends the task {@code task} started in session {@code startedIn} (null: find it as
     * {@link #end(Caller, String, String)} does), wherever it is held.
     */
    TaskInfo end(Caller caller, String session, @Nullable String startedIn, String task);

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

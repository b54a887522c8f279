package dev.agentmemory.core;

import org.jspecify.annotations.Nullable;

import java.time.Instant;
import java.util.Objects;

/**
 * A task of a user and where it is in its life.
 *
 * <p>A task is a frame of the user's work, not of one chat: it starts in one session, whose
 * scope keeps its state ({@code session}; {@link Caller#task(String, String)} with it names the
 * task's scope), and is held by one session at a time ({@code heldBy}), the one that treats it
 * as its own. Resuming a task from another session of the same user moves it there.
 *
 * @param session   the session that started the task; its state lives in that session's task scope
 * @param task      the task id, unique among the tasks started in {@code session}
 * @param title     a short title, if one was given
 * @param status    active, suspended or ended
 * @param changedAt when the status last changed
 * @param heldBy    the session that holds the task now
 */
public record TaskInfo(String session, String task, @Nullable String title, Status status, Instant changedAt,
                       String heldBy) {
    public TaskInfo {
        Objects.requireNonNull(session, "session");
        Objects.requireNonNull(task, "task");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(changedAt, "changedAt");
        Objects.requireNonNull(heldBy, "heldBy");
    }

    /** A task held by the session that started it. */
    public TaskInfo(String session, String task, @Nullable String title, Status status, Instant changedAt) {
        this(session, task, title, status, changedAt, session);
    }

    /** Whether the task has moved away from the session that started it. */
    public boolean moved() {
        return !heldBy.equals(session);
    }

    /** Where a task is in its life. */
    public enum Status {
        /** The task the session is working on. */
        ACTIVE,
        /** Put aside by a topic switch; its state is kept intact for resuming. */
        SUSPENDED,
        /** Finished; its state is archived out of the active view. */
        ENDED
    }
}

package dev.agentmemory.core;


/** Where a task is in its life. */
public enum TaskStatus {
    /** The task the session is working on. */
    ACTIVE,
    /** Put aside by a topic switch; its state is kept intact for resuming. */
    SUSPENDED,
    /** Finished; its state is archived out of the active view. */
    ENDED
}

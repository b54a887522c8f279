package dev.agentmemory.core;

/** The drawer a record lives in. */
public enum Layer {
    /** Facts kept across sessions for one user, read on demand. */
    PERSISTENT,
    /** Named variables of one conversation. */
    SESSION,
    /** Variables of one task inside a session; archived when the task ends. */
    TASK
}

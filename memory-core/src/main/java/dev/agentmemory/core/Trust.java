package dev.agentmemory.core;

/** Whether a record may steer the assistant. Untrusted records are data, never rules. */
public enum Trust {
    UNTRUSTED,
    TRUSTED;

    /** Whether this trust is at least {@code other}. */
    public boolean atLeast(Trust other) {
        return compareTo(other) >= 0;
    }
}

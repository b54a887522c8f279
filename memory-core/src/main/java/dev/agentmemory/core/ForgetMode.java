package dev.agentmemory.core;

/** How thoroughly to forget. */
public enum ForgetMode {
    /** Keep a tombstone (key, version, metadata; no value) for audit. The log keeps its history. */
    SOFT,
    /**
     * Remove the bytes: tombstone in the state, values scrubbed from the log and from derived data,
     * then the store and derived data compacted before the forget returns, so that no file they
     * wrote still holds the value.
     */
    HARD
}

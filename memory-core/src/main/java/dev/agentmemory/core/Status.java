package dev.agentmemory.core;

/** Lifecycle status of one version of a record, as recorded in the log. */
public enum Status {
    /** The current version of its key. */
    ACTIVE,
    /** Replaced by a newer version; kept in history, never read as current. */
    SUPERSEDED,
    /** Disagrees with the current version and was not allowed to replace it; surfaced on read. */
    CONFLICT,
    /** Past its re-verify deadline; not served as current. */
    EXPIRED,
    /** Forgotten: a tombstone without its value. */
    FORGOTTEN
}

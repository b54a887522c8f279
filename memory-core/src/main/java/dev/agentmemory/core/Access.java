package dev.agentmemory.core;

/** Which agents of the same user may read a record. */
public enum Access {
    /** Every agent acting for the user. */
    PUBLIC,
    /** Only the record's owner agent (and its writer). */
    PROTECTED,
    /** Only the agent that wrote it. */
    PRIVATE
}

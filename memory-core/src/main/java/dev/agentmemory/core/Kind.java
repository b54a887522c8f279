package dev.agentmemory.core;

/** What sort of statement a record is; write rules differ by kind. */
public enum Kind {
    /** How the user wants to be served ("answer in Chinese"); only trusted sources may write one. */
    PREFERENCE,
    /** A fact about the current task ("this trip is to Hailan"); never persistent by itself. */
    TASK_FACT,
    /** What a tool or document returned; untrusted unless the application vouches for it. */
    OBSERVATION,
    /** Something a model concluded; never overwrites what the user stated. */
    INFERENCE,
    /** A choice made in the conversation ("exchange, not refund"). */
    DECISION,
    /** A pointer to an outside resource (a policy document, an order). */
    REFERENCE
}

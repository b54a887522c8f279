package dev.agentmemory.core;

import dev.agentmemory.core.internal.Ids;

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
    REFERENCE;

    /**
     * The kind a name denotes, ignoring case and accepting {@code -} or a space for {@code _}
     * ({@code "task-fact"}, {@code "Task fact"}); fails naming the unknown name and the known ones.
     */
    public static Kind parse(String name) {
        java.util.Objects.requireNonNull(name, "name");
        String normalized = name.trim().replace('-', '_').replace(' ', '_').toUpperCase(java.util.Locale.ROOT);
        for (Kind k : values()) {
            if (k.name().equals(normalized)) {
                return k;
            }
        }
        throw new IllegalArgumentException("unknown kind " + Ids.quote(name) + ": expected one of "
                + java.util.Arrays.stream(values()).map(k -> k.name().toLowerCase(java.util.Locale.ROOT)).toList());
    }
}

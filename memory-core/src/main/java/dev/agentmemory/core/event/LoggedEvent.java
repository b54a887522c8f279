package dev.agentmemory.core.event;

import java.time.Instant;
import java.util.Objects;

/**
 * A change as it sits in a user's log.
 *
 * @param seq     sequence number within the user's log, from 1, contiguous
 * @param at      when it was appended (the engine's clock)
 * @param actor   the agent (or system component) that caused it
 * @param traceId ties together the events of one call
 * @param change  what changed
 */
public record LoggedEvent(long seq, Instant at, String actor, String traceId, Change change) {
    public LoggedEvent {
        if (seq < 1) {
            throw new IllegalArgumentException("seq must be >= 1: " + seq);
        }
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(actor, "actor");
        Objects.requireNonNull(traceId, "traceId");
        Objects.requireNonNull(change, "change");
    }
}

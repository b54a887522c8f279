package dev.agentmemory.core.spi;

import java.time.Instant;
import java.util.Objects;

/**
 * An event as a store keeps it. The payload is opaque to the store (JSON, possibly encrypted).
 *
 * @param seq     sequence within the partition, from 1, contiguous
 * @param at      append time
 * @param type    the change's short name, for humans and queries
 * @param actor   who caused it
 * @param traceId ties together the events of one call
 * @param payload the encoded change
 */
public record StoredEvent(long seq, Instant at, String type, String actor, String traceId, String payload) {
    public StoredEvent {
        if (seq < 1) {
            throw new IllegalArgumentException("seq must be >= 1: " + seq);
        }
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(actor, "actor");
        Objects.requireNonNull(traceId, "traceId");
        Objects.requireNonNull(payload, "payload");
    }
}

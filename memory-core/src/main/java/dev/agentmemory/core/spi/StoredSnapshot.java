package dev.agentmemory.core.spi;

import java.util.Objects;

/**
 * A snapshot of one partition's state as a store keeps it: derived data the engine wrote and
 * checks itself (the payload carries its format and checksum); the event log stays the only
 * source of truth.
 *
 * @param seq     the partition's last sequence the snapshot includes (at least 1)
 * @param payload what the engine encoded; opaque to the store
 */
public record StoredSnapshot(long seq, String payload) {
    public StoredSnapshot {
        if (seq < 1) {
            throw new IllegalArgumentException("snapshot seq must be at least 1, got " + seq);
        }
        Objects.requireNonNull(payload, "payload");
    }
}

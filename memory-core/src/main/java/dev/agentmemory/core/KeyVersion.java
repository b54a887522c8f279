package dev.agentmemory.core;

import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One version of a key in its history, with how it ended when something ended it.
 *
 * <p>A version ended by an {@linkplain Proposal#invalidate invalidation} ("I no longer work at
 * Acme") or evicted by the record limit keeps its value here: {@code record} is the version as it
 * stood before it ended (its value, its status then), and {@code ended} says when, why and by which
 * statement. The state holds such a version as a tombstone from then on, so {@code current()} and
 * the block no longer show it; reads of the past ({@code asOf}) before the end still do. A version
 * the user asked to forget has no value here either (and {@code ended} is empty): a forget erases.
 *
 * @param record the version; for an ended one, as it stood right before it ended
 * @param ended  how it ended, or empty when nothing ended it (current, superseded, forgotten)
 */
public record KeyVersion(MemoryRecord record, java.util.Optional<Ended> ended) {

    public KeyVersion {
        Objects.requireNonNull(record, "record");
        Objects.requireNonNull(ended, "ended");
    }

    /**
     * The end of a version that no newer version replaced.
     *
     * @param at     when it ended (the time of the log event)
     * @param seq    the log sequence number of the event that ended it
     * @param reason why, as the invalidation said (e.g. "ended in plain words: employer")
     * @param by     the statement it ended by: the message or tool call of the invalidation
     *               ({@code message:<session>#<index>}), when known
     */
    public record Ended(Instant at, long seq, @Nullable String reason, @Nullable String by) {
        public Ended {
            Objects.requireNonNull(at, "at");
        }
    }
}

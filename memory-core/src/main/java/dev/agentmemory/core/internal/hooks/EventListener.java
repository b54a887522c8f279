package dev.agentmemory.core.internal.hooks;

import dev.agentmemory.core.spi.Partition;

import dev.agentmemory.core.event.LoggedEvent;

import java.util.List;

/**
 * Told about events after they are committed, in order per partition, on the writing thread
 * (while the partition is locked, so it sees each partition's events in sequence). Used to keep
 * derived indexes in step. Must be quick and must not call back into the engine's writes.
 */
@FunctionalInterface
public interface EventListener {

    /** Events just committed to {@code partition}. */
    void committed(Partition partition, List<LoggedEvent> events);

    /**
     * Events another writer (another instance on the store) committed to {@code partition},
     * which this engine just caught up on; by default the same as {@link #committed}. A
     * listener that keeps derived data in the store may expect the other writer to have kept
     * its own there (vectors of the texts).
     */
    default void followed(Partition partition, List<LoggedEvent> events) {
        committed(partition, events);
    }
}

package dev.agentmemory.bench;

import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.core.spi.StoredEvent;
import dev.agentmemory.core.spi.StoredSnapshot;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A store that delegates everything but claims that no other writer appends to it, so an engine
 * over it skips the cross-instance visibility check (the head read before each call). For
 * measuring that check only: over a database other instances write to, such an engine serves
 * stale state.
 */
final class UnsharedEventStore implements EventStore {

    private final EventStore delegate;

    UnsharedEventStore(EventStore delegate) {
        this.delegate = delegate;
    }

    @Override
    public void append(Partition partition, long expectedLastSeq, List<StoredEvent> events) {
        delegate.append(partition, expectedLastSeq, events);
    }

    @Override
    public List<StoredEvent> read(Partition partition, long afterSeq) {
        return delegate.read(partition, afterSeq);
    }

    @Override
    public long lastSequence(Partition partition) {
        return delegate.lastSequence(partition);
    }

    @Override
    public void rewrite(Partition partition, Map<Long, String> payloadBySeq) {
        delegate.rewrite(partition, payloadBySeq);
    }

    @Override
    public List<Partition> partitions(String tenant) {
        return delegate.partitions(tenant);
    }

    @Override
    public Optional<StoredSnapshot> snapshot(Partition partition) {
        return delegate.snapshot(partition);
    }

    @Override
    public boolean saveSnapshot(Partition partition, StoredSnapshot snapshot) {
        return delegate.saveSnapshot(partition, snapshot);
    }

    @Override
    public void deleteSnapshots(Partition partition) {
        delegate.deleteSnapshots(partition);
    }

    /** False: no other writer, so the engine skips the head check before each call. */
    @Override
    public boolean sharedWithOtherWriters() {
        return false;
    }

    @Override
    public void compact() {
        delegate.compact();
    }

    @Override
    public void close() {
        delegate.close();
    }

    @Override
    public String toString() {
        return "unshared " + delegate;
    }
}

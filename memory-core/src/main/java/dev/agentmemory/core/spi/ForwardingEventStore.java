package dev.agentmemory.core.spi;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * An {@link EventStore} that passes every call to another, the optional ones included: extend it
 * to observe or change some calls (count, time, log, wrap errors) and override only those. A
 * decorator written from scratch must also pass on every default method, or the engine silently
 * gets the default instead of the store's answer: a wrapper that forgets
 * {@link #sharedWithOtherWriters()} over a shared database would let an instance serve stale
 * state, one that forgets {@link #snapshot} replays whole logs. This class passes on each default
 * method the interface gains.
 */
public class ForwardingEventStore implements EventStore {

    private final EventStore delegate;

    /** Passes every call to {@code delegate}. */
    public ForwardingEventStore(EventStore delegate) {
        this.delegate = java.util.Objects.requireNonNull(delegate, "delegate");
    }

    /** The store every call goes to. */
    protected final EventStore delegate() {
        return delegate;
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

    @Override
    public boolean sharedWithOtherWriters() {
        return delegate.sharedWithOtherWriters();
    }

    @Override
    public List<String> auditFindings() {
        return delegate.auditFindings();
    }

    @Override
    public void compact() {
        delegate.compact();
    }

    @Override
    public void close() {
        delegate.close();
    }

    /** The delegate's, so that errors naming this store name the real one. */
    @Override
    public String toString() {
        return delegate.toString();
    }
}

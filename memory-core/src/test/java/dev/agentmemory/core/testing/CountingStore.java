package dev.agentmemory.core.testing;

import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.core.spi.StoredEvent;
import dev.agentmemory.core.spi.StoredSnapshot;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;

/**
 * An {@link EventStore} that passes every call to another and counts the events its reads
 * returned and the snapshots saved; it can also alter the snapshots it reads back (to damage
 * them). Tests only.
 */
public final class CountingStore implements EventStore {

    private final EventStore delegate;
    private final AtomicLong eventsRead = new AtomicLong();
    private final AtomicLong lastReadFrom = new AtomicLong(-1);
    private final AtomicLong snapshotsSaved = new AtomicLong();
    private volatile UnaryOperator<StoredSnapshot> onSnapshotRead = UnaryOperator.identity();

    public CountingStore(EventStore delegate) {
        this.delegate = delegate;
    }

    /** Events returned by reads so far. */
    public long eventsRead() {
        return eventsRead.get();
    }

    /** The {@code afterSeq} of the last read, -1 before any. */
    public long lastReadFrom() {
        return lastReadFrom.get();
    }

    /** Snapshots the delegate kept so far. */
    public long snapshotsSaved() {
        return snapshotsSaved.get();
    }

    /** Makes reads of snapshots return {@code f} of the stored one (to damage it). */
    public void alterSnapshots(UnaryOperator<StoredSnapshot> f) {
        onSnapshotRead = f;
    }

    public void resetCounts() {
        eventsRead.set(0);
        lastReadFrom.set(-1);
        snapshotsSaved.set(0);
    }

    @Override
    public void append(Partition partition, long expectedLastSeq, List<StoredEvent> events) {
        delegate.append(partition, expectedLastSeq, events);
    }

    @Override
    public List<StoredEvent> read(Partition partition, long afterSeq) {
        List<StoredEvent> events = delegate.read(partition, afterSeq);
        eventsRead.addAndGet(events.size());
        lastReadFrom.set(afterSeq);
        return events;
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
        return delegate.snapshot(partition).map(onSnapshotRead);
    }

    @Override
    public boolean saveSnapshot(Partition partition, StoredSnapshot snapshot) {
        boolean kept = delegate.saveSnapshot(partition, snapshot);
        if (kept) {
            snapshotsSaved.incrementAndGet();
        }
        return kept;
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
    public void compact() {
        delegate.compact();
    }

    @Override
    public void close() {
        delegate.close();
    }
}

package dev.agentmemory.core.testing;

import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.core.spi.EventStore.ForwardingEventStore;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.core.spi.StoredEvent;
import dev.agentmemory.core.spi.StoredSnapshot;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;

/**
 * An {@link EventStore} that passes every call to another and counts the events its reads
 * returned and the snapshots saved; it can also alter the snapshots it reads back (to damage
 * them). Tests only.
 */
public final class CountingStore extends ForwardingEventStore {

    private final AtomicLong eventsRead = new AtomicLong();
    private final AtomicLong lastReadFrom = new AtomicLong(-1);
    private final AtomicLong snapshotsSaved = new AtomicLong();
    private final AtomicLong snapshotCharsSaved = new AtomicLong();
    private volatile UnaryOperator<StoredSnapshot> onSnapshotRead = UnaryOperator.identity();
    private volatile String lastReadThread = "";

    public CountingStore(EventStore delegate) {
        super(delegate);
    }

    /** Events returned by reads so far. */
    public long eventsRead() {
        return eventsRead.get();
    }

    /** The {@code afterSeq} of the last read, -1 before any. */
    public long lastReadFrom() {
        return lastReadFrom.get();
    }

    /** The name of the thread that made the last read, empty before any. */
    public String lastReadThread() {
        return lastReadThread;
    }

    /** Snapshots the delegate kept so far. */
    public long snapshotsSaved() {
        return snapshotsSaved.get();
    }

    /** Characters of the payloads of the snapshots the delegate kept so far. */
    public long snapshotCharsSaved() {
        return snapshotCharsSaved.get();
    }

    /** Makes reads of snapshots return {@code f} of the stored one (to damage it). */
    public void alterSnapshots(UnaryOperator<StoredSnapshot> f) {
        onSnapshotRead = f;
    }

    public void resetCounts() {
        eventsRead.set(0);
        lastReadFrom.set(-1);
        snapshotsSaved.set(0);
        snapshotCharsSaved.set(0);
        lastReadThread = "";
    }

    @Override
    public List<StoredEvent> read(Partition partition, long afterSeq) {
        List<StoredEvent> events = super.read(partition, afterSeq);
        eventsRead.addAndGet(events.size());
        lastReadFrom.set(afterSeq);
        lastReadThread = Thread.currentThread().getName();
        return events;
    }

    @Override
    public Optional<StoredSnapshot> snapshot(Partition partition) {
        return super.snapshot(partition).map(onSnapshotRead);
    }

    @Override
    public boolean saveSnapshot(Partition partition, StoredSnapshot snapshot) {
        boolean kept = super.saveSnapshot(partition, snapshot);
        if (kept) {
            snapshotsSaved.incrementAndGet();
            snapshotCharsSaved.addAndGet(snapshot.payload().length());
        }
        return kept;
    }
}

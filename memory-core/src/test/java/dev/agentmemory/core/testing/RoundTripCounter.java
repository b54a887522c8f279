package dev.agentmemory.core.testing;

import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.core.spi.EventStore.ForwardingEventStore;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.core.spi.StoredEvent;
import dev.agentmemory.core.spi.StoredSnapshot;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * An {@link EventStore} that passes every call to another and counts the calls by kind: each call
 * of a JDBC store is one round trip to its database (a transaction for an append). Tests only.
 */
public final class RoundTripCounter extends ForwardingEventStore {

    /** The kinds of calls, as a report names them. */
    public enum Kind {
        /** {@link EventStore#lastSequence}: the cross-instance head check. */
        HEAD_CHECK,
        /** {@link EventStore#read}: a tail or a whole log. */
        READ,
        /** {@link EventStore#append}. */
        APPEND,
        /** {@link EventStore#snapshot}. */
        SNAPSHOT_READ,
        /** {@link EventStore#saveSnapshot}, {@link EventStore#deleteSnapshots}. */
        SNAPSHOT_WRITE,
        /** {@link EventStore#rewrite}. */
        REWRITE,
        /** {@link EventStore#partitions}. */
        PARTITIONS
    }

    private final AtomicLongArray counts = new AtomicLongArray(Kind.values().length);

    public RoundTripCounter(EventStore delegate) {
        super(delegate);
    }

    /** The calls counted since the last {@link #reset}, by kind (every kind present). */
    public Map<Kind, Long> counts() {
        Map<Kind, Long> out = new EnumMap<>(Kind.class);
        for (Kind k : Kind.values()) {
            out.put(k, counts.get(k.ordinal()));
        }
        return out;
    }

    /** The calls of one kind since the last {@link #reset}. */
    public long count(Kind kind) {
        return counts.get(kind.ordinal());
    }

    /** Sets every count to 0. */
    public void reset() {
        for (int i = 0; i < counts.length(); i++) {
            counts.set(i, 0);
        }
    }

    private void count(Kind kind, int n) {
        counts.addAndGet(kind.ordinal(), n);
    }

    @Override
    public void append(Partition partition, long expectedLastSeq, List<StoredEvent> events) {
        count(Kind.APPEND, 1);
        super.append(partition, expectedLastSeq, events);
    }

    @Override
    public List<StoredEvent> read(Partition partition, long afterSeq) {
        count(Kind.READ, 1);
        return super.read(partition, afterSeq);
    }

    @Override
    public long lastSequence(Partition partition) {
        count(Kind.HEAD_CHECK, 1);
        return super.lastSequence(partition);
    }

    @Override
    public void rewrite(Partition partition, java.util.Map<Long, String> payloadBySeq) {
        count(Kind.REWRITE, 1);
        super.rewrite(partition, payloadBySeq);
    }

    @Override
    public List<Partition> partitions(String tenant) {
        count(Kind.PARTITIONS, 1);
        return super.partitions(tenant);
    }

    @Override
    public Optional<StoredSnapshot> snapshot(Partition partition) {
        count(Kind.SNAPSHOT_READ, 1);
        return super.snapshot(partition);
    }

    @Override
    public boolean saveSnapshot(Partition partition, StoredSnapshot snapshot) {
        count(Kind.SNAPSHOT_WRITE, 1);
        return super.saveSnapshot(partition, snapshot);
    }

    @Override
    public void deleteSnapshots(Partition partition) {
        count(Kind.SNAPSHOT_WRITE, 1);
        super.deleteSnapshots(partition);
    }
}

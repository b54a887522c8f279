package dev.agentmemory.core.testing;

import dev.agentmemory.core.MemoryException;
import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.core.spi.StoredEvent;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A store that fails on purpose, for tests: wraps a real store and makes chosen calls fail the
 * way real stores fail (the cause is an {@link IOException} saying what broke, wrapped in a
 * {@link MemoryException} naming this store, as {@code JdbcEventStore} does).
 *
 * <ul>
 *   <li>{@link #refuseNextAppends}: the next appends fail before they reach the store (nothing is
 *       stored), e.g. a connection that is gone;</li>
 *   <li>{@link #loseNextAcknowledgements}: the next appends reach the store and are kept, and
 *       then fail, as when the commit went through but the reply was lost: the caller cannot
 *       tell whether the write is stored;</li>
 *   <li>{@link #down}: every call fails until {@link #up}, reads too, as on a full disk where
 *       the database closed itself (so a reload after a failed append fails as well).</li>
 * </ul>
 * It also counts which events each partition's appends acknowledged, for tests that check that
 * nothing acknowledged is lost and nothing else is served.
 */
public final class FaultyEventStore implements EventStore {

    private final EventStore store;
    private final AtomicInteger refuse = new AtomicInteger();
    private final AtomicInteger loseAck = new AtomicInteger();
    private volatile boolean down;
    private volatile boolean alone;
    private final Map<Partition, Long> acknowledged = new ConcurrentHashMap<>();
    private final AtomicInteger failures = new AtomicInteger();

    public FaultyEventStore(EventStore store) {
        this.store = store;
    }

    /**
     * Makes this store one that its engine alone writes to (as an embedded file it owns):
     * {@link #sharedWithOtherWriters()} is false, so the engine serves its cached state without
     * checking the store's head, and finds a lost acknowledgement only at its next write. By
     * default the underlying store says.
     */
    public FaultyEventStore alone() {
        alone = true;
        return this;
    }

    /** The store underneath, which holds what was really stored. */
    public EventStore underlying() {
        return store;
    }

    /** The next {@code n} appends fail without storing anything. */
    public FaultyEventStore refuseNextAppends(int n) {
        refuse.set(n);
        return this;
    }

    /** The next {@code n} appends are stored and then fail (the acknowledgement is lost). */
    public FaultyEventStore loseNextAcknowledgements(int n) {
        loseAck.set(n);
        return this;
    }

    /** Every call fails from now on, reads included, until {@link #up}. */
    public FaultyEventStore down() {
        down = true;
        return this;
    }

    /** Ends {@link #down} and drops planned faults. */
    public FaultyEventStore up() {
        down = false;
        refuse.set(0);
        loseAck.set(0);
        return this;
    }

    /** The highest sequence of {@code p} that an append returned for (0 when none did). */
    public long acknowledged(Partition p) {
        return acknowledged.getOrDefault(p, 0L);
    }

    /** How many calls this store failed on purpose. */
    public int injectedFailures() {
        return failures.get();
    }

    private MemoryException failure(String what, String cause) {
        failures.incrementAndGet();
        return new MemoryException("store " + this + ": cannot " + what + ": " + cause,
                new IOException(cause + " (injected)"));
    }

    @Override
    public void append(Partition partition, long expectedLastSeq, List<StoredEvent> events) {
        if (down) {
            throw failure("append to " + partition, "No space left on device");
        }
        if (refuse.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            throw failure("append to " + partition, "Connection reset");
        }
        store.append(partition, expectedLastSeq, events);
        if (loseAck.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            throw failure("append to " + partition, "Connection reset after the commit was sent");
        }
        if (!events.isEmpty()) {
            acknowledged.merge(partition, events.get(events.size() - 1).seq(), Math::max);
        }
    }

    @Override
    public List<StoredEvent> read(Partition partition, long afterSeq) {
        if (down) {
            throw failure("read " + partition, "The database has been closed");
        }
        return store.read(partition, afterSeq);
    }

    @Override
    public long lastSequence(Partition partition) {
        if (down) {
            throw failure("read " + partition, "The database has been closed");
        }
        return store.lastSequence(partition);
    }

    @Override
    public void rewrite(Partition partition, Map<Long, String> payloadBySeq) {
        if (down) {
            throw failure("rewrite " + partition, "No space left on device");
        }
        store.rewrite(partition, payloadBySeq);
    }

    @Override
    public List<Partition> partitions(String tenant) {
        if (down) {
            throw failure("list " + tenant, "The database has been closed");
        }
        return store.partitions(tenant);
    }

    @Override
    public boolean sharedWithOtherWriters() {
        return !alone && store.sharedWithOtherWriters();
    }

    @Override
    public void compact() {
        store.compact();
    }

    @Override
    public void close() {
        store.close();
    }

    @Override
    public String toString() {
        return "FaultyEventStore[" + store + "]";
    }
}

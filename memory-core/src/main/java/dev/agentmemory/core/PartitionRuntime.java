package dev.agentmemory.core;

import dev.agentmemory.core.event.Change;
import dev.agentmemory.core.event.LoggedEvent;
import dev.agentmemory.core.internal.codec.EventCodec;
import dev.agentmemory.core.internal.state.PartitionState;
import dev.agentmemory.core.spi.DerivedData;
import dev.agentmemory.core.spi.EventListener;
import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.core.spi.ForgetRequest;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.core.spi.StoredEvent;

import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * Runs every call against one user's partition: the only code that takes the partition locks,
 * loads state from the {@link EventStore}, appends to it or rewrites it, builds transactions and
 * tells listeners and derived data about committed events. The parts above it decide; this
 * class makes it happen, one partition at a time, serialized per user.
 */
final class PartitionRuntime {

    private static final System.Logger LOG = System.getLogger(MemoryEngine.class.getName());

    private final EventStore store;
    private final EventCodec codec;
    private final Clock clock;
    private final Map<Partition, Handle> partitions = new ConcurrentHashMap<>();
    private final List<EventListener> listeners = new CopyOnWriteArrayList<>();
    private final List<DerivedData> derived = new CopyOnWriteArrayList<>();
    private final Snapshots snapshots;

    PartitionRuntime(EventStore store, EventCodec codec, Clock clock, List<EventListener> listeners,
                     List<DerivedData> derived, int snapshotEvery) {
        this.store = store;
        this.codec = codec;
        this.clock = clock;
        this.snapshots = new Snapshots(store, codec, snapshotEvery);
        this.listeners.addAll(listeners);
        this.derived.addAll(derived);
    }

    /** One partition's cached state and the lock that serializes its calls. */
    private static final class Handle {
        final ReentrantLock lock = new ReentrantLock();
        PartitionState state;

        Handle(PartitionState state) {
            this.state = state;
        }
    }

    /** Work done under a partition's lock that may add changes through the transaction. */
    @FunctionalInterface
    interface Work<T> {
        T run(PartitionState state, Tx tx);
    }

    /** The events of one call: applied to the live state as they are made, appended together. */
    final class Tx {
        private final Caller caller;
        private final String traceId = UUID.randomUUID().toString();
        private final List<LoggedEvent> events = new ArrayList<>();

        private Tx(Caller caller) {
            this.caller = caller;
        }

        /** Makes {@code change} the next event of this call and applies it to {@code s}. */
        void add(PartitionState s, Change change) {
            LoggedEvent e = new LoggedEvent(s.lastSeq() + 1, clock.instant(), caller.agent(), traceId, change);
            s.apply(e);
            events.add(e);
        }
    }

    /**
     * A partition held under its lock for a call that commits by itself and then reaches the
     * stored log (a forget, an audit). Valid only inside {@link #exclusive}.
     */
    final class Held {
        private final Partition partition;
        private final Handle handle;
        private final Caller caller;

        private Held(Partition partition, Handle handle, Caller caller) {
            this.partition = partition;
            this.handle = handle;
            this.caller = caller;
        }

        Partition partition() {
            return partition;
        }

        /** The live state (replaced when a failed commit reloads it). */
        PartitionState state() {
            return handle.state;
        }

        Tx newTx() {
            return new Tx(caller);
        }

        /** Appends the transaction's events and tells the listeners. */
        void commit(Tx tx) {
            PartitionRuntime.this.commit(partition, handle, tx);
        }

        /** The stored log, decoded, from the first event. */
        List<LoggedEvent> storedLog() {
            return log(partition);
        }

        /** The stored events of one type (as {@link StoredEvent#type()} names it), decoded. */
        List<LoggedEvent> storedLog(String type) {
            List<LoggedEvent> out = new ArrayList<>();
            for (StoredEvent stored : store.read(partition, 0)) {
                if (stored.type().equals(type)) {
                    out.add(codec.decode(stored));
                }
            }
            return out;
        }

        /** Replaces the changes of stored events (by sequence) with the given ones. */
        void rewrite(Map<Long, Change> changes) {
            if (changes.isEmpty()) {
                return;
            }
            Map<Long, String> encoded = new java.util.HashMap<>();
            changes.forEach((seq, change) -> encoded.put(seq, codec.encodeChange(change)));
            snapshots.rewriting(partition);
            store.rewrite(partition, encoded);
        }

        List<DerivedData> derived() {
            return derived;
        }

        /**
         * What is wrong with the stored snapshot, compared with {@code replayed} (a replay of
         * {@code log}, the whole stored log); empty when nothing is. A wrong one is deleted.
         */
        String snapshotProblem(List<LoggedEvent> log, PartitionState replayed) {
            return snapshots.verify(partition, log, replayed);
        }
    }

    Clock clock() {
        return clock;
    }

    static Partition partition(Caller caller) {
        Objects.requireNonNull(caller, "caller");
        return new Partition(caller.tenant(), caller.user());
    }

    /** Runs {@code f} on the caller's live state under the partition's lock. */
    <T> T read(Caller caller, Function<PartitionState, T> f) {
        Handle h = handle(partition(caller));
        h.lock.lock();
        try {
            return f.apply(h.state);
        } finally {
            h.lock.unlock();
        }
    }

    /**
     * Runs {@code work} under the partition's lock and appends what it added as one atomic
     * append. When the work fails after adding changes, or the append fails, the live state is
     * reloaded from the store, so nothing unlogged is ever served. Records the write forgot on its
     * way (an invalidation, the record limit) are passed on to the derived data.
     */
    <T> T write(Caller caller, Work<T> work) {
        Partition partition = partition(caller);
        Handle h = handle(partition);
        h.lock.lock();
        try {
            Tx tx = new Tx(caller);
            T result;
            try {
                result = work.run(h.state, tx);
            } catch (RuntimeException e) {
                if (!tx.events.isEmpty()) {
                    h.state = load(partition);
                }
                throw e;
            }
            commit(partition, h, tx);
            cascadeForgotten(partition, tx);
            return result;
        } finally {
            h.lock.unlock();
        }
    }

    /** Runs {@code f} with the caller's partition held under its lock (see {@link Held}). */
    <T> T exclusive(Caller caller, Function<Held, T> f) {
        Partition partition = partition(caller);
        Handle h = handle(partition);
        h.lock.lock();
        try {
            return f.apply(new Held(partition, h, caller));
        } finally {
            h.lock.unlock();
        }
    }

    /** The caller's stored log, decoded, in sequence order (read without the lock). */
    List<LoggedEvent> log(Caller caller) {
        return log(partition(caller));
    }

    private List<LoggedEvent> log(Partition partition) {
        return store.read(partition, 0).stream().map(codec::decode).toList();
    }

    List<Partition> partitions(String tenant) {
        return store.partitions(tenant);
    }

    void addListener(EventListener listener) {
        listeners.add(listener);
    }

    boolean removeListener(EventListener listener) {
        return listeners.remove(listener);
    }

    void register(DerivedData data) {
        derived.add(data);
    }

    boolean unregister(DerivedData data) {
        return derived.remove(data);
    }

    List<DerivedData> derived() {
        return derived;
    }

    /** Compacts the store, then every derived data. */
    void compact() {
        store.compact();
        for (DerivedData d : derived) {
            d.compact();
        }
    }

    /** Drops every cached state; the next call for a user reloads it from the store. */
    void invalidate() {
        partitions.clear();
    }

    void close() {
        store.close();
    }

    private Handle handle(Partition p) {
        return partitions.computeIfAbsent(p, k -> new Handle(load(k)));
    }

    /** The partition's state from its snapshot plus the log after it, or from the whole log. */
    private PartitionState load(Partition p) {
        return snapshots.load(p);
    }

    private void commit(Partition partition, Handle h, Tx tx) {
        if (tx.events.isEmpty()) {
            return;
        }
        long expected = tx.events.get(0).seq() - 1;
        try {
            store.append(partition, expected, tx.events.stream().map(codec::encode).toList());
        } catch (RuntimeException e) {
            h.state = load(partition);
            throw e;
        }
        List<LoggedEvent> committed = List.copyOf(tx.events);
        for (EventListener l : listeners) {
            try {
                l.committed(partition, committed);
            } catch (RuntimeException e) {
                // The events are durable; a listener that fails must not make the caller think otherwise.
                LOG.log(System.Logger.Level.WARNING, "event listener " + l + " failed on " + partition, e);
            }
        }
        snapshots.committed(partition, h.state, committed);
    }

    /**
     * Tells derived data about records a write forgot on its way (an invalidation, the record
     * limit), so that those reach every derived copy too, as a forget does.
     */
    private void cascadeForgotten(Partition partition, Tx tx) {
        Set<String> ids = new LinkedHashSet<>();
        for (LoggedEvent e : tx.events) {
            if (e.change() instanceof Change.RecordsForgotten f) {
                ids.addAll(f.ids());
            }
        }
        if (ids.isEmpty()) {
            return;
        }
        ForgetRequest request = new ForgetRequest(partition, ids, Map.of(), false, false);
        for (DerivedData d : derived) {
            d.forget(request);
        }
    }
}

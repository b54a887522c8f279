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

import org.jspecify.annotations.Nullable;

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
        /**
         * An append failed in a way that does not tell what the store holds now (the commit may
         * have reached the store and only its acknowledgement failed; another writer appended
         * first): the next write reads the partition's tail first.
         */
        boolean tailUnknown;
        /** Events {@link #catchUp} applied in the open change, announced once the call succeeds. */
        @Nullable List<LoggedEvent> caughtUp;

        Handle(PartitionState state) {
            this.state = state;
        }
    }

    /** Work done under a partition's lock that may add changes through the transaction. */
    @FunctionalInterface
    interface Work<T> {
        T run(PartitionState state, Tx tx);
    }

    /**
     * The events of one call: applied to the live state as they are made (the state's open
     * change records how to undo them), appended together; a call that fails before its append
     * returns, for whatever reason, rolls the live state back to exactly what it was.
     */
    final class Tx {
        private final Caller caller;
        private final String traceId = UUID.randomUUID().toString();
        private final List<LoggedEvent> events = new ArrayList<>();
        private boolean appended;

        private Tx(Caller caller) {
            this.caller = caller;
        }

        /** Makes {@code change} the next event of this call and applies it to {@code s}. */
        void add(PartitionState s, Change change) {
            if (!s.changing()) {
                s.begin();
            }
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

        /** The live state. */
        PartitionState state() {
            return handle.state;
        }

        private final List<Tx> opened = new ArrayList<>();

        Tx newTx() {
            Tx tx = new Tx(caller);
            opened.add(tx);
            return tx;
        }

        /** Whether a transaction added events that were not committed. */
        private boolean uncommitted() {
            return opened.stream().anyMatch(tx -> !tx.appended && !tx.events.isEmpty());
        }

        /** Appends the transaction's events and tells the listeners; what follows is a new change. */
        void commit(Tx tx) {
            if (tx.events.isEmpty()) {
                return;
            }
            append(partition, handle, tx);
            tx.appended = true;
            settle(partition, handle);
            announce(partition, handle, List.copyOf(tx.events));
            handle.state.begin();
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
     * append. When the work fails after adding changes, or the append fails, or anything else
     * throws before the append returned, the live state is rolled back to exactly what it was
     * before the call (undone in memory, not reloaded, so a store that fails reads too cannot
     * leave it changed), and no listener or derived data hears of the changes. Records the write
     * forgot on its way (an invalidation, the record limit) are passed on to the derived data.
     */
    <T> T write(Caller caller, Work<T> work) {
        Partition partition = partition(caller);
        Handle h = handle(partition);
        h.lock.lock();
        boolean owner = !h.state.changing(); // false in a call nested in another call on this partition
        try {
            if (owner) {
                h.state.begin();
            }
            catchUp(partition, h);
            Tx tx = new Tx(caller);
            T result = work.run(h.state, tx);
            if (!tx.events.isEmpty()) {
                append(partition, h, tx);
                if (!owner) {
                    // stored, but the enclosing call may still roll the live state back: let the
                    // next call read the stored tail
                    h.tailUnknown = true;
                }
            }
            if (owner) {
                settle(partition, h);
            }
            if (!tx.events.isEmpty()) {
                announce(partition, h, List.copyOf(tx.events));
                cascadeForgotten(partition, tx.events);
            }
            return result;
        } finally {
            if (owner) {
                undo(h); // no-op once settled
            }
            h.lock.unlock();
        }
    }

    /**
     * Runs {@code f} with the caller's partition held under its lock (see {@link Held}); changes
     * it added but did not commit are rolled back when it returns or throws.
     */
    <T> T exclusive(Caller caller, Function<Held, T> f) {
        Partition partition = partition(caller);
        Handle h = handle(partition);
        h.lock.lock();
        boolean owner = !h.state.changing();
        try {
            if (owner) {
                h.state.begin();
            }
            catchUp(partition, h);
            Held held = new Held(partition, h, caller);
            T result = f.apply(held);
            if (owner) {
                if (held.uncommitted()) {
                    undo(h); // changes added after the last commit were never appended
                } else {
                    settle(partition, h);
                }
            }
            return result;
        } finally {
            if (owner) {
                undo(h);
            }
            h.lock.unlock();
        }
    }

    /**
     * After an append whose outcome the store could not tell, reads the events the store holds
     * beyond the live state (the failed append's, when it was kept after all) and applies them
     * in the call's open change, so that the call's own append continues the stored log. They
     * stay, and listeners and derived data hear of them, only when the call succeeds; when it
     * fails (the read included) the live state is again what it was before the call.
     */
    private void catchUp(Partition partition, Handle h) {
        if (!h.tailUnknown || h.caughtUp != null) {
            return;
        }
        List<LoggedEvent> tail = store.read(partition, h.state.lastSeq()).stream().map(codec::decode).toList();
        tail.forEach(h.state::apply);
        h.caughtUp = tail;
    }

    /** Keeps the open change of a call that succeeded, and announces what {@link #catchUp} found. */
    private void settle(Partition partition, Handle h) {
        h.state.keep();
        List<LoggedEvent> tail = h.caughtUp;
        if (tail != null) {
            h.caughtUp = null;
            h.tailUnknown = false;
            if (!tail.isEmpty()) {
                announce(partition, h, tail);
                cascadeForgotten(partition, tail);
            }
        }
    }

    /** Rolls back the open change of a call that failed (no-op once settled). */
    private static void undo(Handle h) {
        h.state.rollback();
        h.caughtUp = null;
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

    /**
     * Appends the transaction's events. When the store fails, throws (see {@link #appendFailed})
     * and marks the partition's stored tail unknown (it may hold the append after all, or another
     * writer's events); the caller rolls the live state back.
     */
    private void append(Partition partition, Handle h, Tx tx) {
        long expected = tx.events.get(0).seq() - 1;
        List<StoredEvent> encoded = tx.events.stream().map(codec::encode).toList();
        try {
            store.append(partition, expected, encoded);
        } catch (StaleVersionException e) {
            // refused before anything was stored, because the stored log moved on (another
            // writer): the live state rolls back, and the next call reads the stored tail
            h.tailUnknown = true;
            throw e;
        } catch (RuntimeException e) {
            h.tailUnknown = true;
            throw appendFailed(partition, e);
        } catch (Error e) {
            h.tailUnknown = true;
            throw e;
        }
    }

    /** Tells the listeners about events now stored, and snapshots the state when an interval is crossed. */
    private void announce(Partition partition, Handle h, List<LoggedEvent> committed) {
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
     * The error of a failed append as the caller sees it: says that the write was not applied,
     * names the store and what failed first (the deepest cause: no space left on the device, a
     * lost connection), and keeps the store's exception as its cause. A store's own
     * {@link MemoryException} that already says all that is passed on as it is.
     */
    private RuntimeException appendFailed(Partition partition, RuntimeException e) {
        Throwable first = e;
        while (first.getCause() != null && first.getCause() != first) {
            first = first.getCause();
        }
        String firstText = first.getMessage() == null ? first.getClass().getName() : first.getMessage();
        String storeName = String.valueOf(store);
        String text = e.getMessage() == null ? "" : e.getMessage();
        if (e instanceof MemoryException m && text.contains(firstText) && text.contains(storeName)) {
            return m;
        }
        return new MemoryException("write to " + partition + " not applied: the append to store " + storeName
                + " failed: " + firstText + (first == e ? "" : " (" + e.getClass().getSimpleName() + ": " + text + ")"), e);
    }

    /**
     * Tells derived data about records a write forgot on its way (an invalidation, the record
     * limit), so that those reach every derived copy too, as a forget does.
     */
    private void cascadeForgotten(Partition partition, List<LoggedEvent> events) {
        Set<String> ids = new LinkedHashSet<>();
        for (LoggedEvent e : events) {
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

package dev.agentmemory.core.engine;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.MemoryException;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.MemoryValue;
import dev.agentmemory.core.StaleVersionException;
import dev.agentmemory.core.event.Change;
import dev.agentmemory.core.event.LoggedEvent;
import dev.agentmemory.core.internal.codec.EventCodec;
import dev.agentmemory.core.internal.state.PartitionState;
import dev.agentmemory.core.spi.DerivedData;
import dev.agentmemory.core.internal.hooks.EventListener;
import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.core.spi.DerivedData.ForgetRequest;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.core.spi.StatedValues;
import dev.agentmemory.core.spi.StoredEvent;
import dev.agentmemory.core.spi.StoredSnapshot;
import dev.agentmemory.core.spi.StoredVector;
import dev.agentmemory.core.spi.VectorModel;

import org.jspecify.annotations.Nullable;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * Runs every call against one user's partition: the only code that takes the partition locks,
 * loads state from the {@link EventStore}, appends to it or rewrites it, builds transactions and
 * tells listeners and derived data about committed events. The parts above it decide; this
 * class makes it happen, one partition at a time, serialized per user.
 */
final class PartitionRuntime {

    private static final System.Logger LOG = System.getLogger("dev.agentmemory.core.engine.MemoryEngine");

    private final EventStore store;
    private final EventCodec codec;
    private final Clock clock;
    private final Map<Partition, Handle> partitions = new ConcurrentHashMap<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final List<EventListener> listeners = new CopyOnWriteArrayList<>();
    private final List<DerivedData> derived = new CopyOnWriteArrayList<>();
    private final Snapshots snapshots;
    /** Whether other writers may append to the store (see {@link EventStore#sharedWithOtherWriters()}). */
    private final boolean shared;
    /** The partitions this thread has caught up once for the work it runs (see {@link #consistently}). */
    private final ThreadLocal<Set<Partition>> checkedOnce = ThreadLocal.withInitial(java.util.HashSet::new);

    /**
     * How many times a write whose append lost the race to another writer is made: with three
     * instances writing one user without a pause, 10 attempts still ran out for about 1 write
     * in 100 (MultiInstanceTest, PostgresInstancesTest); each attempt loses with a chance of about
     * (n-1)/n for n busy writers, so for three 30 attempts all lose with a chance of (2/3)^30, about
     * 5 in a million.
     */
    static final int WRITE_ATTEMPTS = 30;

    PartitionRuntime(EventStore store, EventCodec codec, Clock clock, List<DerivedData> derived, int snapshotEvery) {
        this.store = store;
        this.codec = codec;
        this.clock = clock;
        this.snapshots = new Snapshots(store, codec, snapshotEvery);
        this.shared = store.sharedWithOtherWriters();
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
        /**
         * The values of the records that forgets among {@link #caughtUp} erased, taken before
         * they were applied, for the derived data's forget requests.
         */
        Map<String, MemoryValue> caughtUpForgotten = Map.of();

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
        /** Whether this call began the partition's open change (it is not nested in another call). */
        private final boolean owner;
        private boolean committedAny;

        private Held(Partition partition, Handle handle, Caller caller, boolean owner) {
            this.partition = partition;
            this.handle = handle;
            this.caller = caller;
            this.owner = owner;
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

        /**
         * Appends the transaction's events and tells the listeners; what follows is a new change.
         * When the call's first append loses the race to another writer, nothing of the call was
         * stored or told anyone: {@link #exclusive} makes the whole call again on the fresh state.
         */
        void commit(Tx tx) {
            if (tx.events.isEmpty()) {
                return;
            }
            try {
                append(partition, handle, tx);
            } catch (StaleVersionException e) {
                if (owner && shared && !committedAny) {
                    throw new AppendRaced(e);
                }
                throw e;
            }
            tx.appended = true;
            committedAny = true;
            settle(partition, handle);
            announce(partition, handle, List.copyOf(tx.events));
            handle.state.begin();
        }

        /** The stored log, decoded, from the first event. */
        List<LoggedEvent> storedLog() {
            return log(partition);
        }

        /**
         * The stored log, decoded, from the first event, with the live state caught up to it:
         * when other writers may append, the events they appended since the call began are
         * applied to the live state (and announced once the call succeeds, as any call's catch-up
         * is), so that the state and the log describe the same sequence. One read of the log
         * decides; a store only this engine writes to is read as it is (events beyond the live
         * state there were not written by an engine and must show as a difference).
         */
        List<LoggedEvent> storedLogCaughtUp() {
            List<LoggedEvent> log = log(partition);
            if (shared) {
                long live = handle.state.lastSeq();
                List<LoggedEvent> tail = log.stream().filter(e -> e.seq() > live).toList();
                if (!tail.isEmpty()) {
                    applyFollowed(handle, tail);
                }
            }
            return log;
        }

        /** The partition's stored snapshot, if any; read it before the log it is checked against. */
        Optional<StoredSnapshot> storedSnapshot() {
            return store.snapshot(partition);
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

        /**
         * Replaces the changes of stored events (by sequence) with the ones {@code changes}
         * computes from the stored log; returns how many. A rewrite refused because another
         * writer appended meanwhile stored nothing: the changes are computed again from a fresh
         * read and rewritten, as a write is made again ({@link #WRITE_ATTEMPTS} at most). A
         * rewrite sets each named event to one payload, so making it again never applies twice.
         */
        int rewrite(java.util.function.Supplier<Map<Long, Change>> changes) {
            for (int attempt = 1; ; attempt++) {
                Map<Long, Change> rewritten = changes.get();
                if (rewritten.isEmpty()) {
                    return 0;
                }
                Map<Long, String> encoded = new java.util.HashMap<>();
                rewritten.forEach((seq, change) -> encoded.put(seq, codec.encodeChange(change)));
                snapshots.rewriting(partition);
                try {
                    store.rewrite(partition, encoded);
                    return rewritten.size();
                } catch (StaleVersionException e) {
                    if (!shared) {
                        throw e;
                    }
                    if (attempt >= WRITE_ATTEMPTS) {
                        throw new StaleVersionException("rewrite of " + partition + " not applied: other writers kept"
                                + " appending to it (" + attempt + " attempts): " + e.getMessage());
                    }
                    backOff(attempt);
                }
            }
        }

        List<DerivedData> derived() {
            return derived;
        }

        /**
         * What is wrong with {@code snapshot} (read before {@code log}), compared with
         * {@code replayed} (a replay of {@code log}, the whole stored log); empty when nothing
         * is. A wrong one is deleted.
         */
        String snapshotProblem(Optional<StoredSnapshot> snapshot, List<LoggedEvent> log, PartitionState replayed) {
            return snapshots.verify(partition, snapshot, log, replayed);
        }
    }

    Clock clock() {
        return clock;
    }

    static Partition partition(Caller caller) {
        Objects.requireNonNull(caller, "caller");
        return new Partition(caller.tenant(), caller.user());
    }

    /**
     * Runs {@code f} on the caller's live state under the partition's lock, after catching up on
     * what other writers appended (see {@link #follow}).
     */
    <T> T read(Caller caller, Function<PartitionState, T> f) {
        Partition partition = partition(caller);
        Handle h = handle(partition);
        h.lock.lock();
        try {
            if (shared && !h.state.changing()) {
                h.state.begin();
                try {
                    follow(partition, h, false);
                    catchUp(partition, h);
                    settle(partition, h);
                } finally {
                    undo(h); // no-op once settled
                }
            }
            return f.apply(h.state);
        } finally {
            h.lock.unlock();
        }
    }

    /** Catches the caller's live state up with the store now; returns its last sequence. */
    long sync(Caller caller) {
        return read(caller, PartitionState::lastSeq);
    }

    /**
     * Runs {@code work} after catching the caller's state up once: the calls it makes on this
     * thread for that user skip the head check (they see the state as of the start, plus what
     * this thread writes; a write that races another writer still reads its events and is made
     * again). For a read made of many engine calls, such as a retrieval.
     */
    <T> T consistently(Caller caller, java.util.function.Supplier<T> work) {
        Partition partition = partition(caller);
        Set<Partition> mine = checkedOnce.get();
        if (!shared || mine.contains(partition)) {
            return work.get();
        }
        sync(caller);
        mine.add(partition);
        try {
            return work.get();
        } finally {
            mine.remove(partition);
        }
    }

    /**
     * Runs {@code work} as part of a unit whose check this thread already made (see
     * {@link MemoryEngine.Admin#continuing}): its calls for that user skip the head check, and so
     * does its start. A write that races another writer is still refused by the store's append
     * and made again on the tail it then reads.
     */
    <T> T continuing(Caller caller, java.util.function.Supplier<T> work) {
        Partition partition = partition(caller);
        Set<Partition> mine = checkedOnce.get();
        if (!shared || !mine.add(partition)) {
            return work.get();
        }
        try {
            return work.get();
        } finally {
            mine.remove(partition);
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
        return underLock(partition, h, owner -> writeOnce(partition, h, caller, work, owner));
    }

    /**
     * Runs one attempt of a call under the partition's lock. A call nested in another call on
     * this partition runs once, as part of the enclosing one; an outermost call whose append
     * lost the race to another writer ({@link AppendRaced}: nothing of it was stored or told) is
     * made again on the fresh state, up to {@link #WRITE_ATTEMPTS} times with a random back-off.
     */
    private <T> T underLock(Partition partition, Handle h, Function<Boolean, T> attempt) {
        h.lock.lock();
        try {
            boolean owner = !h.state.changing(); // false in a call nested in another call on this partition
            if (!owner) {
                return attempt.apply(false);
            }
            for (int n = 1; ; n++) {
                try {
                    return attempt.apply(true);
                } catch (AppendRaced raced) {
                    // rolled back; the next attempt reads the other writer's events and decides again
                    if (n >= WRITE_ATTEMPTS) {
                        throw racedTooOften(partition, raced);
                    }
                    backOff(n);
                }
            }
        } finally {
            h.lock.unlock();
        }
    }

    private static StaleVersionException racedTooOften(Partition partition, AppendRaced raced) {
        return new StaleVersionException("write to " + partition + " not applied: other writers kept"
                + " appending to it first (" + WRITE_ATTEMPTS + " attempts): " + raced.getMessage());
    }

    /** A write's own append refused because another writer appended first: made again on the fresh state. */
    private static final class AppendRaced extends RuntimeException {
        AppendRaced(StaleVersionException cause) {
            super(cause.getMessage(), cause, false, false);
        }
    }

    /** Sleeps a random 1 to 2^attempt milliseconds (at most 128), so racing writers spread out. */
    private static void backOff(int attempt) {
        long bound = 1L << Math.min(attempt, 7);
        try {
            Thread.sleep(1 + java.util.concurrent.ThreadLocalRandom.current().nextLong(bound));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MemoryException("interrupted while retrying a write", e);
        }
    }

    /** One attempt of {@link #write}; throws {@link AppendRaced} when an owner's append lost the race. */
    private <T> T writeOnce(Partition partition, Handle h, Caller caller, Work<T> work, boolean owner) {
        try {
            if (owner) {
                h.state.begin();
                follow(partition, h, true);
            }
            catchUp(partition, h);
            Tx tx = new Tx(caller);
            T result = work.run(h.state, tx);
            if (!tx.events.isEmpty()) {
                try {
                    append(partition, h, tx);
                } catch (StaleVersionException e) {
                    if (owner && shared) {
                        throw new AppendRaced(e);
                    }
                    throw e;
                }
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
                tellDerived(partition, tx.events, Map.of(), false);
            }
            return result;
        } finally {
            if (owner) {
                undo(h); // no-op once settled
            }
        }
    }

    /**
     * Runs {@code f} with the caller's partition held under its lock (see {@link Held}); changes
     * it added but did not commit are rolled back when it returns or throws.
     */
    <T> T exclusive(Caller caller, Function<Held, T> f) {
        Partition partition = partition(caller);
        Handle h = handle(partition);
        return underLock(partition, h, owner -> exclusiveOnce(partition, h, caller, f, owner));
    }

    /** One attempt of {@link #exclusive}; throws {@link AppendRaced} when its first commit lost the race. */
    private <T> T exclusiveOnce(Partition partition, Handle h, Caller caller, Function<Held, T> f, boolean owner) {
        try {
            if (owner) {
                h.state.begin();
                follow(partition, h, true);
            }
            catchUp(partition, h);
            Held held = new Held(partition, h, caller, owner);
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
        applyFollowed(h, store.read(partition, h.state.lastSeq()).stream().map(codec::decode).toList());
    }

    /**
     * Applies events other writers stored (or a failed append's, kept after all) to the live
     * state in the call's open change; {@link #settle} announces them once the call succeeds.
     */
    private static void applyFollowed(Handle h, List<LoggedEvent> tail) {
        Map<String, MemoryValue> erased = new java.util.HashMap<>(h.caughtUpForgotten);
        for (LoggedEvent e : tail) {
            if (e.change() instanceof Change.RecordsForgotten f && f.erased()) {
                for (String id : f.ids()) {
                    MemoryRecord r = h.state.record(id);
                    if (r != null && r.value() != null && r.kind() != Kind.REFERENCE) {
                        erased.put(id, r.value());
                    }
                }
            }
            h.state.apply(e);
        }
        List<LoggedEvent> all = new ArrayList<>(h.caughtUp == null ? List.of() : h.caughtUp);
        all.addAll(tail);
        h.caughtUp = all;
        h.caughtUpForgotten = erased;
    }

    /**
     * When other writers may append to the store, reads the partition's stored last sequence
     * (one indexed query) at the start of a call; when the store is ahead of the live state the
     * call's {@link #catchUp} reads and applies the missing tail, so a write acknowledged by
     * another instance is seen by this instance's next call. A store whose log is behind the live
     * state (restored from an older backup) is loaded again. A store that cannot be read fails the
     * call: no answer is given from a state that may be stale.
     */
    private void follow(Partition partition, Handle h, boolean writing) {
        if (!shared || h.tailUnknown) {
            return; // the call reads the tail anyway
        }
        if (checkedOnce.get().contains(partition)) {
            return; // checked at the start of the work this call is part of
        }
        long head;
        try {
            head = store.lastSequence(partition);
        } catch (RuntimeException e) {
            throw headUnreadable(partition, e, writing);
        }
        if (head > h.state.lastSeq()) {
            h.tailUnknown = true;
        } else if (head < h.state.lastSeq()) {
            LOG.log(System.Logger.Level.WARNING, "store " + store + " holds " + head + " events of " + partition
                    + ", fewer than the " + h.state.lastSeq() + " this engine applied (restored from a backup?): loading it again");
            h.state.rollback();
            h.state = load(partition);
            h.state.begin();
        }
    }

    /**
     * The error of a call whose check of the stored head failed: the store's own error (it names
     * the store, the user and the reason), for a write led by saying that it was not applied.
     */
    private RuntimeException headUnreadable(Partition partition, RuntimeException e, boolean writing) {
        String text = e.getMessage() == null ? "store " + store + ": cannot read " + partition : e.getMessage();
        String first = firstCause(e);
        if (!text.contains(first)) {
            text += " (" + first + ")";
        }
        if (!writing && e instanceof MemoryException m && text.equals(e.getMessage())) {
            return m;
        }
        return new MemoryException((writing ? "write to " + partition + " not applied: " : "") + text, e);
    }

    private static String firstCause(Throwable e) {
        Throwable first = e;
        while (first.getCause() != null && first.getCause() != first) {
            first = first.getCause();
        }
        return first.getMessage() == null ? first.getClass().getName() : first.getMessage();
    }

    /** Keeps the open change of a call that succeeded, and announces what {@link #catchUp} found. */
    private void settle(Partition partition, Handle h) {
        h.state.keep();
        List<LoggedEvent> tail = h.caughtUp;
        if (tail != null) {
            Map<String, MemoryValue> erased = h.caughtUpForgotten;
            h.caughtUp = null;
            h.caughtUpForgotten = Map.of();
            h.tailUnknown = false;
            if (!tail.isEmpty()) {
                // another writer's events (or a failed append's that was kept after all): the
                // listeners and derived data hear of them as if committed here; snapshots are
                // left to the writer that committed them
                tellFollowed(partition, tail);
                tellDerived(partition, tail, erased, true);
            }
        }
    }

    /** Rolls back the open change of a call that failed (no-op once settled). */
    private static void undo(Handle h) {
        h.state.rollback();
        h.caughtUp = null;
        h.caughtUpForgotten = Map.of();
    }

    /** The caller's stored log, decoded, in sequence order (read without the lock). */
    List<LoggedEvent> log(Caller caller) {
        return log(partition(caller));
    }

    private List<LoggedEvent> log(Partition partition) {
        return store.read(partition, 0).stream().map(codec::decode).toList();
    }

    /** The caller's stored events after {@code afterSeq}, decoded, in sequence order (read without the lock). */
    List<LoggedEvent> log(Caller caller, long afterSeq) {
        return store.read(partition(caller), afterSeq).stream().map(codec::decode).toList();
    }

    /** When the caller's stored event {@code seq} was appended (not decoded); empty when there is none (read without the lock). */
    Optional<Instant> appendedAt(Caller caller, long seq) {
        List<StoredEvent> events = store.read(partition(caller), seq - 1);
        return events.isEmpty() || events.get(0).seq() != seq ? Optional.empty() : Optional.of(events.get(0).at());
    }

    List<Partition> partitions(String tenant) {
        return store.partitions(tenant);
    }

    /**
     * Whether vectors are kept in the store: when it can, and payloads are not sealed (a vector
     * stored in the clear would tell about a text the log keeps encrypted).
     */
    boolean keepsVectors() {
        return store.keepsVectors() && !codec.seals();
    }

    Map<String, StoredVector> vectors(Caller caller, VectorModel model, Collection<String> items) {
        return keepsVectors() ? store.vectors(partition(caller), model, items) : Map.of();
    }

    void saveVectors(Caller caller, VectorModel model, List<StoredVector> vectors) {
        if (keepsVectors() && !vectors.isEmpty()) {
            store.saveVectors(partition(caller), model, vectors);
        }
    }

    /** Deletes stored vectors of {@code items}, or all of the user's when {@code items} is null. */
    void deleteVectors(Partition partition, @Nullable Collection<String> items) {
        if (!store.keepsVectors()) {
            return;
        }
        if (items == null) {
            store.deleteAllVectors(partition);
        } else if (!items.isEmpty()) {
            store.deleteVectors(partition, items);
        }
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

    /** The partitions whose state is cached now. */
    List<Partition> held() {
        return List.copyOf(partitions.keySet());
    }

    /** Drops every cached state; the next call for a user reloads it from the store. */
    void invalidate() {
        partitions.clear();
    }

    /**
     * Snapshots each cached partition that {@link Snapshots#dueAtClose} picks, then closes the
     * store. A partition busy in a call on another thread (its lock taken) or whose stored tail is
     * unknown is skipped; the store keeps a snapshot only while the log still ends at its
     * sequence, so another instance's later writes win. A failing snapshot never fails the close
     * (one warning for all of them): the log is intact, the next load replays more of it.
     */
    void close() {
        if (closed.compareAndSet(false, true)) {
            try {
                snapshotAtClose();
            } finally {
                store.close();
            }
        }
    }

    private void snapshotAtClose() {
        int failed = 0;
        int tried = 0;
        RuntimeException first = null;
        Partition firstPartition = null;
        for (Map.Entry<Partition, Handle> e : partitions.entrySet()) {
            Handle h = e.getValue();
            if (!h.lock.tryLock()) {
                continue;
            }
            try {
                if (h.state.changing() || h.tailUnknown || !snapshots.dueAtClose(e.getKey(), h.state)) {
                    continue;
                }
                tried++;
                if (!shared || store.lastSequence(e.getKey()) == h.state.lastSeq()) {
                    // on a shared store, a state behind the log would be refused: not worth encoding
                    snapshots.saveNow(e.getKey(), h.state);
                }
            } catch (RuntimeException ex) {
                failed++;
                if (first == null) {
                    first = ex;
                    firstPartition = e.getKey();
                }
            } finally {
                h.lock.unlock();
            }
        }
        if (first != null) {
            LOG.log(System.Logger.Level.WARNING, "snapshots at close failed for " + failed + " of " + tried
                    + " users (the first: " + firstPartition + "); the log is intact, their next load replays more"
                    + " of it", first);
        }
    }

    /** What the store reports about itself to every audit ({@link EventStore#auditFindings()}). */
    List<String> storeFindings() {
        return store.auditFindings();
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
        tell(partition, committed);
        snapshots.committed(partition, h.state, committed);
    }

    /** Tells the listeners about events now stored. */
    /** Tells the listeners about events another writer stored, which this engine caught up on. */
    private void tellFollowed(Partition partition, List<LoggedEvent> followed) {
        for (EventListener l : listeners) {
            try {
                l.followed(partition, followed);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "event listener " + l + " failed on " + partition, e);
            }
        }
    }

    private void tell(Partition partition, List<LoggedEvent> committed) {
        for (EventListener l : listeners) {
            try {
                l.committed(partition, committed);
            } catch (RuntimeException e) {
                // The events are durable; a listener that fails must not make the caller think otherwise.
                LOG.log(System.Logger.Level.WARNING, "event listener " + l + " failed on " + partition, e);
            }
        }
    }

    /**
     * The error of a failed append as the caller sees it: says that the write was not applied,
     * names the store and what failed first (the deepest cause: no space left on the device, a
     * lost connection), and keeps the store's exception as its cause. A store's own
     * {@link MemoryException} that already says all that is passed on as it is.
     */
    private RuntimeException appendFailed(Partition partition, RuntimeException e) {
        String firstText = firstCause(e);
        String storeName = String.valueOf(store);
        String text = e.getMessage() == null ? "" : e.getMessage();
        if (e instanceof MemoryException m && text.contains(firstText) && text.contains(storeName)) {
            return m;
        }
        return new MemoryException("write to " + partition + " not applied: the append to store " + storeName
                + " failed: " + firstText + (e.getCause() == null ? "" : " (" + e.getClass().getSimpleName() + ": " + text + ")"), e);
    }

    /**
     * Tells derived data about what {@code events} forgot: records a write forgot on its way (an
     * invalidation, the record limit), and, in events another writer committed, whole forgets
     * (records, messages, redactions, the user), so that those reach every derived copy in this
     * process too. One request per call that made them (events of one call share a trace id);
     * {@code erased} holds the values of erased records, for derived text that states them. A
     * hard forget that removed anything here is also compacted out of the derived data.
     */
    private void tellDerived(Partition partition, List<LoggedEvent> events, Map<String, MemoryValue> erased,
                             boolean followed) {
        Map<String, List<LoggedEvent>> byCall = new java.util.LinkedHashMap<>();
        for (LoggedEvent e : events) {
            if (forgets(e.change())) {
                byCall.computeIfAbsent(e.traceId(), k -> new ArrayList<>()).add(e);
            }
        }
        for (List<LoggedEvent> call : byCall.values()) {
            ForgetRequest request = forgetRequest(partition, call, erased, followed);
            int removed = 0;
            for (DerivedData d : derived) {
                removed += d.forget(request);
            }
            if (request.hard() && removed > 0) {
                for (DerivedData d : derived) {
                    d.compact();
                }
            }
        }
    }

    private static boolean forgets(Change c) {
        return c instanceof Change.RecordsForgotten || c instanceof Change.MessagesForgotten
                || c instanceof Change.MessagesRedacted || c instanceof Change.UserForgotten;
    }

    /** The forget request the events of one call amount to (see {@link Forgetter}'s). */
    private static ForgetRequest forgetRequest(Partition partition, List<LoggedEvent> call, Map<String, MemoryValue> erased,
                                               boolean followed) {
        Set<String> ids = new LinkedHashSet<>();
        Map<String, List<Long>> messages = new java.util.LinkedHashMap<>();
        Map<String, List<Long>> redacted = new java.util.LinkedHashMap<>();
        List<MemoryValue> values = new ArrayList<>();
        boolean wholeUser = false;
        boolean hard = false;
        for (LoggedEvent e : call) {
            Change c = e.change();
            if (c instanceof Change.RecordsForgotten f) {
                ids.addAll(f.ids());
                hard |= f.hard();
                for (String id : f.ids()) {
                    MemoryValue v = erased.get(id);
                    if (v != null) {
                        values.add(v);
                    }
                }
            } else if (c instanceof Change.MessagesForgotten f) {
                messages.computeIfAbsent(f.session(), k -> new ArrayList<>()).addAll(f.indices());
                hard |= f.hard();
            } else if (c instanceof Change.MessagesRedacted r) {
                redacted.computeIfAbsent(r.session(), k -> new ArrayList<>())
                        .addAll(r.messages().stream().map(m -> m.index()).toList());
                hard |= r.hard();
            } else if (c instanceof Change.UserForgotten u) {
                wholeUser = true;
                hard |= u.hard();
            }
        }
        return new ForgetRequest(partition, ids, messages, wholeUser, hard, redacted, StatedValues.of(values), followed);
    }
}

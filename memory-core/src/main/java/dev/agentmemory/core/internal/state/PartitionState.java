package dev.agentmemory.core.internal.state;

import dev.agentmemory.core.event.Change;
import dev.agentmemory.core.event.LoggedEvent;
import dev.agentmemory.core.event.StoredMessage;
import dev.agentmemory.core.TaskInfo;

import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.Scope;
import dev.agentmemory.core.MemoryRecord.Status;
import dev.agentmemory.core.MemoryRecord.Verification;
import dev.agentmemory.core.ledger.ActionRecord;
import org.jspecify.annotations.Nullable;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NavigableSet;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The state of one user's memory that a log replays to. {@link #apply} is the only way it
 * changes, so the engine's live state and a fresh replay of the stored log are the same by
 * construction, and {@link #equals} compares them. Not thread-safe: the engine's partition
 * runtime guards it. Internal: users see a replay through the read-only
 * {@link dev.agentmemory.core.internal.state.MemoryState}.
 */
public final class PartitionState {

    private final Map<String, MemoryRecord> records;
    private final Map<Scope, Map<MemoryKey, List<String>>> versions = new LinkedHashMap<>();
    private final Map<String, Map<String, TaskInfo>> tasks = new TreeMap<>();
    private final Map<String, NavigableSet<String>> aliases = new TreeMap<>();
    /** Not final: a restore sizes it when it knows how many entries come ({@link Restoring#actions}). */
    private Map<String, ActionRecord> actions;
    private final Map<String, NavigableMap<Long, StoredMessage>> messages = new TreeMap<>();
    private final Map<String, NavigableSet<Long>> windows = new TreeMap<>();
    /**
     * The same windows in window order (order, then index), kept in step with {@link #windows}
     * as events apply, so that reading a window never sorts. Derived from {@code windows} and
     * {@code messages}, hence not part of {@link #equals}.
     */
    private final Map<String, OrderedWindow> ordered = new HashMap<>();
    private static final Comparator<StoredMessage> WINDOW_ORDER =
            Comparator.comparingLong(StoredMessage::order).thenComparingLong(StoredMessage::index);
    /**
     * One instance of each scope and agent name of the records, shared by them: a record decoded
     * from the log or a snapshot brings its own copies (a scope and two agent names, about 240
     * bytes a record). A cache of equal values, not part of {@link #equals}; never undone.
     */
    private final Map<Scope, Scope> scopes = new HashMap<>();
    private final Map<String, String> agents = new HashMap<>();
    private long lastSeq;
    private long liveRecords;
    /** Source of {@link #recordsRevision} values: unique across every state of this JVM. */
    private static final AtomicLong REVISIONS = new AtomicLong();
    private long recordsRevision = REVISIONS.incrementAndGet();
    /**
     * While a change is open ({@link #begin}), how to undo each step {@link #apply} took, last
     * first; null otherwise. Inverses of single map and set operations, so that keeping it costs
     * in proportion to the change, not to the state.
     */
    private @Nullable ArrayDeque<Runnable> undo;
    /** Sessions whose window the open change touched: their {@link #ordered} copy is rebuilt on rollback. */
    private final Set<String> touchedWindows = new HashSet<>();
    private long lastSeqAtBegin;
    private long liveRecordsAtBegin;

    /** An empty state (sequence 0). */
    public PartitionState() {
        this(0);
    }

    /** An empty state whose record map is sized for {@code records} records. */
    private PartitionState(int records) {
        this.records = new LinkedHashMap<>(capacity(records));
        this.actions = new LinkedHashMap<>();
    }

    /** A hash map capacity that holds {@code entries} without resizing. */
    private static int capacity(int entries) {
        return Math.max(16, (int) (entries / 0.75f) + 1);
    }

    /** Replays {@code events} (in sequence order) into a fresh state. */
    public static PartitionState replay(Collection<LoggedEvent> events) {
        PartitionState state = new PartitionState();
        events.forEach(state::apply);
        return state;
    }

    /** This state as plain data, for a snapshot ({@link Restoring} is the inverse). */
    public StateImage image() {
        List<StateImage.Versions> v = new ArrayList<>();
        versions.forEach((scope, keys) -> keys.forEach((key, ids) -> v.add(new StateImage.Versions(scope, key,
                List.copyOf(ids)))));
        Map<String, List<String>> a = new LinkedHashMap<>();
        aliases.forEach((alias, entities) -> a.put(alias, List.copyOf(entities)));
        Set<String> sessionNames = new TreeSet<>(messages.keySet());
        sessionNames.addAll(windows.keySet());
        List<StateImage.Session> sessions = new ArrayList<>();
        for (String session : sessionNames) {
            NavigableMap<Long, StoredMessage> history = messages.get(session);
            NavigableSet<Long> window = windows.get(session);
            sessions.add(new StateImage.Session(session, history == null ? null : List.copyOf(history.values()),
                    window == null ? null : List.copyOf(window)));
        }
        return new StateImage(lastSeq, liveRecords, List.copyOf(records.values()), v, allTasks(), a,
                List.copyOf(actions.values()), sessions);
    }

    /**
     * Builds the state an {@link #image} was taken from, out of the image's parts given one at a
     * time in its order (records, then each scope's keys, tasks, aliases, actions, sessions), so
     * that a snapshot's decoder fills the state's own maps as it reads, with no image in between.
     * The state equals the one the image was taken from, iteration orders included, with a new
     * {@link #recordsRevision}. Single use.
     */
    public static final class Restoring {
        private final PartitionState state;
        /** The keys of the scope {@link #scope} announced last, or null before the first. */
        private @Nullable Map<MemoryKey, List<String>> keys;
        private @Nullable Scope lastScope;
        private @Nullable String lastOwner;
        private @Nullable String lastWriter;

        /** A state at {@code lastSeq} counting {@code liveRecords}, sized for {@code records} records. */
        public Restoring(long lastSeq, long liveRecords, int records) {
            state = new PartitionState(records);
            state.lastSeq = lastSeq;
            state.liveRecords = liveRecords;
        }

        /** The next record, in write order. */
        public void record(MemoryRecord r) {
            // records mostly share their scope and agent instances already (the snapshot codec keeps one of
            // each): register each distinct instance once instead of looking every record up
            MemoryRecord kept = r.scope() == lastScope && r.ownerAgent() == lastOwner && r.writerAgent() == lastWriter
                    ? r : state.shared(r);
            state.records.put(kept.id(), kept);
            lastScope = kept.scope();
            lastOwner = kept.ownerAgent();
            lastWriter = kept.writerAgent();
        }

        /**
         * Starts the keys of {@code scope}: the next {@code count} calls of {@link #key} are its
         * keys (a scope's keys come together, after every record).
         */
        public void scope(Scope scope, int count) {
            keys = state.versions.computeIfAbsent(state.scopes.computeIfAbsent(scope, k -> k),
                    k -> new LinkedHashMap<>(capacity(count)));
        }

        /**
         * The next key of the current scope with its versions' ids, oldest first: {@code ids}
         * becomes the state's own (a fresh list nothing else holds).
         */
        public void key(MemoryKey key, ArrayList<String> ids) {
            Objects.requireNonNull(keys, "no scope started").put(key, ids);
        }

        /** The next task, by starting session, then start order. */
        public void task(TaskInfo t) {
            state.tasks.computeIfAbsent(t.session(), k -> new LinkedHashMap<>()).put(t.task(), t);
        }

        /** The next alias with its entities. */
        public void alias(String alias, Collection<String> entities) {
            state.aliases.put(alias, new TreeSet<>(entities));
        }

        /** Sizes the ledger for {@code count} entries, before the first {@link #action}. */
        public void actions(int count) {
            if (state.actions.isEmpty()) {
                state.actions = new LinkedHashMap<>(capacity(count));
            }
        }

        /** The next ledger entry, in the order they were logged. */
        public void action(ActionRecord r) {
            state.actions.put(r.operationId(), r);
        }

        /** The next session with its message history and window ({@link StateImage.Session}). */
        public void session(String session, @Nullable List<StoredMessage> messages, @Nullable List<Long> window) {
            NavigableMap<Long, StoredMessage> history = new TreeMap<>();
            if (messages != null) {
                messages.forEach(m -> history.put(m.index(), m));
                state.messages.put(session, history);
            }
            if (window != null) {
                NavigableSet<Long> inWindow = new TreeSet<>(window);
                state.windows.put(session, inWindow);
                OrderedWindow inOrder = new OrderedWindow();
                for (Long i : inWindow) {
                    StoredMessage m = history.get(i);
                    if (m != null) {
                        inOrder.add(m);
                    }
                }
                state.ordered.put(session, inOrder);
            }
        }

        /** The state built (with a new {@link #recordsRevision}). */
        public PartitionState state() {
            return state;
        }
    }

    /**
     * Opens a change: from here {@link #apply} also records how to undo each step, until
     * {@link #keep} (the change stays) or {@link #rollback} (the state is again exactly what it
     * was at this call, iteration orders included). One change at a time.
     *
     * @throws IllegalStateException when a change is already open
     */
    public void begin() {
        if (undo != null) {
            throw new IllegalStateException("a change is already open on " + this);
        }
        undo = new ArrayDeque<>();
        touchedWindows.clear();
        lastSeqAtBegin = lastSeq;
        liveRecordsAtBegin = liveRecords;
    }

    /** Whether a change is open. */
    public boolean changing() {
        return undo != null;
    }

    /** Closes the open change, keeping what it applied (no-op when none is open). */
    public void keep() {
        undo = null;
        touchedWindows.clear();
    }

    /**
     * Undoes every event applied since {@link #begin} and closes the change (no-op when none is
     * open). The records revision moves to a new value, as on a reload, so nothing derived from
     * the undone events is reused.
     */
    public void rollback() {
        ArrayDeque<Runnable> steps = undo;
        if (steps == null) {
            return;
        }
        undo = null;
        while (!steps.isEmpty()) {
            steps.pop().run();
        }
        lastSeq = lastSeqAtBegin;
        liveRecords = liveRecordsAtBegin;
        recordsRevision = REVISIONS.incrementAndGet();
        for (String session : touchedWindows) {
            rebuildOrdered(session);
        }
        touchedWindows.clear();
    }

    /** Records how to undo a step, when a change is open. */
    private void onUndo(Runnable step) {
        if (undo != null) {
            undo.push(step);
        }
    }

    private void touchWindow(String session) {
        if (undo != null) {
            touchedWindows.add(session);
        }
    }

    /** {@code map.put(k, v)}, undoably. */
    private <K, V> @Nullable V put(Map<K, V> map, K k, V v) {
        boolean had = map.containsKey(k);
        V before = map.put(k, v);
        if (undo != null) {
            undo.push(had ? () -> map.put(k, before) : () -> map.remove(k));
        }
        return before;
    }

    /** {@code map.computeIfAbsent(k, f)}, undoably. */
    private <K, V> V child(Map<K, V> map, K k, java.util.function.Function<K, V> f) {
        V v = map.get(k);
        if (v == null) {
            v = f.apply(k);
            map.put(k, v);
            onUndo(() -> map.remove(k));
        }
        return v;
    }

    /** {@code set.add(e)}, undoably. */
    private <E> boolean add(Set<E> set, E e) {
        boolean added = set.add(e);
        if (added) {
            onUndo(() -> set.remove(e));
        }
        return added;
    }

    /** {@code set.remove(e)}, undoably. */
    private <E> boolean remove(Set<E> set, E e) {
        boolean removed = set.remove(e);
        if (removed) {
            onUndo(() -> set.add(e));
        }
        return removed;
    }

    /** Remembers a whole map's contents, to be put back on rollback (for the rare events that rewrite all of it). */
    private <K, V> void saveAll(Map<K, V> map) {
        if (undo != null) {
            Map<K, V> copy = new LinkedHashMap<>(map);
            undo.push(() -> {
                map.clear();
                map.putAll(copy);
            });
        }
    }

    /** The window's messages in window order, again from the window and the history. */
    private void rebuildOrdered(String session) {
        ordered.remove(session);
        NavigableSet<Long> window = windows.get(session);
        NavigableMap<Long, StoredMessage> history = messages.get(session);
        if (window == null || history == null) {
            return;
        }
        OrderedWindow inOrder = new OrderedWindow();
        for (Long i : window) {
            StoredMessage m = history.get(i);
            if (m != null) {
                inOrder.add(m);
            }
        }
        ordered.put(session, inOrder);
    }

    /** Applies one event; events must come in sequence order. */
    public void apply(LoggedEvent event) {
        Objects.requireNonNull(event, "event");
        if (event.seq() != lastSeq + 1) {
            throw new IllegalStateException("event " + event.seq() + " does not follow " + lastSeq);
        }
        lastSeq = event.seq();
        Change c = event.change();
        if (!(c instanceof Change.MessagesAppended || c instanceof Change.MessagesEvicted
                || c instanceof Change.ActionIntended || c instanceof Change.ActionCompleted)) {
            recordsRevision = REVISIONS.incrementAndGet();
        }
        if (c instanceof Change.RecordWritten w) {
            for (String id : w.superseded()) {
                update(id, r -> r.status() == Status.FORGOTTEN ? r : r.status(Status.SUPERSEDED));
            }
            MemoryRecord r = shared(w.record());
            MemoryRecord before = put(records, r.id(), r);
            if (before == null && r.status() != Status.FORGOTTEN) {
                liveRecords++;
            }
            List<String> ids = child(child(versions, r.scope(), s -> new LinkedHashMap<>()), r.key(), k -> new ArrayList<>());
            ids.add(r.id());
            onUndo(() -> ids.remove(ids.size() - 1));
        } else if (c instanceof Change.RecordsExpired e) {
            e.ids().forEach(id -> update(id, r -> r.status() == Status.ACTIVE ? r.status(Status.EXPIRED) : r));
        } else if (c instanceof Change.RecordsForgotten f) {
            f.ids().forEach(id -> update(id, MemoryRecord::tombstone));
        } else if (c instanceof Change.RecordVerified v) {
            MemoryRecord before = records.get(v.id());
            update(v.id(), r -> r.verified(v.verification(), v.evidence()));
            if (before != null) {
                settleVerdict(before, v.verification());
            }
        } else if (c instanceof Change.RecordsArchived a) {
            a.ids().forEach(id -> update(id, r -> r.archived(true)));
        } else if (c instanceof Change.TaskChanged t) {
            Map<String, TaskInfo> started = child(tasks, t.session(), s -> new LinkedHashMap<>());
            TaskInfo old = started.get(t.task());
            put(started, t.task(), old == null ? new TaskInfo(t.session(), t.task(), t.title(), t.status(), event.at())
                    : new TaskInfo(old.session(), old.task(), t.title() != null ? t.title() : old.title(), t.status(),
                            event.at(), old.heldBy()));
        } else if (c instanceof Change.TaskMoved m) {
            Map<String, TaskInfo> started = tasks.get(m.session());
            TaskInfo old = started == null ? null : started.get(m.task());
            if (started != null && old != null) {
                put(started, m.task(), new TaskInfo(old.session(), old.task(), old.title(), old.status(), event.at(), m.to()));
            }
        } else if (c instanceof Change.AliasRegistered a) {
            add(child(aliases, a.alias(), k -> new TreeSet<>()), a.entity());
        } else if (c instanceof Change.ActionIntended i) {
            if (!actions.containsKey(i.operationId())) {
                put(actions, i.operationId(),
                        new ActionRecord(i.operationId(), i.action(), i.params(), event.at(), null, null, null));
            }
        } else if (c instanceof Change.ActionCompleted done) {
            ActionRecord r = actions.get(done.operationId());
            if (r != null) {
                put(actions, r.operationId(), new ActionRecord(r.operationId(), r.action(), r.params(), r.intendedAt(),
                        done.outcome(), done.success(), event.at()));
            }
        } else if (c instanceof Change.MessagesAppended m) {
            touchWindow(m.session());
            NavigableMap<Long, StoredMessage> history = child(messages, m.session(), s -> new TreeMap<>());
            NavigableSet<Long> window = child(windows, m.session(), s -> new TreeSet<>());
            OrderedWindow inOrder = ordered.computeIfAbsent(m.session(), s -> new OrderedWindow());
            for (StoredMessage msg : m.messages()) {
                StoredMessage before = put(history, msg.index(), msg);
                if (before != null && window.contains(before.index())) {
                    inOrder.remove(before);
                }
                add(window, msg.index());
                inOrder.add(msg);
            }
        } else if (c instanceof Change.MessagesEvicted e) {
            leaveWindow(e.session(), e.indices());
        } else if (c instanceof Change.MessagesForgotten f) {
            leaveWindow(f.session(), f.indices());
            NavigableMap<Long, StoredMessage> history = messages.get(f.session());
            if (history != null) {
                for (Long i : f.indices()) {
                    StoredMessage m = history.get(i);
                    if (m != null) {
                        put(history, i, m.tombstone());
                    }
                }
            }
        } else if (c instanceof Change.MessagesRedacted r) {
            touchWindow(r.session());
            NavigableMap<Long, StoredMessage> history = messages.get(r.session());
            NavigableSet<Long> window = windows.get(r.session());
            OrderedWindow inOrder = ordered.get(r.session());
            for (StoredMessage msg : r.messages()) {
                StoredMessage before = history == null ? null : history.get(msg.index());
                if (history == null || before == null || before.forgotten()) {
                    continue;
                }
                StoredMessage replacement = new StoredMessage(before.index(), before.order(), before.type(),
                        msg.json(), msg.text());
                put(history, before.index(), replacement);
                if (window != null && window.contains(before.index()) && inOrder != null) {
                    inOrder.add(replacement);
                }
            }
        } else if (c instanceof Change.UserForgotten) {
            if (undo != null) {
                touchedWindows.addAll(ordered.keySet());
                touchedWindows.addAll(windows.keySet());
                saveAll(records);
                saveAll(tasks);
                saveAll(aliases);
                messages.values().forEach(this::saveAll);
                saveAll(windows);
            }
            ordered.clear();
            records.replaceAll((id, r) -> r.tombstone());
            liveRecords = 0;
            tasks.clear();
            aliases.clear();
            messages.values().forEach(h -> h.replaceAll((i, m) -> m.tombstone()));
            windows.clear();
        }
    }

    private void leaveWindow(String session, Collection<Long> indices) {
        NavigableSet<Long> window = windows.get(session);
        if (window == null) {
            return;
        }
        touchWindow(session);
        OrderedWindow inOrder = ordered.get(session);
        NavigableMap<Long, StoredMessage> history = messages.get(session);
        List<StoredMessage> leaving = new ArrayList<>(indices.size());
        for (Long i : indices) {
            if (remove(window, i) && history != null) {
                StoredMessage m = history.get(i);
                if (m != null) {
                    leaving.add(m);
                }
            }
        }
        if (inOrder != null) {
            inOrder.removeAll(leaving);
        }
    }

    /**
     * A window's messages sorted by (order, index) in an array list: appending at the end and
     * evicting from the front, what chat windows do, are cheap, and a read is one array copy.
     */
    private static final class OrderedWindow {
        private final ArrayList<StoredMessage> list = new ArrayList<>();

        private int find(StoredMessage m) {
            return Collections.binarySearch(list, m, WINDOW_ORDER);
        }

        void add(StoredMessage m) {
            int n = list.size();
            if (n == 0 || WINDOW_ORDER.compare(list.get(n - 1), m) < 0) {
                list.add(m);
                return;
            }
            int at = find(m);
            if (at >= 0) {
                list.set(at, m);
            } else {
                list.add(-at - 1, m);
            }
        }

        void remove(StoredMessage m) {
            int at = find(m);
            if (at >= 0) {
                list.remove(at);
            }
        }

        void removeAll(List<StoredMessage> leaving) {
            if (leaving.size() <= 8) {
                leaving.forEach(this::remove);
                return;
            }
            java.util.Set<Long> gone = new java.util.HashSet<>();
            leaving.forEach(m -> gone.add(m.index()));
            list.removeIf(m -> gone.contains(m.index()));
        }

        List<StoredMessage> copy() {
            return new ArrayList<>(list);
        }
    }

    /**
     * What a verdict does to the key's current value, besides marking the record:
     * <ul>
     *   <li>refuting the current version undoes its write: the version it replaced is current
     *       again (unless that one was forgotten or replaced since);</li>
     *   <li>the user confirming a version held in conflict resolves the conflict in its favour: it
     *       becomes the current value and the versions that were current are superseded.</li>
     * </ul>
     * A verifier's verdict on a conflicting version only marks it; the choice stays the user's.
     */
    private void settleVerdict(MemoryRecord before, Verification verdict) {
        if (verdict == Verification.REFUTED && before.status() == Status.ACTIVE && before.supersedes() != null) {
            update(before.supersedes(), r -> r.status() == Status.SUPERSEDED ? r.status(Status.ACTIVE) : r);
        } else if (verdict == Verification.CONFIRMED && before.status() == Status.CONFLICT) {
            for (MemoryRecord r : versions(before.scope(), before.key())) {
                if (!r.id().equals(before.id()) && (r.status() == Status.ACTIVE || r.status() == Status.EXPIRED)) {
                    update(r.id(), x -> x.status(Status.SUPERSEDED));
                }
            }
            update(before.id(), r -> r.status(Status.ACTIVE));
        }
    }

    /** The record with this state's instances of its scope and agent names ({@link #scopes}). */
    private MemoryRecord shared(MemoryRecord r) {
        Scope scope = scopes.computeIfAbsent(r.scope(), k -> k);
        String owner = agents.computeIfAbsent(r.ownerAgent(), k -> k);
        String writer = agents.computeIfAbsent(r.writerAgent(), k -> k);
        if (scope == r.scope() && owner == r.ownerAgent() && writer == r.writerAgent()) {
            return r;
        }
        return new MemoryRecord(r.id(), scope, r.key(), r.value(), r.kind(), r.source(), r.sourceRef(), r.trust(),
                r.confidence(), r.observedAt(), r.validFrom(), r.validTo(), r.expiresAt(), r.status(), r.version(),
                r.supersedes(), r.conflictsWith(), r.access(), owner, writer, r.tags(), r.extraction(),
                r.verification(), r.evidence(), r.sensitive(), r.archived(), r.recordedAt(), r.seq());
    }

    private void update(String id, java.util.function.UnaryOperator<MemoryRecord> f) {
        MemoryRecord r = records.get(id);
        if (r != null) {
            MemoryRecord changed = f.apply(r);
            if (r.status() != Status.FORGOTTEN && changed.status() == Status.FORGOTTEN) {
                liveRecords--;
            }
            put(records, id, changed);
        }
    }

    /** How many records are not forgotten. */
    public long liveRecords() {
        return liveRecords;
    }

    /**
     * A number that changes whenever records, tasks or aliases may have changed (anything but
     * message-window and action-ledger events), and that no other state of this JVM ever had:
     * a reloaded state gets a new one too. Derived data keyed on it can be reused until it moves.
     * Not part of {@link #equals}.
     */
    public long recordsRevision() {
        return recordsRevision;
    }

    /** Sequence number of the last applied event (0 when empty). */
    public long lastSeq() {
        return lastSeq;
    }

    /** A record by id, or null. */
    public @Nullable MemoryRecord record(String id) {
        return records.get(id);
    }

    /** Every record, in write order. */
    public Collection<MemoryRecord> records() {
        return Collections.unmodifiableCollection(records.values());
    }

    /** The scopes that hold records. */
    public Set<Scope> scopes() {
        return Collections.unmodifiableSet(versions.keySet());
    }

    /** The keys of a scope, with their versions' ids in version order. */
    public Map<MemoryKey, List<String>> keys(Scope scope) {
        return Collections.unmodifiableMap(versions.getOrDefault(scope, Map.of()));
    }

    /** The versions of one key in one scope, oldest first. */
    public List<MemoryRecord> versions(Scope scope, MemoryKey key) {
        List<String> ids = versions.getOrDefault(scope, Map.of()).getOrDefault(key, List.of());
        List<MemoryRecord> out = new ArrayList<>(ids.size());
        ids.forEach(id -> out.add(records.get(id)));
        return out;
    }

    /** Tasks started in a session, in the order they were first seen (wherever they are held now). */
    public Collection<TaskInfo> tasks(String session) {
        return Collections.unmodifiableCollection(tasks.getOrDefault(session, Map.of()).values());
    }

    /** The task started in {@code session} as {@code task}, if any. */
    public @Nullable TaskInfo task(String session, String task) {
        return tasks.getOrDefault(session, Map.of()).get(task);
    }

    /** Tasks a session holds now (started there and not moved away, or moved to it), by starting session, then start order. */
    public List<TaskInfo> tasksHeldBy(String session) {
        List<TaskInfo> out = new ArrayList<>();
        tasks.values().forEach(m -> m.values().forEach(t -> {
            if (t.heldBy().equals(session)) {
                out.add(t);
            }
        }));
        return out;
    }

    /** Every task of every session. */
    public List<TaskInfo> allTasks() {
        List<TaskInfo> out = new ArrayList<>();
        tasks.values().forEach(m -> out.addAll(m.values()));
        return out;
    }

    /** The entities an alias names. */
    public Set<String> entitiesFor(String alias) {
        return Collections.unmodifiableSet(aliases.getOrDefault(alias, Collections.emptyNavigableSet()));
    }

    /** Every alias with its entities. */
    public Map<String, NavigableSet<String>> aliases() {
        return Collections.unmodifiableMap(aliases);
    }

    /** A ledger entry, or null. */
    public @Nullable ActionRecord action(String operationId) {
        return actions.get(operationId);
    }

    /** Every ledger entry. */
    public Collection<ActionRecord> actions() {
        return Collections.unmodifiableCollection(actions.values());
    }

    /** Sessions that have messages. */
    public Set<String> messageSessions() {
        return Collections.unmodifiableSet(messages.keySet());
    }

    /** A session's full message history by index. */
    public NavigableMap<Long, StoredMessage> history(String session) {
        return Collections.unmodifiableNavigableMap(messages.getOrDefault(session, Collections.emptyNavigableMap()));
    }

    /** The messages in a session's window, in window order. */
    public List<StoredMessage> window(String session) {
        OrderedWindow inOrder = ordered.get(session);
        return inOrder == null ? new ArrayList<>() : inOrder.copy();
    }


    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof PartitionState s)) {
            return false;
        }
        return lastSeq == s.lastSeq && records.equals(s.records) && versions.equals(s.versions)
                && tasks.equals(s.tasks) && aliases.equals(s.aliases) && actions.equals(s.actions)
                && messages.equals(s.messages) && windows.equals(s.windows);
    }

    @Override
    public int hashCode() {
        return Objects.hash(lastSeq, records.size(), messages.size());
    }

    @Override
    public String toString() {
        return "MemoryState{seq=" + lastSeq + ", records=" + records.size() + ", tasks=" + tasks.size()
                + ", sessions with messages=" + messages.size() + "}";
    }
}

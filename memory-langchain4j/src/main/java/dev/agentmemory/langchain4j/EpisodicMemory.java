package dev.agentmemory.langchain4j;

import dev.agentmemory.langchain4j.internal.EnumText;
import dev.agentmemory.core.Caller;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.MemoryRecord.Status;
import dev.agentmemory.core.event.Change;
import dev.agentmemory.core.event.LoggedEvent;
import dev.agentmemory.core.event.StoredMessage;
import dev.agentmemory.core.spi.DerivedData;
import dev.agentmemory.core.internal.hooks.EventListener;
import dev.agentmemory.core.spi.DerivedData.ForgetRequest;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.core.spi.StoredVector;
import dev.agentmemory.core.spi.VectorModel;
import dev.agentmemory.langchain4j.recall.HybridIndex;
import dev.agentmemory.langchain4j.recall.IndexedItem;
import dev.agentmemory.langchain4j.recall.RecallHit;
import dev.agentmemory.langchain4j.recall.RecallQuery;
import dev.agentmemory.langchain4j.tools.Summarizer;
import dev.langchain4j.data.document.Metadata;
import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.rag.content.Content;
import dev.langchain4j.rag.content.ContentMetadata;
import org.jspecify.annotations.Nullable;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The episodic layer: every user and AI message and every record value is embedded once, when
 * it is committed (this is an {@link EventListener} of the engine), and kept in a
 * {@link HybridIndex} partitioned by tenant and user. Superseded, archived and forgotten records
 * and forgotten messages leave the index (this is also a {@link DerivedData}, so a forget
 * reports what went). Only the query is embedded at read time, and a user message that was a
 * recall's query is not embedded again when it is indexed (its vector comes from a small cache
 * of recent query vectors, {@link RecentVectors}).
 *
 * <p><b>The tail.</b> A commit puts what it adds in a small in-memory tail of its user and
 * returns; a background thread embeds the tail and moves it into the index. Removals
 * (supersession, archive, forget) take effect at once, in the tail and in the index, under one
 * lock with those moves, so a removed item is never written afterwards. A recall never waits for
 * the background thread: it writes its user's tail items whose vectors are known into the index
 * and embeds, itself, those it lacks that could be results (not in the session's window, e.g. a
 * message that just left it), so what it scores is indexed and scored like everything else. The
 * items it may leave in the tail are the ones in the window, which are never recalled.
 *
 * <p>After a restart, the first recall for a user brings the index in step with that user's log:
 * items missing from the index are added (their vectors loaded from the store, or embedded),
 * forgotten ones are removed. An index kept in a directory (next to an H2 file) commits, on
 * close, the last event of each user's log it reflects; the next process reads only the events
 * from there on (and the whole log when the store does not hold that event as it was).
 *
 * <p>Several instances over one shared store each keep an index of their own. Before it answers,
 * a recall asks the engine to catch up with the store ({@code admin().sync}): the engine tells
 * this listener about the other instances' events (and its derived data about their forgets), so
 * the tail and index hold what they wrote and nothing they forgot. The other instances' items
 * that could be results and have no vector yet are embedded by the recall itself: its cost is
 * bounded by their number, and it never waits for the background thread.
 */
final class EpisodicMemory implements EpisodicRecall, EventListener, DerivedData, MemoryMeters.Backlog {

    private static final String MESSAGE = "message";
    private static final String RECORD = "record";

    private final HybridIndex index;
    private final EmbeddingModel model;
    private final MemoryEngine engine;
    private final String agent;
    private final Set<String> caughtUp = ConcurrentHashMap.newKeySet();
    /**
     * Per user: the last event of the log that the index reflects with every event before it
     * (the tail aside: its items are on their way). Read from the index's last commit, advanced
     * by commits that follow it without a gap and by a catch-up, and written with the index's
     * next commit ({@link #close}), so that a new process applies only the events after it.
     */
    private final Map<String, Position> applied = new ConcurrentHashMap<>();
    /** Vectors of recent queries, so that a user message is embedded once (see {@link #vectorsFor}). */
    private final RecentVectors recentQueries = new RecentVectors(RecentVectors.DEFAULT_SIZE);
    /** Guards {@link #tail}; held only for map operations, never across an index write, so a commit never waits for one. */
    private final Object tailLock = new Object();
    /**
     * Serializes moving tail items into the index with removals (taken before {@link #tailLock}),
     * so that an item removed from the tail is never written into the index afterwards. Held for
     * one index write at a time and fair: a recall waiting for it is next, after at most the one
     * item the indexing thread is writing, never after the thread's whole backlog.
     */
    private final ReentrantLock moveLock = new ReentrantLock(true);
    /**
     * Orders keeping vectors in the store ({@link #keep}, after the index write, outside
     * {@link #moveLock}) with deleting them ({@link #deleteStored}): no vector of a removed item is
     * kept after its delete.
     */
    private final Object storeLock = new Object();
    /** Per user: items committed and not in the index yet, in commit order. Guarded by {@link #tailLock}. */
    private final Map<String, LinkedHashMap<String, Pending>> tail = new HashMap<>();
    /** Which records past messages state, for labelling message hits (see {@link Lineage}). */
    private final StatedRecords stated = new StatedRecords();
    private final Lineage lineage;
    /**
     * Items the listener removed because of a forget event, so that the forget's receipt (which
     * the engine asks for after the commit) still counts them. Forgets that do not go through
     * {@code MemoryEngine.forget} (invalidations, the record limit) leave their ids here.
     */
    private final Set<String> removedOnForget = ConcurrentHashMap.newKeySet();
    private final Map<String, Integer> partitionsRemoved = new ConcurrentHashMap<>();
    private static final String INDEXER_THREAD = "agent-memory-indexer";
    /** At most this many items per call of the embedding model (and per index write of a recall or a catch-up). */
    private static final int BATCH = 64;
    /**
     * Items per index write of a catch-up (embedded {@link #BATCH} at a time): a rebuild of
     * 10,000 items in writes of 64, when each write ended with a refresh and a new segment the
     * index later merged (HNSW graphs included), spent half its time merging 157 segments. A
     * catch-up runs once per user and process, under the user's lock, on the recall that needs it.
     */
    private static final int CATCH_UP_WRITE = 1_024;
    /**
     * Items per index write of the indexing thread: one, so that a recall that needs the move
     * lock waits for one item's write at most (with an instant model the thread lags the turns,
     * and eight items per write made the waits as long as eight, when each write refreshed the
     * searcher). No write refreshes it now: the thread refreshes once when a pass leaves the
     * tail empty, for every item it wrote (this instance's, or a batch followed from another's
     * log), and a search that needs them first refreshes itself, never waiting for a write.
     */
    private static final int INDEXER_WRITE = 1;
    private volatile @Nullable VectorModel vectorModel;
    private final AtomicLong embeddedCount = new AtomicLong();
    private final AtomicLong loadedCount = new AtomicLong();
    /** Tail items looked at while choosing what to move into the index (for tests: linear in the backlog). */
    private final AtomicLong tailItemsExamined = new AtomicLong();
    private final AtomicLong catchUpWrites = new AtomicLong();
    /**
     * Items another instance may have embedded and kept in the store (those of followed events
     * and of a catch-up from the log); the store is asked for these only, so that indexing this
     * instance's own writes costs no look-up.
     */
    private final Set<String> mayBeStored = ConcurrentHashMap.newKeySet();
    private static final System.Logger LOG = System.getLogger(EpisodicMemory.class.getName());
    /**
     * One thread moves the tail into the index; its tasks coalesce (each takes whatever the tail
     * holds). The queue also knows how long its oldest task has waited, for the index-lag gauge.
     */
    private final IndexQueue indexer = new IndexQueue(INDEXER_THREAD, this::engineClock);

    EpisodicMemory(HybridIndex index, EmbeddingModel model, MemoryEngine engine, String agent) {
        this.index = index;
        this.model = model;
        this.engine = engine;
        this.agent = agent;
        this.lineage = new Lineage(engine);
        this.applied.putAll(Position.read(index.commitData()));
    }

    static String partitionKey(String tenant, String user) {
        return tenant + "/" + user;
    }

    static String messageId(String tenant, String user, String session, long index) {
        return "m|" + tenant + "|" + user + "|" + session + "|" + index;
    }

    /**
     * The index id of the message a source reference {@code message:<session>#<index>} names
     * (the form the memory tools and the extractor write), if it names one.
     */
    static Optional<String> statedIn(Partition p, @Nullable String sourceRef) {
        if (sourceRef == null || !sourceRef.startsWith("message:")) {
            return Optional.empty();
        }
        int hash = sourceRef.lastIndexOf('#');
        if (hash < "message:".length() + 1) {
            return Optional.empty();
        }
        try {
            long index = Long.parseLong(sourceRef.substring(hash + 1));
            return Optional.of(messageId(p.tenant(), p.user(), sourceRef.substring("message:".length(), hash), index));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    static String recordId(String recordId) {
        return "r|" + recordId;
    }

    // ------------------------------------------------------------------ writes

    /** Another instance's events: their texts' vectors are looked for in the store before embedding. */
    @Override
    public void followed(Partition partition, List<LoggedEvent> events) {
        mayBeStored.addAll(addedIds(partition, events));
        committed(partition, events);
    }

    /** The ids of the items the events add to the index (those the index takes, so none is left behind in {@link #mayBeStored}). */
    private static List<String> addedIds(Partition partition, List<LoggedEvent> events) {
        List<String> ids = new ArrayList<>();
        for (LoggedEvent e : events) {
            if (e.change() instanceof Change.MessagesAppended m) {
                for (StoredMessage msg : m.messages()) {
                    Pending p = message(partition, m.session(), msg, e);
                    if (p != null) {
                        ids.add(p.id());
                    }
                }
            } else if (e.change() instanceof Change.RecordWritten w) {
                Pending p = record(partition, w.record(), e.seq());
                if (p != null) {
                    ids.add(p.id());
                }
            }
        }
        return ids;
    }

    /**
     * Applies a commit on the writer's thread, in log order: removals (supersession, forget,
     * archive) at once, in the tail and the index; additions into the user's tail, moved into
     * the index by the indexing thread. Never waits for that thread.
     */
    @Override
    public void committed(Partition partition, List<LoggedEvent> events) {
        if (apply(partition, events)) {
            try {
                indexer.execute(this::indexTail);
            } catch (RejectedExecutionException closed) {
                indexTail(); // closing: index here
            }
        }
    }

    /** Whether everything queued so far was indexed within {@code wait} (true at once on the indexing thread and once closed). */
    private boolean drained(Duration wait) {
        if (Thread.currentThread().getName().equals(INDEXER_THREAD)) {
            return true;
        }
        Future<?> done;
        try {
            done = indexer.submit(() -> { });
        } catch (RejectedExecutionException closed) {
            return true; // closed: nothing is queued any more
        }
        try {
            done.get(wait.toNanos(), TimeUnit.NANOSECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the recall index", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("the recall index queue failed", e.getCause());
        }
    }

    /** Blocks until everything committed so far is embedded and in the index. */
    void awaitIndexed() {
        drained(Duration.ofNanos(Long.MAX_VALUE));
    }

    /** Applies the events' bookkeeping and removals now and puts what they add in the tail; true when something was added. */
    private boolean apply(Partition partition, List<LoggedEvent> events) {
        String part = partitionKey(partition.tenant(), partition.user());
        List<Pending> add = new ArrayList<>();
        List<String> gone = new ArrayList<>();
        boolean added = false;
        for (LoggedEvent e : events) {
            Change c = e.change();
            if (c instanceof Change.MessagesAppended m) {
                for (StoredMessage msg : m.messages()) {
                    Pending p = message(partition, m.session(), msg, e);
                    if (p != null) {
                        add.add(p);
                    }
                }
                continue;
            }
            // a removal applies after the additions before it
            added |= enqueue(part, add);
            add.clear();
            if (c instanceof Change.RecordWritten w) {
                w.superseded().forEach(id -> remove(part, recordId(id)));
                stated.written(part, w.record());
                Pending p = record(partition, w.record(), e.seq());
                if (p != null) {
                    add.add(p);
                }
            } else if (c instanceof Change.RecordsForgotten f) {
                stated.forgotten(part, f.ids());
                f.ids().forEach(id -> gone.add(forgotten(part, recordId(id))));
            } else if (c instanceof Change.RecordsArchived a) {
                a.ids().forEach(id -> remove(part, recordId(id)));
            } else if (c instanceof Change.MessagesForgotten f) {
                f.indices().forEach(i -> gone.add(forgotten(part,
                        messageId(partition.tenant(), partition.user(), f.session(), i))));
            } else if (c instanceof Change.MessagesRedacted r) {
                // a redacted message states nothing worth recalling: it leaves the index
                r.messages().forEach(m -> gone.add(forgotten(part,
                        messageId(partition.tenant(), partition.user(), r.session(), m.index()))));
            } else if (c instanceof Change.UserForgotten) {
                stated.userForgotten(part);
                partitionsRemoved.merge(part, removePartitionNow(part), Integer::sum);
            }
        }
        // forgets that do not go through MemoryEngine.forget (the record limit) reach the store's vectors too
        deleteStored(partition, gone);
        boolean any = enqueue(part, add) | added;
        advance(part, events);
        return any;
    }

    /** After {@code events} were applied: the user's position moves to their last when they follow it without a gap. */
    private void advance(String part, List<LoggedEvent> events) {
        if (events.isEmpty()) {
            return;
        }
        LoggedEvent first = events.get(0);
        LoggedEvent last = events.get(events.size() - 1);
        applied.compute(part, (k, p) -> {
            long at = p == null ? 0 : p.seq();
            return first.seq() <= at + 1 && last.seq() > at ? Position.of(last) : p;
        });
    }

    /** Puts items in their user's tail, with the vector of a recent query of the same text when there is one. */
    private boolean enqueue(String part, List<Pending> items) {
        if (items.isEmpty()) {
            return false;
        }
        synchronized (tailLock) {
            Map<String, Pending> queued = tail.computeIfAbsent(part, k -> new LinkedHashMap<>());
            for (Pending p : items) {
                float[] known = recentQueries.get(p.text());
                queued.remove(p.id()); // a re-added id goes to the end
                queued.put(p.id(), known == null ? p : p.withVector(known));
            }
        }
        return true;
    }

    /** Removes an item from the tail and the index; true when it was in either. */
    private boolean removeNow(String part, String id) {
        mayBeStored.remove(id);
        moveLock.lock();
        try {
            boolean wasQueued;
            synchronized (tailLock) {
                Map<String, Pending> queued = tail.get(part);
                wasQueued = queued != null && queued.remove(id) != null;
            }
            return index.delete(id) || wasQueued;
        } finally {
            moveLock.unlock();
        }
    }

    /** Removes a user's tail and index items; how many there were. */
    private int removePartitionNow(String part) {
        moveLock.lock();
        try {
            Map<String, Pending> queued;
            synchronized (tailLock) {
                queued = tail.remove(part);
            }
            return (queued == null ? 0 : queued.size()) + index.deletePartition(part);
        } finally {
            moveLock.unlock();
        }
    }

    private String forgotten(String part, String id) {
        if (removeNow(part, id)) {
            removedOnForget.add(id);
        }
        return id;
    }

    /**
     * Deletes the store's vectors of forgotten items. It runs after the items left the tail and
     * the index, under {@link #storeLock}, and {@link #keep} keeps only items still in the index,
     * under that lock: no vector of a forgotten item is kept after its delete.
     */
    private void deleteStored(Partition partition, List<String> ids) {
        if (!ids.isEmpty() && engine.admin().keepsVectors()) {
            synchronized (storeLock) {
                engine.admin().deleteStoredVectors(new Caller(partition.tenant(), partition.user(), agent), ids);
            }
        }
    }

    private void remove(String part, String id) {
        removeNow(part, id);
    }

    /**
     * The indexing thread's task: embeds every tail item that has no vector yet, then moves every
     * tail item with a vector into the index. Tasks coalesce: one takes whatever the tail holds.
     */
    private void indexTail() {
        try {
            // what already has its vector (a user message that was its turn's query) first, so a
            // recall rarely finds anything to write itself
            moveAllReady();
            List<Pending> todo = new ArrayList<>();
            synchronized (tailLock) {
                tail.values().forEach(q -> q.values().stream().filter(p -> p.vector() == null).forEach(todo::add));
            }
            for (int from = 0; from < todo.size(); from += BATCH) {
                List<Pending> batch = todo.subList(from, Math.min(todo.size(), from + BATCH));
                attach(batch, vectorsFor(batch));
            }
            moveAllReady();
            if (pendingItems() == 0) {
                // nothing left for a next pass: one refresh for all this one wrote (a followed
                // batch, this instance's turn), here rather than in the next recall
                index.refresh();
            }
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "indexing the recall tail failed; a recall embeds what it needs,"
                    + " and the next start catches the index up from the log", e);
        }
    }

    private void moveAllReady() {
        List<String> parts;
        synchronized (tailLock) {
            parts = new ArrayList<>(tail.keySet());
        }
        for (String part : parts) {
            keep(moveReady(part, Set.of(), INDEXER_WRITE));
        }
    }

    /**
     * Before a recall of user {@code part}: when the user's tail holds items that could be results
     * (not in {@code inWindow}), embeds those that have no vector yet, here, then moves them into
     * the index; the only wait is for the one small index write the indexing thread may be
     * making. Items in the window (never results) are left to the indexing thread, and so is
     * keeping the written vectors in the store.
     */
    private void indexTailOf(String part, Set<String> inWindow) {
        List<Pending> missing = new ArrayList<>();
        synchronized (tailLock) {
            Map<String, Pending> queued = tail.get(part);
            if (queued == null || queued.isEmpty()) {
                return;
            }
            if (inWindow.containsAll(queued.keySet())) {
                // only items the model sees in the window (never results): the indexing thread
                // writes them; waiting for its write would stall the turn
                return;
            }
            queued.values().stream().filter(p -> p.vector() == null && !inWindow.contains(p.id())).forEach(missing::add);
        }
        for (int from = 0; from < missing.size(); from += BATCH) {
            List<Pending> batch = missing.subList(from, Math.min(missing.size(), from + BATCH));
            attach(batch, vectorsFor(batch));
        }
        List<Pending> written = moveReady(part, inWindow, BATCH);
        if (!written.isEmpty()) {
            try {
                indexer.execute(() -> keep(written));
            } catch (RejectedExecutionException closed) {
                keep(written);
            }
        }
    }

    /** Gives each item still in the tail (the same one, not removed or replaced meanwhile) its vector. */
    private void attach(List<Pending> items, List<Pending> withVectors) {
        synchronized (tailLock) {
            for (int i = 0; i < items.size(); i++) {
                Pending p = items.get(i);
                Map<String, Pending> queued = tail.get(p.partition());
                if (queued != null && queued.get(p.id()) == p) {
                    queued.put(p.id(), withVectors.get(i));
                }
            }
        }
    }

    /**
     * Moves the user's tail items that have a vector, except those in {@code leave}, into the
     * index in commit order, at most {@code perWrite} items per index write; the move lock is
     * held for one write at a time, so a removal or a recall waiting for it goes next. Returns
     * the items written, whose vectors the caller keeps ({@link #keep}) outside the lock.
     */
    private List<Pending> moveReady(String part, Set<String> leave, int perWrite) {
        List<Pending> written = new ArrayList<>();
        while (true) {
            List<Pending> ready = new ArrayList<>();
            moveLock.lock();
            try {
                synchronized (tailLock) {
                    Map<String, Pending> queued = tail.get(part);
                    if (queued == null) {
                        return written;
                    }
                    // stops at perWrite items: scanning the whole tail for each write made a
                    // backlog of n items cost n^2 / 2 steps
                    for (Pending p : queued.values()) {
                        if (ready.size() >= perWrite) {
                            break;
                        }
                        tailItemsExamined.incrementAndGet();
                        if (p.vector() != null && !leave.contains(p.id())) {
                            ready.add(p);
                        }
                    }
                    if (ready.isEmpty()) {
                        if (queued.isEmpty()) {
                            tail.remove(part);
                        }
                        return written;
                    }
                }
                // removals wait for this write (moveLock); commits that add do not (tailLock is free)
                write(ready);
                synchronized (tailLock) {
                    Map<String, Pending> queued = tail.get(part);
                    if (queued != null) {
                        // an item added again meanwhile (a new object under the same id) stays queued
                        ready.forEach(p -> queued.remove(p.id(), p));
                    }
                }
            } finally {
                moveLock.unlock();
            }
            written.addAll(ready);
        }
    }

    /**
     * The vectors of {@code items}, in order: their own when known; from the store, when it keeps
     * vectors and holds one of the same item, derived from the same event, by the same model
     * (another instance, or this one before a restart, embedded it: asked only for items of
     * followed events and of a catch-up); from a recent query of the same text; else from one
     * call of the embedding model for the rest. The one place where items are embedded.
     */
    private List<Pending> vectorsFor(List<Pending> items) {
        Pending[] out = items.toArray(new Pending[0]);
        Map<Partition, List<String>> lookUp = new LinkedHashMap<>();
        for (Pending p : items) {
            if (p.vector() == null && mayBeStored.remove(p.id())) {
                lookUp.computeIfAbsent(p.owner(), k -> new ArrayList<>()).add(p.id());
            }
        }
        Map<String, StoredVector> stored = new HashMap<>();
        if (!lookUp.isEmpty() && engine.admin().keepsVectors()) {
            lookUp.forEach((owner, ids) -> stored.putAll(engine.admin().storedVectors(
                    new Caller(owner.tenant(), owner.user(), agent), vectorModel(), ids)));
        }
        List<Integer> missing = new ArrayList<>();
        for (int i = 0; i < out.length; i++) {
            Pending p = out[i];
            if (p.vector() != null) {
                continue;
            }
            StoredVector v = stored.get(p.id());
            float[] recent = recentQueries.get(p.text());
            if (v != null && v.seq() == p.seq()) {
                out[i] = p.withStoredVector(v.vector());
                loadedCount.incrementAndGet();
            } else if (recent != null) {
                out[i] = p.withVector(recent);
            } else {
                missing.add(i);
            }
        }
        if (!missing.isEmpty()) {
            List<TextSegment> segments = missing.stream().map(i -> TextSegment.from(out[i].text())).toList();
            List<Embedding> embedded = model.embedAll(segments).content();
            for (int j = 0; j < missing.size(); j++) {
                out[missing.get(j)] = out[missing.get(j)].withVector(embedded.get(j).vector());
            }
            embeddedCount.addAndGet(missing.size());
        }
        return List.of(out);
    }

    /**
     * Keeps the vectors of written items in the store (when it keeps vectors), except those that
     * came from it, for the other instances and the next start. Called after the index write,
     * outside {@link #moveLock} (a store round trip never holds up a recall or a removal), and
     * ordered with forgets by {@link #storeLock}: only items still in the index are kept. A
     * failure is logged: the vectors are derived data, and whoever lacks them embeds the texts again.
     */
    private void keep(List<Pending> items) {
        if (items.isEmpty() || !engine.admin().keepsVectors()) {
            return;
        }
        synchronized (storeLock) {
            keepIndexed(items);
        }
    }

    /** {@link #keep} under {@link #storeLock}. */
    private void keepIndexed(List<Pending> items) {
        List<Pending> made = items.stream().filter(p -> p.vector() != null && !p.fromStore()).toList();
        if (made.isEmpty()) {
            return;
        }
        // an item removed since its write (a forget, a supersession) left the index before its
        // vectors were deleted from the store: it is not kept again
        Set<String> removed = new HashSet<>(index.absent(made.stream().map(Pending::id).toList()));
        Map<Partition, List<StoredVector>> byOwner = new LinkedHashMap<>();
        for (Pending p : made) {
            if (!removed.contains(p.id())) {
                byOwner.computeIfAbsent(p.owner(), k -> new ArrayList<>())
                        .add(new StoredVector(p.id(), p.seq(), Objects.requireNonNull(p.vector(), "vector")));
            }
        }
        byOwner.forEach((owner, vectors) -> {
            try {
                engine.admin().storeVectors(new Caller(owner.tenant(), owner.user(), agent), vectorModel(), vectors);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "keeping " + vectors.size() + " vectors of " + owner
                        + " in the store failed; other instances embed them again", e);
            }
        });
    }

    /** The embedding model's identity for stored vectors: its class, name and dimension. */
    private VectorModel vectorModel() {
        VectorModel m = vectorModel;
        if (m == null) {
            m = new VectorModel(model.getClass().getName() + ":" + model.modelName(), model.dimension());
            vectorModel = m;
        }
        return m;
    }

    /** How many times the index refreshed what its searches see ({@link HybridIndex#refreshes()}). */
    long indexRefreshes() {
        return index.refreshes();
    }

    /** How many texts this instance embedded for its index, and how many vectors it loaded from the store. */
    long[] vectorCounts() {
        return new long[] {embeddedCount.get(), loadedCount.get()};
    }

    /** How many tail items the moves into the index have looked at so far. */
    long tailItemsExamined() {
        return tailItemsExamined.get();
    }

    /** Writes items that have their vectors into the index (the caller keeps their vectors, {@link #keep}). */
    private void write(List<Pending> items) {
        List<IndexedItem> out = new ArrayList<>(items.size());
        for (Pending p : items) {
            out.add(new IndexedItem(p.id(), p.partition(), p.text(),
                    Objects.requireNonNull(p.vector(), "a written item has its vector"), p.time(), p.attributes()));
        }
        index.upsertAll(out);
    }

    /**
     * Embeds items (see {@link #vectorsFor}, {@link #BATCH} per call of the model), writes them into
     * the index {@link #CATCH_UP_WRITE} per write and keeps their vectors; used by the catch-up.
     */
    private void upsert(List<Pending> pending) {
        for (int from = 0; from < pending.size(); from += CATCH_UP_WRITE) {
            List<Pending> chunk = pending.subList(from, Math.min(pending.size(), from + CATCH_UP_WRITE));
            List<Pending> batch = new ArrayList<>(chunk.size());
            for (int at = 0; at < chunk.size(); at += BATCH) {
                batch.addAll(vectorsFor(chunk.subList(at, Math.min(chunk.size(), at + BATCH))));
            }
            write(batch);
            catchUpWrites.incrementAndGet();
            keep(batch);
        }
    }

    /** How many index writes catch-ups made (for tests: a rebuild writes in a few large writes). */
    long catchUpWrites() {
        return catchUpWrites.get();
    }

    /**
     * An item to index, from the event at {@code seq} of {@code owner}'s log; its vector once known,
     * and whether that vector came from the store.
     */
    private record Pending(String id, Partition owner, String text, Instant time, Map<String, String> attributes,
                           long seq, float @Nullable [] vector, boolean fromStore) {
        /** The index partition. */
        String partition() {
            return partitionKey(owner.tenant(), owner.user());
        }

        Pending withVector(float[] v) {
            return new Pending(id, owner, text, time, attributes, seq, v, false);
        }

        Pending withStoredVector(float[] v) {
            return new Pending(id, owner, text, time, attributes, seq, v, true);
        }
    }

    private static @Nullable Pending message(Partition partition, String session, StoredMessage msg, LoggedEvent e) {
        Instant at = e.at();
        // LangChain4j refuses text that trims to nothing (control characters included), so skip it here.
        if (msg.text() == null || msg.text().trim().isEmpty()
                || !(msg.type().equals("USER") || msg.type().equals("AI"))) {
            return null;
        }
        Map<String, String> attrs = new HashMap<>();
        attrs.put("type", MESSAGE);
        attrs.put("session", session);
        attrs.put("index", Long.toString(msg.index()));
        attrs.put("role", msg.type().toLowerCase(Locale.ROOT));
        if (msg.type().equals("AI")) {
            // the assistant's words never replace the user's, nor the other way round; the user
            // is the partition's owner (no speaker), like the user's records
            attrs.put(HybridIndex.SPEAKER_ATTRIBUTE, "assistant");
        }
        return new Pending(messageId(partition.tenant(), partition.user(), session, msg.index()),
                partition, msg.text(), at, attrs, e.seq(), null, false);
    }

    private static @Nullable Pending record(Partition partition, MemoryRecord r, long seq) {
        if (r.value() == null || !(r.status() == Status.ACTIVE || r.status() == Status.CONFLICT)) {
            return null;
        }
        Map<String, String> attrs = new HashMap<>();
        attrs.put("type", RECORD);
        attrs.put("record", r.id());
        attrs.put("key", r.key().path());
        attrs.put("version", Long.toString(r.version()));
        attrs.put("scope", r.scope().toString());
        attrs.put("kind", EnumText.label(r.kind()));
        attrs.put("source", EnumText.label(r.source()) + (r.sourceRef() != null ? ":" + r.sourceRef() : ""));
        attrs.put("trust", EnumText.label(r.trust()));
        attrs.put("status", r.status() == Status.CONFLICT ? "conflict" : "current");
        attrs.put("recorded", r.recordedAt().toString());
        String text = r.key().path() + " = " + r.text();
        return new Pending(recordId(r.id()), partition, text, r.observedAt(), attrs, seq, null, false);
    }

    // ------------------------------------------------------------------ forgetting

    @Override
    public String name() {
        return "embeddings";
    }

    @Override
    public int forget(ForgetRequest request) {
        Partition p = request.partition();
        String part = partitionKey(p.tenant(), p.user());
        if (request.wholeUser()) {
            int n;
            // the engine deletes the user's stored vectors after this: a keep in progress ends first
            synchronized (storeLock) {
                n = removePartitionNow(part);
            }
            Integer before = partitionsRemoved.remove(part);
            return n + (before == null ? 0 : before);
        }
        // read from the engine here, never under the tail's lock
        List<String> ids = droppedBy(request);
        int n = 0;
        for (String id : ids) {
            n += drop(part, id);
        }
        deleteStored(p, ids);
        return n;
    }

    /** The index ids a forget removes: its records, the messages they were stated in, its messages. */
    private List<String> droppedBy(ForgetRequest request) {
        Partition p = request.partition();
        List<String> ids = new ArrayList<>();
        Caller caller = new Caller(p.tenant(), p.user(), agent);
        for (String id : request.recordIds()) {
            ids.add(recordId(id));
            // The message a forgotten fact was stated in must not bring it back through recall either.
            engine.record(caller, id).map(MemoryRecord::sourceRef).flatMap(ref -> statedIn(p, ref)).ifPresent(ids::add);
        }
        for (Map.Entry<String, List<Long>> e : request.messages().entrySet()) {
            for (Long i : e.getValue()) {
                ids.add(messageId(p.tenant(), p.user(), e.getKey(), i));
            }
        }
        // messages that stated a forgotten value (the user's or the assistant's, in any session)
        for (Map.Entry<String, List<Long>> e : request.redacted().entrySet()) {
            for (Long i : e.getValue()) {
                ids.add(messageId(p.tenant(), p.user(), e.getKey(), i));
            }
        }
        return ids;
    }

    private int drop(String part, String id) {
        boolean now = removeNow(part, id);
        boolean before = removedOnForget.remove(id);
        return now || before ? 1 : 0;
    }

    // ------------------------------------------------------------------ reads

    @Override
    public List<Content> recall(Caller caller, @Nullable SessionRef session, String text, int max, double minScore,
                                Set<String> shown) {
        String part = partitionKey(caller.tenant(), caller.user());
        // what other instances committed reaches this index (as events to the listener, forgets
        // to the derived data) before the window is read
        engine.admin().sync(caller);
        Set<String> inWindow = new HashSet<>();
        if (session != null) {
            for (StoredMessage m : engine.messages().window(caller, session.session())) {
                inWindow.add(messageId(caller.tenant(), caller.user(), session.session(), m.index()));
            }
        }
        catchUp(caller, part);
        float[] query = queryVector(text);
        // what is committed and not indexed yet, as far as it could be a result: messages still in
        // this session's window are never recalled (the model sees them), so the reply just
        // committed is left to the indexing thread; nothing here waits for that thread
        indexTailOf(part, inWindow);
        // the window's messages are never results: a search does not refresh only to show those
        // just written (the indexing thread refreshes for them once its pass is done)
        List<RecallHit> hits = index.search(RecallQuery.of(part, text, query, Math.max(max * 3, max + 10),
                engine.clock().instant()).withMinScore(minScore), inWindow);
        List<Content> out = new ArrayList<>();
        String asking = session == null ? null : session.session();
        for (RecallHit h : hits) {
            if (out.size() >= max) {
                break;
            }
            Map<String, String> a = h.attributes();
            if (RECORD.equals(a.get("type"))) {
                // The engine decides what this agent may see now: access level, forgotten,
                // superseded, refuted; and whether it is still a conflict (a confirmation resolves it).
                // The engine's status rule labels it (StatusRule: window, deadline, task); a hit that
                // is superseded or refuted by now is left out, as the index would have dropped it.
                Optional<MemoryRecord> live = engine.record(caller, Objects.requireNonNull(a.get("record"), "a record hit names its record"))
                        .filter(r -> r.value() != null && (!r.tags().contains(Summarizer.SUMMARY_TAG)
                                || r.status() == Status.ACTIVE || r.status() == Status.CONFLICT));
                if (live.isEmpty() || shown.contains(a.get("record"))) {
                    continue;
                }
                MemoryRecord r = live.get();
                Optional<Lineage.Label> label = r.tags().contains(Summarizer.SUMMARY_TAG)
                        ? Optional.of(lineage.summary(caller, r))
                        : lineage.record(caller, r, asking).filter(l -> !l.status().equals(Lineage.SUPERSEDED));
                if (label.isPresent() && shown.add(a.get("record"))) {
                    out.add(recordContent(h, r, label.get()));
                }
            } else if (!inWindow.contains(h.id())) {
                String ref = "message:" + a.get("session") + "#" + a.get("index");
                if (shown.add(ref)) {
                    Lineage.Label label = lineage.message(caller, statedBy(caller, part, ref, h.text()));
                    out.add(messageContent(h, ref, caller, label));
                }
            }
        }
        return out;
    }

    /** The query's vector, kept among the recent queries so that indexing the same text does not embed it again. */
    private float[] queryVector(String text) {
        float[] known = recentQueries.get(text);
        if (known != null) {
            return known;
        }
        float[] v = model.embed(text).content().vector();
        recentQueries.put(text, v);
        return v;
    }

    private static Content recordContent(RecallHit h, MemoryRecord live, Lineage.Label label) {
        Map<String, String> a = h.attributes();
        Metadata md = new Metadata();
        boolean summary = live.tags().contains(Summarizer.SUMMARY_TAG);
        md.put(MemoryContent.LAYER, summary ? MemoryContentRetriever.SUMMARY : "episodic");
        md.put(MemoryContent.ID, live.id());
        md.put(MemoryContent.KEY, live.key().path());
        md.put(MemoryContent.VERSION, live.version());
        md.put(MemoryContent.SCOPE, live.scope().toString());
        md.put(MemoryContent.KIND, a.get("kind"));
        md.put(MemoryContent.SOURCE, a.get("source"));
        md.put(MemoryContent.TRUST, a.get("trust"));
        md.put(MemoryContent.STATUS, label.status());
        label.attributes().forEach(md::put);
        md.put(MemoryContent.OBSERVED_AT, h.time().toString());
        md.put(MemoryContent.RECORDED_AT, a.get("recorded"));
        md.put(MemoryContent.SCORE, h.score());
        md.put(MemoryContent.WHY, "similar to the question (" + h.why() + ")" + Lineage.why(label));
        if (summary) {
            md.put(MemoryContent.SPAN, MemoryContentRetriever.span(live));
        }
        String text = summary ? Summarizer.summaryText(live) : h.text();
        return Content.from(TextSegment.from(text, md), Map.of(ContentMetadata.SCORE, h.score()));
    }

    private static Content messageContent(RecallHit h, String ref, Caller caller, Lineage.Label label) {
        Map<String, String> a = h.attributes();
        Metadata md = new Metadata();
        md.put(MemoryContent.LAYER, "episodic");
        md.put(MemoryContent.ID, ref);
        md.put(MemoryContent.SCOPE, caller.session(Objects.requireNonNull(a.get("session"), "a message hit names its session")).toString());
        md.put(MemoryContent.KIND, "past-message");
        md.put(MemoryContent.SOURCE, a.get("role") + "-message:" + a.get("session"));
        md.put(MemoryContent.TRUST, "user".equals(a.get("role")) ? "trusted" : "untrusted");
        md.put(MemoryContent.STATUS, label.status());
        label.attributes().forEach(md::put);
        md.put(MemoryContent.OBSERVED_AT, h.time().toString());
        md.put(MemoryContent.RECORDED_AT, h.time().toString());
        md.put(MemoryContent.SCORE, h.score());
        md.put(MemoryContent.WHY, "a past message similar to the question (" + h.why() + ")" + Lineage.why(label));
        return Content.from(TextSegment.from(h.text(), md), Map.of(ContentMetadata.SCORE, h.score()));
    }

    /**
     * The records a past message states ({@link StatedRecords}); the user's table is built from
     * the engine's state the first time one of their messages is labelled, under the user's lock,
     * so that no commit of theirs changes the state meanwhile (later commits keep it in step).
     */
    private Set<String> statedBy(Caller caller, String part, String ref, String text) {
        if (!stated.holds(part)) {
            engine.admin().holding(caller, state -> {
                if (!stated.holds(part)) {
                    stated.build(part, state.records());
                }
                return null;
            });
        }
        return stated.statedBy(part, ref, text);
    }

    /**
     * Once per user and process, before the first recall: brings the index in step with the
     * user's log from the last event it reflects ({@link #applied}, kept in the index's commit):
     * adds what the events after it add and the index lacks, removes what they forget,
     * supersede or archive. When the log does not hold that event as it was (another database,
     * or a log that was replaced), the user's items are rebuilt from the whole log. Runs with the
     * user's lock held, so no commit's events are applied meanwhile.
     */
    private void catchUp(Caller caller, String part) {
        if (caughtUp.contains(part)) {
            return;
        }
        // the user's lock orders this with their commits (and with another recall's catch-up)
        engine.admin().holding(caller, state -> {
            if (caughtUp.contains(part)) {
                return null;
            }
            Position from = applied.get(part);
            List<LoggedEvent> log;
            boolean rebuild = false;
            if (from == null) {
                log = engine.admin().log(caller);
            } else if (state.lastSeq() == from.seq()) {
                // nothing follows the position: its event's time, read without decoding the event,
                // tells whether the log still holds that event as it was; the index reflects that
                // event and all before it, so there is nothing to replay
                Optional<Instant> at = engine.admin().appendedAt(caller, from.seq());
                if (at.isPresent() && from.matches(at.get())) {
                    applied.put(part, new Position(from.seq(), at.get().toEpochMilli()));
                    caughtUp.add(part);
                    return null;
                }
                log = differs(caller, part, from);
                rebuild = true;
            } else {
                log = engine.admin().log(caller, from.seq() - 1);
                if (!from.matches(log)) {
                    log = differs(caller, part, from);
                    rebuild = true;
                }
            }
            replay(caller, part, log, rebuild);
            if (!log.isEmpty()) {
                applied.put(part, Position.of(log.get(log.size() - 1)));
            } else if (rebuild) {
                applied.remove(part);
            }
            caughtUp.add(part);
            return null;
        });
    }

    /** The whole log of a user whose index followed a log that differs from the stored one at {@code from}, to rebuild from. */
    private List<LoggedEvent> differs(Caller caller, String part, Position from) {
        LOG.log(System.Logger.Level.INFO, "the recall index of " + part + " followed a log that differs"
                + " from the stored one at seq " + from.seq() + "; rebuilding its items from the log");
        return engine.admin().log(caller);
    }

    /**
     * Applies the net effect of {@code events} (a stretch of the user's log up to its end) to the
     * index: removes the items they remove, adds the items they leave in place that the index
     * lacks (not those in the tail, on their way in). With {@code wipe}, or when they forget the
     * whole user, the user's items are deleted first.
     */
    private void replay(Caller caller, String part, List<LoggedEvent> events, boolean wipe) {
        Partition partition = new Partition(caller.tenant(), caller.user());
        Map<String, Pending> live = new LinkedHashMap<>();
        Set<String> removed = new HashSet<>();
        Map<String, String> statedBy = new HashMap<>();
        for (LoggedEvent e : events) {
            Change c = e.change();
            if (c instanceof Change.MessagesAppended m) {
                for (StoredMessage msg : m.messages()) {
                    Pending p = message(partition, m.session(), msg, e);
                    if (p != null) {
                        removed.remove(p.id());
                        live.put(p.id(), p);
                    }
                }
            } else if (c instanceof Change.RecordWritten w) {
                w.superseded().forEach(id -> drop(live, removed, recordId(id)));
                statedIn(partition, w.record().sourceRef()).ifPresent(m -> statedBy.put(w.record().id(), m));
                Pending p = record(partition, w.record(), e.seq());
                if (p != null) {
                    removed.remove(p.id());
                    live.put(p.id(), p);
                }
            } else if (c instanceof Change.RecordsForgotten f) {
                for (String id : f.ids()) {
                    drop(live, removed, recordId(id));
                    // the message the forgotten fact was stated in must not bring it back either
                    String message = statedBy.get(id);
                    if (message == null) {
                        message = engine.record(caller, id).map(MemoryRecord::sourceRef)
                                .flatMap(ref -> statedIn(partition, ref)).orElse(null);
                    }
                    if (message != null) {
                        drop(live, removed, message);
                    }
                }
            } else if (c instanceof Change.RecordsArchived a) {
                a.ids().forEach(id -> drop(live, removed, recordId(id)));
            } else if (c instanceof Change.MessagesForgotten f) {
                f.indices().forEach(i -> drop(live, removed, messageId(caller.tenant(), caller.user(), f.session(), i)));
            } else if (c instanceof Change.MessagesRedacted r) {
                r.messages().forEach(m -> drop(live, removed,
                        messageId(caller.tenant(), caller.user(), r.session(), m.index())));
            } else if (c instanceof Change.UserForgotten) {
                live.clear();
                removed.clear();
                wipe = true;
            }
        }
        if (wipe) {
            index.deletePartition(part);
        }
        removed.forEach(index::delete);
        // what the tail holds is on its way into the index: not embedded twice
        Set<String> queued = new HashSet<>();
        synchronized (tailLock) {
            Map<String, Pending> q = tail.get(part);
            if (q != null) {
                queued.addAll(q.keySet());
            }
        }
        Set<String> absent = new HashSet<>(index.absent(new ArrayList<>(live.keySet())));
        absent.removeAll(queued);
        mayBeStored.addAll(absent);
        List<Pending> missing = new ArrayList<>();
        for (Pending p : live.values()) {
            if (absent.contains(p.id())) {
                missing.add(p);
            }
        }
        upsert(missing);
    }

    private static void drop(Map<String, Pending> live, Set<String> removed, String id) {
        live.remove(id);
        removed.add(id);
    }

    /**
     * Where the index stands in a user's log: the event at {@code seq}, appended at
     * {@code atMillis} ({@code -1}: not known), and every event before it are reflected in it.
     */
    record Position(long seq, long atMillis) {

        /** Commit data key prefix of a user's position; the value is {@code <seq>:<epoch millis>}. */
        static final String KEY = "applied|";

        static Position of(LoggedEvent e) {
            return new Position(e.seq(), e.at().toEpochMilli());
        }

        /** Whether {@code log}, read from this position's event on, starts with that event as it was. */
        boolean matches(List<LoggedEvent> log) {
            return !log.isEmpty() && log.get(0).seq() == seq && matches(log.get(0).at());
        }

        /** Whether this position's event, appended at {@code at}, is the one it was (when its time is known). */
        boolean matches(Instant at) {
            return atMillis < 0 || at.toEpochMilli() == atMillis;
        }

        /** The positions kept in an index commit's user data (entries not of this form are ignored). */
        static Map<String, Position> read(Map<String, String> commitData) {
            Map<String, Position> out = new HashMap<>();
            commitData.forEach((k, v) -> {
                if (k.startsWith(KEY)) {
                    int colon = v.indexOf(':');
                    try {
                        long seq = Long.parseLong(colon < 0 ? v : v.substring(0, colon));
                        long at = colon < 0 ? -1 : Long.parseLong(v.substring(colon + 1));
                        if (seq > 0) {
                            out.put(k.substring(KEY.length()), new Position(seq, at));
                        }
                    } catch (NumberFormatException e) {
                        LOG.log(System.Logger.Level.WARNING, "ignoring the recall index position " + k + "=" + v
                                + "; that user is caught up from the whole log");
                    }
                }
            });
            return out;
        }
    }

    /**
     * The positions to commit: each user's, or, for a user whose tail still holds items (not in
     * the index yet), the event before the oldest of them (its time unknown).
     */
    private Map<String, String> positions() {
        Map<String, Long> pending = new HashMap<>();
        synchronized (tailLock) {
            tail.forEach((part, q) -> q.values().forEach(p -> pending.merge(part, p.seq(), Math::min)));
        }
        Map<String, String> out = new HashMap<>();
        applied.forEach((part, p) -> {
            Long oldest = pending.get(part);
            Position at = oldest != null && oldest <= p.seq() ? new Position(oldest - 1, -1) : p;
            if (at.seq() > 0) {
                out.put(Position.KEY + part, at.seq() + ":" + at.atMillis());
            }
        });
        return out;
    }

    private Clock engineClock() {
        return engine.clock();
    }

    @Override
    public int pendingItems() {
        synchronized (tailLock) {
            return tail.values().stream().mapToInt(Map::size).sum();
        }
    }

    @Override
    public Duration oldestWait() {
        return indexer.oldestWait();
    }

    void close() {
        indexer.shutdown();
        try {
            if (!indexer.awaitTermination(30, TimeUnit.SECONDS)) {
                LOG.log(System.Logger.Level.WARNING, "the recall index queue did not drain in 30 s; the next start catches up");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            index.commit(positions());
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "committing the recall index failed; the next start catches it up"
                    + " from its previous commit", e);
        }
        index.close();
    }
}

package dev.agentmemory.langchain4j;

import dev.agentmemory.langchain4j.internal.EnumText;
import dev.agentmemory.core.Caller;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.MemoryException;
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

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The episodic layer: every user and AI message and every record value is embedded once, when
 * it is committed (this is an {@link EventListener} of the engine), and kept in a
 * {@link HybridIndex} partitioned by tenant and user. Superseded, archived and forgotten records
 * and forgotten messages leave the index (this is also a {@link DerivedData}, so a forget
 * reports what went). Only the query is embedded at read time.
 *
 * <p>After a restart, the first recall for a user brings the index in step with that user's log:
 * items missing from the index are embedded and added, forgotten ones are removed. With an
 * index kept in a directory (next to an H2 file) nothing already indexed is embedded again.
 *
 * <p>Several instances over one shared store each keep an index of their own. Before it answers,
 * a recall asks the engine to catch up with the store ({@code admin().sync}): the engine tells
 * this listener about the other instances' events (and its derived data about their forgets), so
 * the index holds what they wrote and nothing they forgot. A recall then waits for the indexing
 * queue at most the catch-up wait (30 s by default) and fails with a {@link MemoryException}
 * naming the user when the queue is not done by then; waits on the engine's commit path are
 * bounded the same way (what could not wait is queued in order, and the next recall waits for it).
 */
final class EpisodicMemory implements EpisodicRecall, EventListener, DerivedData {

    private static final String MESSAGE = "message";
    private static final String RECORD = "record";

    private final HybridIndex index;
    private final EmbeddingModel model;
    private final MemoryEngine engine;
    private final String agent;
    private final Set<String> caughtUp = ConcurrentHashMap.newKeySet();
    /** The default {@link #catchUpWait}. */
    static final Duration CATCH_UP_WAIT = Duration.ofSeconds(30);
    /** How long a recall (or a commit that removes items) waits for the indexing queue. */
    private final Duration catchUpWait;
    /** Names the removals queued because the queue did not drain in time (see {@link #inOrder}). */
    private final AtomicLong queuedRemovals = new AtomicLong();
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
    private volatile @Nullable VectorModel vectorModel;
    private final AtomicLong embeddedCount = new AtomicLong();
    private final AtomicLong loadedCount = new AtomicLong();
    /**
     * Items another instance may have embedded and kept in the store (those of followed events
     * and of a catch-up from the log); the store is asked for these only, so that indexing this
     * instance's own writes costs no look-up.
     */
    private final Set<String> mayBeStored = ConcurrentHashMap.newKeySet();
    /** Per user: ids of items queued for indexing and not indexed yet. */
    private final Map<String, Set<String>> pendingByPartition = new ConcurrentHashMap<>();
    private static final System.Logger LOG = System.getLogger(EpisodicMemory.class.getName());
    /** One thread, so commits are indexed in the order they were made. */
    private final ExecutorService indexer = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, INDEXER_THREAD);
        t.setDaemon(true);
        return t;
    });

    EpisodicMemory(HybridIndex index, EmbeddingModel model, MemoryEngine engine, String agent) {
        this(index, model, engine, agent, CATCH_UP_WAIT);
    }

    EpisodicMemory(HybridIndex index, EmbeddingModel model, MemoryEngine engine, String agent, Duration catchUpWait) {
        if (catchUpWait.isNegative() || catchUpWait.isZero()) {
            throw new IllegalArgumentException("the recall index's catch-up wait must be positive: " + catchUpWait);
        }
        this.catchUpWait = catchUpWait;
        this.index = index;
        this.model = model;
        this.engine = engine;
        this.agent = agent;
        this.lineage = new Lineage(engine);
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

    /**
     * Indexes what a commit added on the indexing thread, so that embedding and index writes stay
     * off the writer's path; a commit that also removes something (supersession, forget,
     * archive) first waits for the queue and then runs here, in log order. Recall and forget wait
     * for the queue too, so every read sees every earlier commit and no forgotten text is indexed
     * after its forget.
     */
    /** Another instance's events: their texts' vectors are looked for in the store before embedding. */
    @Override
    public void followed(Partition partition, List<LoggedEvent> events) {
        mayBeStored.addAll(addedIds(partition, events));
        committed(partition, events);
    }

    @Override
    public void committed(Partition partition, List<LoggedEvent> events) {
        if (events.stream().noneMatch(e -> removesFromIndex(e.change()))) {
            String part = partitionKey(partition.tenant(), partition.user());
            List<String> ids = addedIds(partition, events);
            Set<String> pending = pendingByPartition.computeIfAbsent(part, k -> ConcurrentHashMap.newKeySet());
            pending.addAll(ids);
            try {
                indexer.execute(() -> {
                    try {
                        apply(partition, events);
                    } catch (RuntimeException e) {
                        LOG.log(System.Logger.Level.WARNING, "indexing a commit of " + partition
                                + " failed; the next start catches the index up from the log", e);
                    } finally {
                        ids.forEach(pending::remove);
                    }
                });
                return;
            } catch (RejectedExecutionException closed) {
                // closing: index here, as before the queue existed
                ids.forEach(pending::remove);
            }
        }
        inOrder(partition, () -> apply(partition, events));
    }

    /**
     * Runs a removal after everything queued before it: here, once the queue drained within the
     * catch-up wait (so that it is done when the engine's call returns), else queued behind it,
     * marked pending for the user so that the next recall waits for it. Never blocks longer
     * than the catch-up wait, since it runs on the engine's commit path under the user's lock.
     */
    private void inOrder(Partition partition, Runnable removal) {
        if (drained(catchUpWait)) {
            removal.run();
        } else {
            queueBehind(partition, removal);
        }
    }

    /**
     * Queues a removal behind what the indexing queue holds, after the queue did not drain within
     * the catch-up wait, marked pending for the user so that the next recall waits for it.
     */
    private void queueBehind(Partition partition, Runnable removal) {
        String part = partitionKey(partition.tenant(), partition.user());
        String marker = "removal|" + queuedRemovals.incrementAndGet();
        Set<String> pending = pendingByPartition.computeIfAbsent(part, k -> ConcurrentHashMap.newKeySet());
        pending.add(marker);
        LOG.log(System.Logger.Level.WARNING, "the recall index queue did not drain in " + text(catchUpWait)
                + "; a removal for " + partition + " is queued behind it, and recalls of that user wait for it");
        try {
            indexer.execute(() -> {
                try {
                    removal.run();
                } finally {
                    pending.remove(marker);
                }
            });
        } catch (RejectedExecutionException closed) {
            pending.remove(marker);
            removal.run();
        }
    }

    /**
     * Whether everything queued so far was indexed within {@code wait} (true at once on the
     * indexing thread itself and once closed).
     */
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

    private static String text(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }

    /** Waits for the queue before a recall of {@code caller}; fails naming the user when it takes too long. */
    private void awaitIndexedFor(Caller caller) {
        if (!drained(catchUpWait)) {
            throw new MemoryException("episodic recall for " + caller.tenant() + "/" + caller.user()
                    + " failed: the recall index did not catch up within " + text(catchUpWait)
                    + " (the embedding of queued messages is still running)");
        }
    }

    private static List<String> addedIds(Partition partition, List<LoggedEvent> events) {
        List<String> ids = new ArrayList<>();
        for (LoggedEvent e : events) {
            if (e.change() instanceof Change.MessagesAppended m) {
                m.messages().forEach(msg -> ids.add(messageId(partition.tenant(), partition.user(), m.session(), msg.index())));
            } else if (e.change() instanceof Change.RecordWritten w) {
                ids.add(recordId(w.record().id()));
            }
        }
        return ids;
    }

    private static boolean removesFromIndex(Change c) {
        return (c instanceof Change.RecordWritten w && !w.superseded().isEmpty()) || c instanceof Change.RecordsForgotten
                || c instanceof Change.RecordsArchived || c instanceof Change.MessagesForgotten
                || c instanceof Change.MessagesRedacted || c instanceof Change.UserForgotten;
    }

    /** Blocks until everything committed so far is indexed. */
    void awaitIndexed() {
        drained(Duration.ofNanos(Long.MAX_VALUE));
    }

    private void apply(Partition partition, List<LoggedEvent> events) {
        String part = partitionKey(partition.tenant(), partition.user());
        List<Pending> add = new ArrayList<>();
        List<String> gone = new ArrayList<>();
        for (LoggedEvent e : events) {
            Change c = e.change();
            if (c instanceof Change.MessagesAppended m) {
                for (StoredMessage msg : m.messages()) {
                    Pending p = message(partition, m.session(), msg, e);
                    if (p != null) {
                        add.add(p);
                    }
                }
            } else if (c instanceof Change.RecordWritten w) {
                w.superseded().forEach(id -> remove(add, recordId(id)));
                stated.written(part, w.record());
                Pending p = record(part, w.record(), e.seq());
                if (p != null) {
                    add.add(p);
                }
            } else if (c instanceof Change.RecordsForgotten f) {
                stated.forgotten(part, f.ids());
                f.ids().forEach(id -> gone.add(forgotten(add, recordId(id))));
            } else if (c instanceof Change.RecordsArchived a) {
                a.ids().forEach(id -> remove(add, recordId(id)));
            } else if (c instanceof Change.MessagesForgotten f) {
                f.indices().forEach(i -> gone.add(forgotten(add,
                        messageId(partition.tenant(), partition.user(), f.session(), i))));
            } else if (c instanceof Change.MessagesRedacted r) {
                // a redacted message states nothing worth recalling: it leaves the index
                r.messages().forEach(m -> gone.add(forgotten(add,
                        messageId(partition.tenant(), partition.user(), r.session(), m.index()))));
            } else if (c instanceof Change.UserForgotten) {
                stated.userForgotten(part);
                add.clear();
                partitionsRemoved.merge(part, index.deletePartition(part), Integer::sum);
            }
        }
        // forgets that do not go through MemoryEngine.forget (the record limit) reach the store's vectors too
        deleteStored(partition, gone);
        upsert(partition, add);
        if (!mayBeStored.isEmpty()) {
            addedIds(partition, events).forEach(mayBeStored::remove); // those that were not indexed
        }
    }

    private String forgotten(List<Pending> pending, String id) {
        pending.removeIf(p -> p.id().equals(id));
        if (index.delete(id)) {
            removedOnForget.add(id);
        }
        return id;
    }

    /** Deletes the store's vectors of forgotten items (in order with the saves of the indexing queue). */
    private void deleteStored(Partition partition, List<String> ids) {
        if (!ids.isEmpty() && engine.admin().keepsVectors()) {
            engine.admin().deleteStoredVectors(new Caller(partition.tenant(), partition.user(), agent), ids);
        }
    }

    private void remove(List<Pending> pending, String id) {
        pending.removeIf(p -> p.id().equals(id));
        index.delete(id);
    }

    /** An item waiting for its embedding. */
    private record Pending(String id, String partition, String text, Instant time, Map<String, String> attributes,
                           long seq) {
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
                partitionKey(partition.tenant(), partition.user()), msg.text(), at, attrs, e.seq());
    }

    private static @Nullable Pending record(String part, MemoryRecord r, long seq) {
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
        return new Pending(recordId(r.id()), part, text, r.observedAt(), attrs, seq);
    }

    private void upsert(Partition partition, List<Pending> pending) {
        if (pending.isEmpty()) {
            return;
        }
        List<float[]> vectors = vectorsFor(partition, pending);
        List<IndexedItem> items = new ArrayList<>(pending.size());
        for (int i = 0; i < pending.size(); i++) {
            Pending p = pending.get(i);
            items.add(new IndexedItem(p.id(), p.partition(), p.text(), vectors.get(i), p.time(), p.attributes()));
        }
        index.upsertAll(items);
    }

    /**
     * Where the vectors of items come from, in their order: the store, when it keeps vectors and
     * holds one of the same item, derived from the same event, by the same model (the instance
     * that wrote the text, another one, or this one before a restart, embedded it); else the
     * model, one call for all that are missing, and those are kept in the store for the others.
     */
    private List<float[]> vectorsFor(Partition partition, List<Pending> pending) {
        Caller caller = new Caller(partition.tenant(), partition.user(), agent);
        boolean keeps = engine.admin().keepsVectors();
        List<String> lookUp = pending.stream().map(Pending::id).filter(mayBeStored::remove).toList();
        Map<String, StoredVector> stored = keeps && !lookUp.isEmpty()
                ? engine.admin().storedVectors(caller, vectorModel(), lookUp)
                : Map.of();
        float[][] out = new float[pending.size()][];
        List<Integer> missing = new ArrayList<>();
        for (int i = 0; i < pending.size(); i++) {
            StoredVector v = stored.get(pending.get(i).id());
            if (v != null && v.seq() == pending.get(i).seq()) {
                out[i] = v.vector();
            } else {
                missing.add(i);
            }
        }
        if (!missing.isEmpty()) {
            List<TextSegment> segments = missing.stream().map(i -> TextSegment.from(pending.get(i).text())).toList();
            List<Embedding> embedded = model.embedAll(segments).content();
            List<StoredVector> made = new ArrayList<>(missing.size());
            for (int j = 0; j < missing.size(); j++) {
                Pending p = pending.get(missing.get(j));
                out[missing.get(j)] = embedded.get(j).vector();
                made.add(new StoredVector(p.id(), p.seq(), embedded.get(j).vector()));
            }
            embeddedCount.addAndGet(missing.size());
            if (keeps) {
                try {
                    engine.admin().storeVectors(caller, vectorModel(), made);
                } catch (RuntimeException e) {
                    // derived data: the index has them; other instances embed them again
                    LOG.log(System.Logger.Level.WARNING, "keeping " + made.size() + " vectors of " + partition
                            + " in the store failed; other instances embed them again", e);
                }
            }
        }
        loadedCount.addAndGet(pending.size() - missing.size());
        return java.util.Arrays.asList(out);
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

    /** How many texts this instance embedded for its index, and how many vectors it loaded from the store. */
    long[] vectorCounts() {
        return new long[] {embeddedCount.get(), loadedCount.get()};
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
            if (!drained(catchUpWait)) {
                queueBehind(p, () -> index.deletePartition(part));
                return 0;
            }
            Integer before = partitionsRemoved.remove(part);
            return index.deletePartition(part) + (before == null ? 0 : before);
        }
        // read from the engine here, never on the indexing thread (the caller holds the user's lock)
        List<String> ids = droppedBy(request);
        if (!drained(catchUpWait)) {
            // on the engine's forget path (this instance's or another's, followed): the drops go
            // behind what is queued, and the next recall of the user waits for them
            queueBehind(p, () -> {
                ids.forEach(this::drop);
                deleteStored(p, ids);
            });
            return 0;
        }
        deleteStored(p, ids);
        int n = 0;
        for (String id : ids) {
            n += drop(id);
        }
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

    private int drop(String id) {
        boolean now = index.delete(id);
        boolean before = removedOnForget.remove(id);
        return now || before ? 1 : 0;
    }

    // ------------------------------------------------------------------ reads

    @Override
    public List<Content> recall(Caller caller, @Nullable SessionRef session, String text, int max, double minScore,
                                Set<String> shown) {
        String part = partitionKey(caller.tenant(), caller.user());
        // what other instances committed reaches this index (as events to the listener, forgets
        // to the derived data) before the window is read and the queue is awaited
        engine.admin().sync(caller);
        Set<String> inWindow = new HashSet<>();
        if (session != null) {
            for (StoredMessage m : engine.messages().window(caller, session.session())) {
                inWindow.add(messageId(caller.tenant(), caller.user(), session.session(), m.index()));
            }
        }
        // Wait for queued items only when one could be a result: messages still in this
        // session's window are never recalled (the model sees them), so the reply just
        // committed does not hold up the next question.
        Set<String> pending = pendingByPartition.get(part);
        if (!caughtUp.contains(part) || (pending != null && !inWindow.containsAll(pending))) {
            awaitIndexedFor(caller);
        }
        catchUp(caller, part);
        float[] query = model.embed(text).content().vector();
        List<RecallHit> hits = index.search(RecallQuery.of(part, text, query, Math.max(max * 3, max + 10),
                engine.clock().instant()).withMinScore(minScore));
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
                    Lineage.Label label = lineage.message(caller, stated.statedBy(part, ref, h.text()));
                    out.add(messageContent(h, ref, caller, label));
                }
            }
        }
        return out;
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
     * Once per user and process: adds what the user's log holds but the index lacks (embedding
     * it), and removes what was forgotten, superseded or archived.
     */
    private void catchUp(Caller caller, String part) {
        if (caughtUp.contains(part)) {
            return;
        }
        synchronized (caughtUp) {
            if (caughtUp.contains(part)) {
                return;
            }
            Partition partition = new Partition(caller.tenant(), caller.user());
            Map<String, Pending> live = new java.util.LinkedHashMap<>();
            Map<String, String> statedBy = new HashMap<>();
            Set<String> seen = new HashSet<>();
            for (LoggedEvent e : engine.admin().log(caller)) {
                Change c = e.change();
                if (c instanceof Change.MessagesAppended m) {
                    for (StoredMessage msg : m.messages()) {
                        seen.add(messageId(caller.tenant(), caller.user(), m.session(), msg.index()));
                        Pending p = message(partition, m.session(), msg, e);
                        if (p != null) {
                            live.put(p.id(), p);
                        }
                    }
                } else if (c instanceof Change.RecordWritten w) {
                    w.superseded().forEach(id -> live.remove(recordId(id)));
                    seen.add(recordId(w.record().id()));
                    stated.written(part, w.record());
                    statedIn(partition, w.record().sourceRef()).ifPresent(m -> statedBy.put(w.record().id(), m));
                    Pending p = record(part, w.record(), e.seq());
                    if (p != null) {
                        live.put(p.id(), p);
                    }
                } else if (c instanceof Change.RecordsForgotten f) {
                    stated.forgotten(part, f.ids());
                    f.ids().forEach(id -> {
                        live.remove(recordId(id));
                        String stated = statedBy.get(id);
                        if (stated != null) {
                            live.remove(stated);
                        }
                    });
                } else if (c instanceof Change.RecordsArchived a) {
                    a.ids().forEach(id -> live.remove(recordId(id)));
                } else if (c instanceof Change.MessagesForgotten f) {
                    f.indices().forEach(i -> live.remove(messageId(caller.tenant(), caller.user(), f.session(), i)));
                } else if (c instanceof Change.MessagesRedacted r) {
                    r.messages().forEach(m -> live.remove(messageId(caller.tenant(), caller.user(), r.session(), m.index())));
                } else if (c instanceof Change.UserForgotten) {
                    stated.userForgotten(part);
                    live.clear();
                }
            }
            for (String id : seen) {
                if (!live.containsKey(id)) {
                    index.delete(id);
                }
            }
            Set<String> absent = new HashSet<>(index.absent(new ArrayList<>(live.keySet())));
            mayBeStored.addAll(absent);
            List<Pending> missing = new ArrayList<>();
            for (Pending p : live.values()) {
                if (absent.contains(p.id())) {
                    missing.add(p);
                }
            }
            upsert(partition, missing);
            caughtUp.add(part);
        }
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
        index.close();
    }
}

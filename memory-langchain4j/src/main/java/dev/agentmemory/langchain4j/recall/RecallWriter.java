package dev.agentmemory.langchain4j.recall;

import static dev.agentmemory.langchain4j.recall.IndexSchema.F_ID;
import static dev.agentmemory.langchain4j.recall.IndexSchema.F_PARTITION;
import static dev.agentmemory.langchain4j.recall.IndexSchema.F_SUPERSEDED_BY;
import static dev.agentmemory.langchain4j.recall.IndexSchema.F_TEXT;

import dev.agentmemory.langchain4j.recall.IndexSchema.Stored;
import java.io.Closeable;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.lucene.index.IndexFormatTooNewException;
import org.apache.lucene.index.IndexFormatTooOldException;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.SerialMergeScheduler;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.TieredMergePolicy;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ReferenceManager;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.Weight;
import org.apache.lucene.store.Directory;
import org.apache.lucene.util.Bits;
import org.jspecify.annotations.Nullable;

/**
 * The write side of the recall index: the Lucene writer and its searcher refreshes, replacing
 * and deleting items, and write-time supersession detection (a new item is compared with the
 * current near neighbours of its partition). Not thread-safe: the caller serializes every call,
 * except {@link #refreshIfStale} and {@link #refreshes}, which any thread may call at any time.
 *
 * <p><b>Refreshes.</b> A write does not refresh the searchers: each refresh flushes a small
 * segment, and a segment per item cost its flush plus the merges of those segments. The searchers are refreshed when something must see what was
 * written: a read ({@link #refreshIfStale}, which any thread may call without the caller's write
 * lock, so a search never waits for a write), a write whose check could pair with an item
 * written since, or a delete of an item that the searchers do not show as it is now. Changes are
 * numbered; a refresh covers those made before it began, and what changed after the last one is
 * kept here ({@link #pending}), so that {@link #absent} answers without a refresh.
 *
 * <p><b>Batches.</b> A long write ({@link #BATCH_FROM} items or more) is decided in memory, up
 * to {@link #BATCH_MOST} items at a time, against a refreshed searcher and the batch's earlier
 * items, then written and refreshed once; one item per write is checked against the searcher
 * and refreshes only when an unshown item could change its check. Both end in the same index.
 */
final class RecallWriter implements Closeable {

    private static final System.Logger LOG = System.getLogger(RecallWriter.class.getName());

    private final IndexSettings settings;
    private final RecallAnalyzer analyzer;
    private final SupersessionDetector detector;
    private final IndexWriter writer;
    private final SearcherManager searchers;
    /** The number of the last change (write or delete) made; only the caller holding the write lock changes it. */
    private volatile long changes;
    /** The number of the last change that the searchers show (a refresh that began after it completed). */
    private final AtomicLong refreshedThrough = new AtomicLong();
    private final AtomicLong refreshes = new AtomicLong();
    /** Items written and maybe not shown yet (after {@link #prune}: written after the last refresh), in order. */
    private final List<Unrefreshed> unrefreshed = new ArrayList<>();
    /**
     * Per id changed and maybe not shown yet: whether the index now holds it (written) or not
     * (deleted). Changed by the writer, read by searches ({@link #mustRefresh}) without its lock.
     */
    private final Map<String, Pending> pending = new ConcurrentHashMap<>();
    /**
     * The last change to items the searchers may show (marked superseded, deleted): until a
     * refresh covers it, their view of those items is stale, not only short of new items.
     */
    private volatile long changedShownAt;
    /** The last delete of a whole partition (its ids are not in {@link #pending}). */
    private volatile long partitionDeletedAt;
    /**
     * The last delete (of an item or a partition): every search must see it. A change a write
     * makes to items already shown (marking them superseded, replacing the same id) belongs to
     * the written item's entry in {@link #pending} instead: a search that leaves that item out
     * may read the index as it was before the write.
     */
    private volatile long deletedAt;
    /** Deletes by id buffered in the writer (for tests: none for ids new to the index). */
    private long deletesBuffered;

    RecallWriter(Directory directory, RecallAnalyzer analyzer, IndexSettings settings) throws IOException {
        this.settings = settings;
        this.analyzer = analyzer;
        this.detector = new SupersessionDetector(settings.supersessionMinCosine(), settings.supersessionMinOverlap());
        this.writer = openWriter(directory, analyzer, settings);
        this.searchers = new SearcherManager(writer, null);
        this.searchers.addListener(new ReferenceManager.RefreshListener() {
            @Override
            public void beforeRefresh() {
            }

            @Override
            public void afterRefresh(boolean didRefresh) {
                if (didRefresh) {
                    refreshes.incrementAndGet();
                }
            }
        });
    }

    /**
     * Opens the index in {@code directory}, or creates it. An index written by another major
     * version of Lucene (after an application moved between Lucene 9 and 10, see the README) is
     * unreadable here: it is replaced by an empty one, whose empty commit data tells the caller to
     * rebuild it from the log (the index is derived data).
     */
    private static IndexWriter openWriter(Directory directory, RecallAnalyzer analyzer, IndexSettings settings)
            throws IOException {
        try {
            return new IndexWriter(directory, config(analyzer, settings, IndexWriterConfig.OpenMode.CREATE_OR_APPEND));
        } catch (IndexFormatTooOldException | IndexFormatTooNewException e) {
            LOG.log(System.Logger.Level.WARNING, "the recall index was written by another Lucene version ("
                    + e.getMessage() + "); starting it anew, it is rebuilt from the memory log");
        } catch (IllegalArgumentException e) {
            if (!String.valueOf(e.getMessage()).startsWith("Could not load codec")) {
                throw e;
            }
            LOG.log(System.Logger.Level.WARNING, "the recall index was written with a codec this Lucene version"
                    + " does not have (" + e.getMessage() + "); starting it anew, it is rebuilt from the memory log");
        }
        // a new index reads the last commit too (to go on from its generation): remove the files first
        for (String file : directory.listAll()) {
            if (!file.equals(IndexWriter.WRITE_LOCK_NAME)) {
                directory.deleteFile(file);
            }
        }
        return new IndexWriter(directory, config(analyzer, settings, IndexWriterConfig.OpenMode.CREATE));
    }

    private static IndexWriterConfig config(RecallAnalyzer analyzer, IndexSettings settings, IndexWriterConfig.OpenMode mode) {
        IndexWriterConfig config = new IndexWriterConfig(analyzer);
        // the default codec of the Lucene on the class path: the index writes no vector field
        // (vectors and their codes are doc values), so nothing of ours is needed to read it
        config.setRAMBufferSizeMB(256);
        // A refresh flushes a small segment (a few items); packing each into a compound file
        // cost a copy and a checksum pass per refresh (a fifth of the indexer's time).
        config.setUseCompoundFile(false);
        TieredMergePolicy merges = new TieredMergePolicy();
        merges.setNoCFSRatio(0.0);
        merges.setForceMergeDeletesPctAllowed(0.0);
        config.setMergePolicy(merges);
        // By default a refresh waits up to 500 ms for merges of the segments it flushes (merge
        // on refresh), and a recall or the indexer then waited for merges: merges run beside them.
        config.setMaxFullFlushMergeWaitMillis(0);
        if (settings.serialMerges()) {
            config.setMergeScheduler(new SerialMergeScheduler());
        }
        config.setOpenMode(mode);
        return config;
    }

    /** The searchers; they show what was written as of the last refresh ({@link #refreshIfStale}). */
    SearcherManager searchers() {
        return searchers;
    }

    /** How many times the searchers were refreshed (and showed something new). */
    long refreshes() {
        return refreshes.get();
    }

    /**
     * Refreshes the searchers when a change was made since they were last refreshed; when it
     * returns, they show every change made before it was called. Any thread, with or without the
     * caller's write lock.
     */
    void refreshIfStale() throws IOException {
        long through = changes;
        if (through <= refreshedThrough.get()) {
            return;
        }
        searchers.maybeRefreshBlocking();
        refreshedThrough.accumulateAndGet(through, Math::max);
    }

    /**
     * Whether a search must refresh the searchers before it reads, for a caller that leaves the
     * items {@code leftOut} out of what it uses: yes when they do not show a delete or the write
     * of an item other than those; the writes of those items (with what they changed in items
     * already shown) may stay unshown, as if they had not been made yet. Any thread, without the
     * write lock; a change made concurrently (not returned before this call) may be missed.
     */
    boolean mustRefresh(Set<String> leftOut) {
        long shown = refreshedThrough.get();
        if (changes <= shown) {
            return false;
        }
        if (deletedAt > shown) {
            return true;
        }
        for (Map.Entry<String, Pending> e : pending.entrySet()) {
            Pending p = e.getValue();
            if (p.change() > shown && (!p.present() || !leftOut.contains(e.getKey()))) {
                return true;
            }
        }
        return false;
    }

    /** Numbers a change just made (the caller holds the write lock). */
    private long changed() {
        long c = changes + 1;
        changes = c;
        return c;
    }

    /**
     * A searcher, after forgetting what the searchers show by now: the refresh read before the
     * searcher is acquired shows at most what that searcher shows.
     */
    private IndexSearcher acquire() throws IOException {
        long shown = refreshedThrough.get();
        unrefreshed.removeIf(u -> u.change() <= shown);
        pending.values().removeIf(p -> p.change() <= shown);
        return searchers.acquire();
    }

    private boolean unshown(long change) {
        return change > refreshedThrough.get();
    }

    /**
     * The ids among {@code ids} that the index does not hold now, in their order: the changes
     * the searchers do not show yet first, then the searchers (no refresh, unless a whole
     * partition was deleted since the last one).
     */
    List<String> absent(List<String> ids) throws IOException {
        if (unshown(partitionDeletedAt)) {
            refreshIfStale();
        }
        IndexSearcher searcher = acquire();
        try {
            List<String> out = new ArrayList<>();
            for (String id : ids) {
                Pending now = pending.get(id);
                if (now == null ? IndexSchema.docOf(searcher, id) < 0 : !now.present()) {
                    out.add(id);
                }
            }
            return out;
        } finally {
            searchers.release(searcher);
        }
    }

    /**
     * From this many items, a write decides supersession for all of them at once
     * ({@link #upsertBatch}): one refresh for the batch instead of one for each item that could
     * pair with an item written since the last refresh.
     */
    static final int BATCH_FROM = 32;

    /**
     * At most this many items are decided in memory before they are written and the searchers
     * refreshed: each item is compared with every earlier item of its batch (a cosine each), and
     * with the index by code, so a larger batch costs more comparisons than the refreshes it saves.
     */
    static final int BATCH_MOST = 256;

    /**
     * Writes items in order (unit vectors at the same positions), each checked against the
     * partition's other items when supersession detection is on.
     */
    void upsertAll(List<IndexedItem> items, List<float[]> unit) throws IOException {
        if (!settings.detectSupersession()) {
            bulkWrite(items, unit);
        } else if (items.size() >= BATCH_FROM) {
            upsertBatch(items, unit);
        } else {
            upsertEach(items, unit);
        }
    }

    /**
     * Writes items one at a time, each checked against what the searcher shows: it is refreshed
     * only when something written since could change the check.
     */
    private void upsertEach(List<IndexedItem> items, List<float[]> unit) throws IOException {
        // Each item is checked against what was written before it. The searcher is
        // refreshed (a new segment) only when an item written since the last refresh
        // could change that check, or when a check or a delete changed items it shows.
        IndexSearcher searcher = acquire();
        try {
            for (int i = 0; i < items.size(); i++) {
                IndexedItem item = items.get(i);
                if (unshown(changedShownAt) || unshown(partitionDeletedAt) || mustSee(searcher, item, unit.get(i))) {
                    searchers.release(searcher);
                    searcher = null;
                    refreshIfStale();
                    searcher = acquire();
                }
                if (removeExisting(searcher, item.id())) {
                    searchers.release(searcher);
                    searcher = null;
                    changedShownAt = changed();
                    refreshIfStale();
                    searcher = acquire();
                }
                Set<String> terms = analyzer.terms(F_TEXT, item.text());
                Detection d = detect(searcher, item, unit.get(i), terms);
                writer.addDocument(IndexSchema.toDocument(new Stored(item.id(), item.partition(), item.text(),
                        item.time(), item.attributes(), d.supersededBy()), unit.get(i)));
                long c = written(item, unit.get(i));
                if (d.markedOthers()) {
                    changedShownAt = c;
                }
            }
        } finally {
            if (searcher != null) {
                searchers.release(searcher);
            }
        }
    }

    /**
     * Writes many items with one refresh: each item is checked, as {@link #upsertEach} would, against
     * the index as the refreshed searcher shows it plus the items of the batch before it, held in
     * memory with their supersession as decided so far; then the batch is written, with the
     * items of the index it marked superseded, and the searchers refreshed once. An item that
     * rewrites an id already indexed (or earlier in the batch) ends the batch and is written by
     * {@link #upsertEach} (its replacement re-decides the items the old version superseded).
     */
    private void upsertBatch(List<IndexedItem> items, List<float[]> unit) throws IOException {
        int from = 0;
        while (from < items.size()) {
            refreshIfStale();
            int next = from;
            boolean rewrite = false;
            IndexSearcher searcher = acquire();
            try {
                Batch batch = new Batch(searcher);
                int end = Math.min(items.size(), from + BATCH_MOST);
                while (next < end && !rewrite) {
                    if (batch.add(items.get(next), unit.get(next))) {
                        next++;
                    } else {
                        rewrite = true;
                    }
                }
                batch.write();
            } finally {
                searchers.release(searcher);
            }
            refreshIfStale();
            if (rewrite) {
                upsertEach(items.subList(next, next + 1), unit.subList(next, next + 1));
                next++;
            }
            from = next;
        }
    }

    /**
     * The items of a batch and the supersession decided for them and for the indexed items they
     * replace, in memory until {@link #write}. The searcher shows every change made before the
     * batch, so an item's check sees what {@link #upsertEach} would see: the indexed items of its
     * partition near it, with their status as of the batch's earlier items, and those items.
     */
    private final class Batch {
        private final IndexSearcher searcher;
        private final StoredFields stored;
        private final List<Entry> entries = new ArrayList<>();
        private final Map<String, Entry> byId = new HashMap<>();
        /** Indexed items whose status the batch changed: the item as it now is, and its document. */
        private final Map<String, Marked> marked = new HashMap<>();
        /** Items per partition that the searcher shows. */
        private final Map<String, Integer> indexed = new HashMap<>();
        /** The vectors of a partition's indexed items, for the checks that compare them all. */
        private final Map<String, IndexedVectors> vectors = new HashMap<>();
        /** The codes of a partition's indexed items, for the checks that scan them. */
        private final Map<String, CodeScan.Scope> scopes = new HashMap<>();
        /** Items per partition in the batch. */
        private final Map<String, Integer> added = new HashMap<>();

        Batch(IndexSearcher searcher) throws IOException {
            this.searcher = searcher;
            this.stored = searcher.storedFields();
        }

        /** Decides an item's supersession and keeps it; false (nothing kept) when it rewrites an id. */
        boolean add(IndexedItem item, float[] unit) throws IOException {
            if (byId.containsKey(item.id()) || pending.containsKey(item.id()) || IndexSchema.docOf(searcher, item.id()) >= 0) {
                return false;
            }
            Stored self = new Stored(item.id(), item.partition(), item.text(), item.time(), item.attributes(), null);
            Entry entry = new Entry(item, unit, SupersessionDetector.states(item.text()));
            Stored newest = null;
            if (entry.states) {
                Set<String> terms = analyzer.terms(F_TEXT, item.text());
                for (Candidate c : candidates(item.partition(), unit)) {
                    if (c.cosine() < detector.scanCosine()) {
                        continue; // no rule pairs it
                    }
                    Stored other = storedOf(c);
                    if (!pairs(self, terms, other, c.cosine())) {
                        continue;
                    }
                    if (newer(other, self)) {
                        if (newest == null || newer(other, newest)) {
                            newest = other;
                        }
                    } else if (other.supersededBy() == null || replacesCurrent(item, other.supersededBy())) {
                        mark(c, other, item.id());
                    }
                }
            }
            entry.supersededBy = newest == null ? null : newest.id();
            entries.add(entry);
            byId.put(item.id(), entry);
            added.merge(item.partition(), 1, Integer::sum);
            return true;
        }

        private int indexed(String partition) throws IOException {
            Integer known = indexed.get(partition);
            if (known == null) {
                known = searcher.count(IndexSchema.scopeFilter(partition, false));
                indexed.put(partition, known);
            }
            return known;
        }

        /**
         * What {@link #nearest} returns over the index and the batch: below the exact-search size,
         * every item whose cosine is at least the detector's minimum; else the
         * {@code detectionNeighbours} nearest, the batch's items (written after the indexed ones)
         * after indexed ones of equal cosine.
         */
        private List<Candidate> candidates(String partition, float[] unit) throws IOException {
            List<Candidate> out = new ArrayList<>();
            int inIndex = indexed(partition);
            boolean exact = inIndex + added.getOrDefault(partition, 0) <= settings.exactSearchBelow();
            int k = settings.detectionNeighbours();
            if (inIndex > 0) {
                if (exact) {
                    // what ExactScan.within finds, from the partition's vectors read once for the batch
                    IndexedVectors all = indexedVectors(partition);
                    for (int i = 0; i < all.docs().length; i++) {
                        double cosine = Vectors.cosine(unit, all.vectors()[i]);
                        if (cosine >= detector.scanCosine()) {
                            out.add(new Candidate(all.docs()[i], null, cosine));
                        }
                    }
                } else {
                    CodeScan.Scope scope = scopes.get(partition);
                    if (scope == null) {
                        scope = CodeScan.gather(searcher, partition, false, unit.length);
                        scopes.put(partition, scope);
                    }
                    for (ExactScan.Neighbour n : scope.nearest(unit, k, settings.shortlist(k))) {
                        out.add(new Candidate(n.doc(), null, n.cosine()));
                    }
                }
            }
            for (Entry e : entries) {
                if (e.item.partition().equals(partition)) {
                    double cosine = Vectors.cosine(e.unit, unit);
                    if (cosine >= detector.scanCosine()) {
                        out.add(new Candidate(-1, e, cosine));
                    }
                }
            }
            if (!exact) {
                out.sort((a, b) -> Double.compare(b.cosine(), a.cosine())); // stable: indexed first at equal cosine
                if (out.size() > k) {
                    out = new ArrayList<>(out.subList(0, k));
                }
            }
            return out;
        }

        /** The live documents of a partition the searcher shows, with their vectors, read on first use. */
        private IndexedVectors indexedVectors(String partition) throws IOException {
            IndexedVectors known = vectors.get(partition);
            if (known != null) {
                return known;
            }
            List<Integer> docs = new ArrayList<>();
            List<float[]> found = new ArrayList<>();
            Weight weight = searcher.createWeight(
                    searcher.rewrite(IndexSchema.scopeFilter(partition, false)),
                    ScoreMode.COMPLETE_NO_SCORES, 1f);
            for (LeafReaderContext leaf : searcher.getIndexReader().leaves()) {
                Scorer scorer = weight.scorer(leaf);
                if (scorer == null) {
                    continue;
                }
                Bits live = leaf.reader().getLiveDocs();
                SegmentVectors segment = SegmentVectors.of(leaf.reader());
                DocIdSetIterator it = scorer.iterator();
                for (int d = it.nextDoc(); d != DocIdSetIterator.NO_MORE_DOCS; d = it.nextDoc()) {
                    if (live != null && !live.get(d)) {
                        continue;
                    }
                    float[] v = segment.vector(d);
                    if (v == null) {
                        throw new IllegalStateException("recall index document " + (leaf.docBase + d) + " has no vector");
                    }
                    docs.add(leaf.docBase + d);
                    found.add(v.clone());
                }
            }
            int[] ids = new int[docs.size()];
            for (int i = 0; i < ids.length; i++) {
                ids[i] = docs.get(i);
            }
            IndexedVectors read = new IndexedVectors(ids, found.toArray(new float[0][]));
            vectors.put(partition, read);
            return read;
        }

        /** An item near the one being checked as it now is: the batch's status of it, not the searcher's. */
        private Stored storedOf(Candidate c) throws IOException {
            Entry e = c.entry();
            if (e != null) {
                IndexedItem item = e.item;
                return new Stored(item.id(), item.partition(), item.text(), item.time(), item.attributes(), e.supersededBy);
            }
            Stored loaded = IndexSchema.load(stored, c.doc());
            Marked m = marked.get(loaded.id());
            return m == null ? loaded : m.item();
        }

        /** Whether {@code item} is newer than the item {@code currentBy} (absent: yes). */
        private boolean replacesCurrent(IndexedItem item, String currentBy) throws IOException {
            Entry e = byId.get(currentBy);
            if (e != null) {
                return newer(item.time(), item.id(), e.item.time(), e.item.id());
            }
            return RecallWriter.replacesCurrent(searcher, item, currentBy);
        }

        private void mark(Candidate c, Stored other, String by) {
            if (c.entry() != null) {
                c.entry().supersededBy = by;
            } else {
                marked.put(other.id(), new Marked(other.withSupersededBy(by), c.doc()));
            }
        }

        /** Writes the batch's items and the indexed items it marked. */
        void write() throws IOException {
            for (Entry e : entries) {
                IndexedItem item = e.item;
                writer.addDocument(IndexSchema.toDocument(new Stored(item.id(), item.partition(), item.text(),
                        item.time(), item.attributes(), e.supersededBy), e.unit));
                written(item, e.unit);
            }
            for (Marked m : marked.values()) {
                writer.updateDocument(new Term(F_ID, m.item().id()),
                        IndexSchema.toDocument(m.item(), IndexSchema.vectorOf(searcher, m.doc())));
            }
            if (!marked.isEmpty()) {
                changedShownAt = changed();
            }
        }

        /** An item of the index (its document) or of the batch, near the item being checked. */
        private record Candidate(int doc, @Nullable Entry entry, double cosine) {
        }

        /** Documents of the searcher and their vectors, at the same positions. */
        private record IndexedVectors(int[] docs, float[][] vectors) {
        }

        /** An indexed item the batch marked superseded, as it now is, and its document in the searcher. */
        private record Marked(Stored item, int doc) {
        }
    }

    /** An item of a batch, and the id of the item that supersedes it as decided so far. */
    private static final class Entry {
        final IndexedItem item;
        final float[] unit;
        final boolean states;
        @Nullable String supersededBy;

        Entry(IndexedItem item, float[] unit, boolean states) {
            this.item = item;
            this.unit = unit;
            this.states = states;
        }
    }

    /** Numbers an item just written; the searchers show it after the next refresh. */
    private long written(IndexedItem item, float[] unit) {
        long c = changed();
        unrefreshed.add(new Unrefreshed(item, unit, SupersessionDetector.states(item.text()), c));
        pending.put(item.id(), new Pending(true, c));
        return c;
    }

    /**
     * Bulk write without supersession detection: one searcher for the whole batch, an id lookup
     * per item (the replacement path only runs for ids already indexed), one refresh at the end.
     * An id new to the index and to the batch is simply added: a delete-by-id buffered for each
     * item (what {@code updateDocument} does) costs a term lookup per item when the segment is
     * flushed, for nothing.
     */
    private void bulkWrite(List<IndexedItem> items, List<float[]> unit) throws IOException {
        if (unshown(changedShownAt) || unshown(partitionDeletedAt)) {
            refreshIfStale();
        }
        IndexSearcher searcher = acquire();
        try {
            for (int i = 0; i < items.size(); i++) {
                IndexedItem item = items.get(i);
                boolean indexed = IndexSchema.docOf(searcher, item.id()) >= 0;
                if (indexed) {
                    removeExisting(searcher, item.id());
                    changedShownAt = changed();
                }
                org.apache.lucene.document.Document doc = IndexSchema.toDocument(new Stored(item.id(), item.partition(),
                        item.text(), item.time(), item.attributes(), null), unit.get(i));
                // an id written since the last refresh (in this batch or before) is replaced
                if (!indexed && !pending.containsKey(item.id())) {
                    writer.addDocument(doc);
                } else {
                    writer.updateDocument(new Term(F_ID, item.id()), doc);
                }
                written(item, unit.get(i));
            }
        } finally {
            searchers.release(searcher);
        }
    }

    /** How many deletes by id were buffered so far. */
    long deletesBuffered() {
        return deletesBuffered;
    }

    /** Merges the index into one segment. */
    void optimize() throws IOException {
        writer.forceMerge(1);
        changed();
        refreshIfStale();
    }

    /**
     * Deletes the item with this id, restoring the items it superseded; whether it was there. An
     * id the index does not hold costs no refresh; one it holds is deleted from a refreshed view
     * (the items it superseded may have been written since the last refresh).
     */
    boolean delete(String id) throws IOException {
        if (absent(List.of(id)).size() == 1) {
            writer.deleteDocuments(new Term(F_ID, id)); // nothing to find; the buffered delete is harmless
            return false;
        }
        refreshIfStale();
        IndexSearcher searcher = acquire();
        boolean found;
        try {
            found = removeExisting(searcher, id);
        } finally {
            searchers.release(searcher);
        }
        long c = changed();
        pending.put(id, new Pending(false, c));
        changedShownAt = c;
        deletedAt = c;
        return found;
    }

    /** Deletes every item of a partition; how many there were. */
    int deletePartition(String partition) throws IOException {
        Term term = new Term(F_PARTITION, partition);
        refreshIfStale();
        IndexSearcher searcher = acquire();
        int count;
        try {
            count = searcher.count(new TermQuery(term));
        } finally {
            searchers.release(searcher);
        }
        writer.deleteDocuments(term);
        if (count > 0) {
            partitionDeletedAt = changed();
            changedShownAt = partitionDeletedAt;
            deletedAt = partitionDeletedAt;
        }
        return count;
    }

    /** The user data of the last commit (empty for a new index), or of the live commit data set since. */
    Map<String, String> commitData() {
        Map<String, String> out = new HashMap<>();
        Iterable<Map.Entry<String, String>> live = writer.getLiveCommitData();
        if (live != null) {
            live.forEach(e -> out.put(e.getKey(), e.getValue()));
        }
        return out;
    }

    /** Commits everything written so far with {@code data} as the commit's user data. */
    void commit(Map<String, String> data) throws IOException {
        writer.setLiveCommitData(Map.copyOf(data).entrySet());
        writer.commit();
    }

    /** Rewrites the segments holding deleted items and commits. */
    void purgeDeleted() throws IOException {
        writer.forceMergeDeletes(true);
        writer.commit();
        changed();
        refreshIfStale();
        writer.deleteUnusedFiles();
    }

    @Override
    public void close() throws IOException {
        searchers.close();
        writer.close();
    }

    /**
     * Removes the item with this id if present. The items it superseded are decided again
     * without it: each is superseded by the newest remaining item that replaces it, or current.
     */
    private boolean removeExisting(IndexSearcher searcher, String id) throws IOException {
        int doc = IndexSchema.docOf(searcher, id);
        Pending unshown = pending.get(id);
        // an id neither in the searcher nor written since its refresh is in no segment: a delete
        // buffered for it cost a term lookup in every segment at the next flush, for nothing
        if (doc >= 0 || (unshown != null && unshown.present())) {
            writer.deleteDocuments(new Term(F_ID, id));
            deletesBuffered++;
        }
        if (doc < 0) {
            return false;
        }
        TopDocs replaced = searcher.search(new TermQuery(new Term(F_SUPERSEDED_BY, id)), Integer.MAX_VALUE);
        StoredFields stored = searcher.storedFields();
        for (ScoreDoc sd : replaced.scoreDocs) {
            Stored old = IndexSchema.load(stored, sd.doc);
            float[] vector = IndexSchema.vectorOf(searcher, sd.doc);
            Stored newest = null;
            for (Replacement r : replacements(searcher, old, vector, analyzer.terms(F_TEXT, old.text()))) {
                if (!r.other().id().equals(id) && r.newer() && (newest == null || newer(r.other(), newest))) {
                    newest = r.other();
                }
            }
            writer.updateDocument(new Term(F_ID, old.id()),
                    IndexSchema.toDocument(old.withSupersededBy(newest == null ? null : newest.id()), vector));
        }
        return true;
    }

    /**
     * Compares a new item with every item of its partition (current and superseded) that the
     * detector pairs with it. Supersession is a function of the pair alone (the texts, vectors,
     * times and speakers of the two items), and an item is superseded by the newest item that
     * replaces it; so the partition's items decide it, not the order in which they were written
     * (the index rebuilt from the log ends in the same state as the live one). Older items whose
     * newest replacement is now this item are re-indexed as superseded by it; returns the newest
     * newer item that replaces this one, or null.
     */
    private Detection detect(IndexSearcher searcher, IndexedItem item, float[] unit, Set<String> itemTerms)
            throws IOException {
        Stored self = new Stored(item.id(), item.partition(), item.text(), item.time(), item.attributes(), null);
        Stored newest = null;
        boolean markedOthers = false;
        for (Replacement r : replacements(searcher, self, unit, itemTerms)) {
            Stored other = r.other();
            if (r.newer()) {
                if (newest == null || newer(other, newest)) {
                    newest = other;
                }
            } else if (other.supersededBy() == null || replacesCurrent(searcher, item, other.supersededBy())) {
                writer.updateDocument(new Term(F_ID, other.id()), IndexSchema.toDocument(other.withSupersededBy(item.id()),
                        IndexSchema.vectorOf(searcher, r.doc())));
                markedOthers = true;
            }
        }
        return new Detection(newest == null ? null : newest.id(), markedOthers);
    }

    /** Whether {@code item} is newer than the item {@code currentBy} (absent: yes). */
    private static boolean replacesCurrent(IndexSearcher searcher, IndexedItem item, String currentBy) throws IOException {
        int doc = IndexSchema.docOf(searcher, currentBy);
        if (doc < 0) {
            return true;
        }
        Stored by = IndexSchema.load(searcher.storedFields(), doc);
        return newer(item.time(), item.id(), by.time(), by.id());
    }

    /** An item of the partition that the detector pairs with a given one, and whether it is the newer of the two. */
    private record Replacement(int doc, Stored other, boolean newer) {
    }

    /**
     * The other items of {@code item}'s partition and speaker that the detector pairs with it
     * (questions and hypotheticals pair with nothing): a near-duplicate (cosine and term overlap,
     * names weighing little) or the same frame (same named subjects, and the same relation or a
     * negation of the other). The pair alone decides: no partition statistics.
     */
    private List<Replacement> replacements(IndexSearcher searcher, Stored item, float[] unit, Set<String> itemTerms)
            throws IOException {
        List<Replacement> out = new ArrayList<>();
        if (!SupersessionDetector.states(item.text())) {
            return out;
        }
        StoredFields stored = searcher.storedFields();
        for (ExactScan.Neighbour sd : nearest(searcher, item.partition(), unit)) {
            if (sd.cosine() < detector.scanCosine()) {
                continue; // no rule pairs it: not loaded
            }
            Stored other = IndexSchema.load(stored, sd.doc());
            if (pairs(item, itemTerms, other, sd.cosine())) {
                out.add(new Replacement(sd.doc(), other, newer(other, item)));
            }
        }
        return out;
    }

    /**
     * Whether the detector pairs two stating items at this cosine: same speaker, the other states
     * something too, and they are near-paraphrases or state the same frame.
     */
    private boolean pairs(Stored item, Set<String> itemTerms, Stored other, double cosine) {
        if (other.id().equals(item.id()) || !IndexSchema.sameSpeaker(other.attributes(), item.attributes())
                || !SupersessionDetector.states(other.text())) {
            return false;
        }
        return (cosine >= detector.minCosine() && nearParaphrase(cosine, item.text(), itemTerms, other.text()))
                || detector.sameFrame(cosine, StatementFrame.of(item.text()), StatementFrame.of(other.text()),
                text -> analyzer.terms(F_TEXT, text));
    }

    /**
     * The near-paraphrase rule at write time: cosine and weighted overlap (names weighing little),
     * and at least {@link SupersessionDetector#MIN_SHARED_TERMS} shared terms that are not names
     * (two chat turns that share one word, "great" or "thanks", are not two versions of a fact).
     */
    private boolean nearParaphrase(double cosine, String text, Set<String> terms, String otherText) {
        Set<String> otherTerms = analyzer.terms(F_TEXT, otherText);
        java.util.function.ToDoubleFunction<String> weights =
                SupersessionDetector.pairWeights(text, otherText, t -> analyzer.terms(F_TEXT, t));
        long shared = terms.stream().filter(t -> otherTerms.contains(t) && weights.applyAsDouble(t) >= 1).count();
        return shared >= SupersessionDetector.MIN_SHARED_TERMS && detector.sameSubject(cosine, terms, otherTerms, weights);
    }

    /** Whether {@code a} is newer than {@code b}: later, or at the same time with the greater id. */
    private static boolean newer(Stored a, Stored b) {
        return newer(a.time(), a.id(), b.time(), b.id());
    }

    private static boolean newer(Instant timeA, String idA, Instant timeB, String idB) {
        int c = timeA.compareTo(timeB);
        return c > 0 || (c == 0 && idA.compareTo(idB) > 0);
    }

    /**
     * The items of {@code partition} (current and superseded) near {@code unit}: below the exact-search size, every one whose
     * cosine is at least the detector's minimum (so that the check depends on the items alone),
     * else the {@code detectionNeighbours} nearest by {@link CodeScan}.
     */
    private List<ExactScan.Neighbour> nearest(IndexSearcher searcher, String partition, float[] unit) throws IOException {
        int k = settings.detectionNeighbours();
        Query filter = IndexSchema.scopeFilter(partition, false);
        if (ExactScan.matchesAtMost(searcher, filter, settings.exactSearchBelow())) {
            return ExactScan.within(searcher, filter, unit, detector.scanCosine());
        }
        return CodeScan.nearest(searcher, partition, false, unit, k, settings.shortlist(k));
    }

    /** What {@link #detect} found: the newer item that supersedes the new one, and whether it marked older ones. */
    private record Detection(@Nullable String supersededBy, boolean markedOthers) {
    }

    /** An item written, whether its text states something ({@link SupersessionDetector#states}), and the number of that change. */
    private record Unrefreshed(IndexedItem item, float[] unit, boolean states, long change) {
    }

    /** The last change to an id: whether it left the item in the index, and its number. */
    private record Pending(boolean present, long change) {
    }

    /**
     * Whether the searcher must be refreshed before {@code item} is checked: the items written
     * (or deleted) since the last refresh are invisible to it, which changes nothing only when
     * none of them has this id or was superseded by an item of this id (when the id is indexed,
     * its rewrite decides those again) or could change the check. In a partition the check scans in
     * full ({@link #nearest}: every item near enough), those are its possible near-duplicates
     * (same speaker, both stating something, cosine at least the detector's minimum). In one it
     * scans by code (the {@code detectionNeighbours} nearest), any item near enough takes one of
     * those places, whoever said it; and the searcher's count of the partition, which chooses
     * the scan, must count the unshown items when they could carry it past the exact-search size.
     */
    private boolean mustSee(IndexSearcher searcher, IndexedItem item, float[] unit) throws IOException {
        if (pending.containsKey(item.id())) {
            return true;
        }
        if (changes > refreshedThrough.get() && IndexSchema.docOf(searcher, item.id()) >= 0) {
            // a rewrite: the items its old version superseded are decided again, those written since included
            return true;
        }
        // a text that states nothing pairs with nothing (see replacements)
        if (!SupersessionDetector.states(item.text())) {
            return false;
        }
        int unshownHere = 0;
        for (Unrefreshed u : unrefreshed) {
            if (u.item().partition().equals(item.partition())) {
                unshownHere++;
            }
        }
        if (unshownHere == 0) {
            return false;
        }
        // at most this many items in the partition (the term's count includes deleted documents)
        long atMost = (long) searcher.getIndexReader().docFreq(new Term(F_PARTITION, item.partition())) + unshownHere;
        boolean byCode = atMost > settings.exactSearchBelow();
        if (byCode && ExactScan.matchesAtMost(searcher, IndexSchema.scopeFilter(item.partition(), false),
                settings.exactSearchBelow())) {
            return true; // the searcher may count too few to scan by code
        }
        for (Unrefreshed u : unrefreshed) {
            if (u.item().partition().equals(item.partition())
                    && (byCode || (u.states() && IndexSchema.sameSpeaker(u.item().attributes(), item.attributes())))
                    && Vectors.cosine(u.unit(), unit) >= detector.scanCosine()) {
                return true;
            }
        }
        return false;
    }
}

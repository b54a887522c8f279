package dev.agentmemory.langchain4j.recall;

import static dev.agentmemory.langchain4j.recall.IndexSchema.F_ID;
import static dev.agentmemory.langchain4j.recall.IndexSchema.F_PARTITION;
import static dev.agentmemory.langchain4j.recall.IndexSchema.F_SUPERSEDED_BY;
import static dev.agentmemory.langchain4j.recall.IndexSchema.F_TEXT;
import static dev.agentmemory.langchain4j.recall.IndexSchema.F_VECTOR;

import dev.agentmemory.langchain4j.recall.IndexSchema.Stored;
import java.io.Closeable;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.ToDoubleFunction;
import org.apache.lucene.codecs.KnnVectorsFormat;
import org.apache.lucene.codecs.lucene912.Lucene912Codec;
import org.apache.lucene.codecs.lucene99.Lucene99HnswVectorsFormat;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.TieredMergePolicy;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.Directory;
import org.jspecify.annotations.Nullable;

/**
 * The write side of the recall index: the Lucene writer and its searcher refreshes, replacing
 * and deleting items, and write-time supersession detection (a new item is compared with the
 * current near neighbours of its partition). Not thread-safe: the caller serializes every call.
 */
final class RecallWriter implements Closeable {

    private final IndexSettings settings;
    private final RecallAnalyzer analyzer;
    private final SupersessionDetector detector;
    private final IndexWriter writer;
    private final SearcherManager searchers;

    RecallWriter(Directory directory, RecallAnalyzer analyzer, IndexSettings settings) throws IOException {
        this.settings = settings;
        this.analyzer = analyzer;
        this.detector = new SupersessionDetector(settings.supersessionMinCosine(), settings.supersessionMinOverlap());
        IndexWriterConfig config = new IndexWriterConfig(analyzer);
        int maxConn = settings.hnswMaxConn();
        int beamWidth = settings.hnswBeamWidth();
        config.setCodec(new Lucene912Codec() {
            @Override
            public KnnVectorsFormat getKnnVectorsFormatForField(String field) {
                return new Lucene99HnswVectorsFormat(maxConn, beamWidth);
            }
        });
        config.setRAMBufferSizeMB(256);
        // Every write is followed by a refresh that flushes a small segment; packing each into a
        // compound file cost a copy and a checksum pass per write (a fifth of the indexer's time).
        config.setUseCompoundFile(false);
        TieredMergePolicy merges = new TieredMergePolicy();
        merges.setNoCFSRatio(0.0);
        merges.setForceMergeDeletesPctAllowed(0.0);
        config.setMergePolicy(merges);
        config.setOpenMode(IndexWriterConfig.OpenMode.CREATE_OR_APPEND);
        this.writer = new IndexWriter(directory, config);
        this.searchers = new SearcherManager(writer, null);
    }

    /** The searchers over what was written (each write refreshes them before it returns). */
    SearcherManager searchers() {
        return searchers;
    }

    /**
     * Writes items in order (unit vectors at the same positions), each checked against what was
     * written before it when supersession detection is on.
     */
    void upsertAll(List<IndexedItem> items, List<float[]> unit) throws IOException {
        if (!settings.detectSupersession()) {
            bulkWrite(items, unit);
            return;
        }
        // Each item is checked against what was written before it. The searcher is
        // refreshed (a new segment) only when an item written since the last refresh
        // could change that check, or when a check changed items already indexed.
        List<Unrefreshed> unrefreshed = new ArrayList<>();
        boolean changedIndexed = false;
        IndexSearcher searcher = searchers.acquire();
        try {
            for (int i = 0; i < items.size(); i++) {
                IndexedItem item = items.get(i);
                if (changedIndexed || mustSee(unrefreshed, item, unit.get(i))) {
                    searchers.release(searcher);
                    searcher = null;
                    searchers.maybeRefreshBlocking();
                    searcher = searchers.acquire();
                    unrefreshed.clear();
                }
                boolean replaced = removeExisting(searcher, item.id());
                Set<String> terms = analyzer.terms(F_TEXT, item.text());
                Detection d = detect(searcher, item, unit.get(i), terms, unrefreshed);
                writer.addDocument(IndexSchema.toDocument(new Stored(item.id(), item.partition(), item.text(),
                        item.time(), item.attributes(), d.supersededBy()), unit.get(i)));
                changedIndexed = replaced || d.markedOthers();
                unrefreshed.add(new Unrefreshed(item, unit.get(i), terms));
            }
        } finally {
            if (searcher != null) {
                searchers.release(searcher);
            }
        }
        searchers.maybeRefreshBlocking();
    }

    /**
     * Bulk write without supersession detection: one searcher for the whole batch, an id lookup
     * per item (the replacement path only runs for ids already indexed), one refresh at the end.
     */
    private void bulkWrite(List<IndexedItem> items, List<float[]> unit) throws IOException {
        IndexSearcher searcher = searchers.acquire();
        try {
            for (int i = 0; i < items.size(); i++) {
                IndexedItem item = items.get(i);
                if (IndexSchema.docOf(searcher, item.id()) >= 0) {
                    removeExisting(searcher, item.id());
                }
                writer.updateDocument(new Term(F_ID, item.id()), IndexSchema.toDocument(new Stored(item.id(), item.partition(),
                        item.text(), item.time(), item.attributes(), null), unit.get(i)));
            }
        } finally {
            searchers.release(searcher);
        }
        searchers.maybeRefreshBlocking();
    }

    /** Merges the index into one segment. */
    void optimize() throws IOException {
        writer.forceMerge(1);
        searchers.maybeRefreshBlocking();
    }

    /** Deletes the item with this id, restoring the items it superseded; whether it was there. */
    boolean delete(String id) throws IOException {
        IndexSearcher searcher = searchers.acquire();
        boolean found;
        try {
            found = removeExisting(searcher, id);
        } finally {
            searchers.release(searcher);
        }
        searchers.maybeRefreshBlocking();
        return found;
    }

    /** Deletes every item of a partition; how many there were. */
    int deletePartition(String partition) throws IOException {
        Term term = new Term(F_PARTITION, partition);
        IndexSearcher searcher = searchers.acquire();
        int count;
        try {
            count = searcher.count(new TermQuery(term));
        } finally {
            searchers.release(searcher);
        }
        writer.deleteDocuments(term);
        searchers.maybeRefreshBlocking();
        return count;
    }

    /** Rewrites the segments holding deleted items and commits. */
    void purgeDeleted() throws IOException {
        writer.forceMergeDeletes(true);
        writer.commit();
        searchers.maybeRefreshBlocking();
        writer.deleteUnusedFiles();
    }

    @Override
    public void close() throws IOException {
        searchers.close();
        writer.close();
    }

    /** Removes the item with this id if present, restoring the items it superseded. */
    private boolean removeExisting(IndexSearcher searcher, String id) throws IOException {
        writer.deleteDocuments(new Term(F_ID, id));
        int doc = IndexSchema.docOf(searcher, id);
        if (doc < 0) {
            return false;
        }
        TopDocs replaced = searcher.search(new TermQuery(new Term(F_SUPERSEDED_BY, id)), Integer.MAX_VALUE);
        StoredFields stored = searcher.storedFields();
        for (ScoreDoc sd : replaced.scoreDocs) {
            Stored old = IndexSchema.load(stored, sd.doc);
            writer.updateDocument(new Term(F_ID, old.id()), IndexSchema.toDocument(old.withSupersededBy(null),
                    IndexSchema.vectorOf(searcher, sd.doc)));
        }
        return true;
    }

    /**
     * Compares a new item with the current near neighbours of its partition. Older near-duplicates
     * are re-indexed as superseded by the new item; returns the id of a newer near-duplicate that
     * supersedes the new item itself, or null.
     */
    private Detection detect(IndexSearcher searcher, IndexedItem item, float[] unit, Set<String> itemTerms,
                             List<Unrefreshed> unrefreshed) throws IOException {
        Query filter = IndexSchema.scopeFilter(item.partition(), true);
        List<ExactScan.Neighbour> near = nearest(searcher, filter, unit);
        ToDoubleFunction<String> idf = null;
        String supersededBy = null;
        Instant newestReplacement = null;
        boolean markedOthers = false;
        StoredFields stored = searcher.storedFields();
        for (ExactScan.Neighbour sd : near) {
            double cosine = sd.cosine();
            if (cosine < detector.minCosine()) {
                continue;
            }
            Stored other = IndexSchema.load(stored, sd.doc());
            if (other.id().equals(item.id()) || !IndexSchema.sameSpeaker(other.attributes(), item.attributes())) {
                continue;
            }
            if (idf == null) {
                List<Set<String>> pending = new ArrayList<>();
                pending.add(itemTerms);
                for (Unrefreshed u : unrefreshed) {
                    if (u.item().partition().equals(item.partition())) {
                        pending.add(u.terms());
                    }
                }
                idf = PartitionIdf.of(searcher, item.partition(), pending);
            }
            if (!detector.sameSubject(cosine, itemTerms, analyzer.terms(F_TEXT, other.text()), idf)) {
                continue;
            }
            if (!other.time().isAfter(item.time())) {
                writer.updateDocument(new Term(F_ID, other.id()), IndexSchema.toDocument(other.withSupersededBy(item.id()),
                        IndexSchema.vectorOf(searcher, sd.doc())));
                markedOthers = true;
            } else if (newestReplacement == null || other.time().isAfter(newestReplacement)) {
                newestReplacement = other.time();
                supersededBy = other.id();
            }
        }
        return new Detection(supersededBy, markedOthers);
    }

    /**
     * The current items nearest to {@code unit}: exact below the exact-search size (so that the
     * check does not depend on the HNSW graph), else the graph's approximate neighbours.
     */
    private List<ExactScan.Neighbour> nearest(IndexSearcher searcher, Query filter, float[] unit) throws IOException {
        int k = settings.detectionNeighbours();
        if (searcher.count(filter) <= settings.exactSearchBelow()) {
            return ExactScan.nearest(searcher, filter, unit, k);
        }
        TopDocs near = searcher.search(new KnnFloatVectorQuery(F_VECTOR, unit, k, filter), k);
        List<ExactScan.Neighbour> out = new ArrayList<>(near.scoreDocs.length);
        for (ScoreDoc sd : near.scoreDocs) {
            out.add(new ExactScan.Neighbour(sd.doc, Vectors.dotScoreToCosine(sd.score)));
        }
        return out;
    }

    /** What {@link #detect} found: the newer item that supersedes the new one, and whether it marked older ones. */
    private record Detection(@Nullable String supersededBy, boolean markedOthers) {
    }

    /** An item of the current batch written since the searcher was last refreshed. */
    private record Unrefreshed(IndexedItem item, float[] unit, Set<String> terms) {
    }

    /**
     * Whether the searcher must be refreshed before {@code item} is checked: the batch's items
     * written since the last refresh are invisible to it, which changes nothing only when none of
     * them has this id or could be one of its near-duplicates (same partition and speaker, cosine
     * at least the detector's minimum). Their terms are counted in the idf separately.
     */
    private boolean mustSee(List<Unrefreshed> unrefreshed, IndexedItem item, float[] unit) {
        for (Unrefreshed u : unrefreshed) {
            if (u.item().id().equals(item.id())) {
                return true;
            }
            if (u.item().partition().equals(item.partition()) && IndexSchema.sameSpeaker(u.item().attributes(), item.attributes())
                    && Vectors.cosine(u.unit(), unit) >= detector.minCosine()) {
                return true;
            }
        }
        return false;
    }
}

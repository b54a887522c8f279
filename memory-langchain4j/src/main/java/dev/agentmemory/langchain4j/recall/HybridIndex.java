package dev.agentmemory.langchain4j.recall;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import org.apache.lucene.codecs.KnnVectorsFormat;
import org.apache.lucene.codecs.lucene912.Lucene912Codec;
import org.apache.lucene.codecs.lucene99.Lucene99HnswVectorsFormat;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.IndexableField;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.index.TieredMergePolicy;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.NRTCachingDirectory;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.FixedBitSet;
import org.jspecify.annotations.Nullable;

/**
 * Hybrid episodic index: dense HNSW search (cosine over caller-supplied embeddings) fused with
 * BM25 lexical scoring (English stemming and stop words, CJK bigrams) and a mild recency prior,
 * over items grouped in partitions (tenant + user). Built on Apache Lucene.
 *
 * <p><b>Isolation.</b> Every search is restricted to one partition by a filter inside the Lucene
 * queries themselves (both the vector and the lexical query), so no hit can come from another
 * partition, whatever the scores.
 *
 * <p><b>Knowledge updates.</b> When an item is written, its nearest neighbours in the partition
 * are checked; a current item that says nearly the same thing about the same subject (high
 * embedding similarity and high overlap of content terms) but is older is marked superseded by
 * the new one (if the new one is older, it is the one marked). Superseded items are left out of
 * searches unless {@link RecallQuery#includeSuperseded()} asks for them, in which case they are
 * demoted and flagged. Deleting the newer item restores the older one. Optionally, at read time,
 * among the best results of a query, an older result that is a looser near-duplicate of a newer one and
 * shares the query's distinctive terms with it is treated the same way for that read. Only
 * items of the same {@linkplain #SPEAKER_ATTRIBUTE speaker} can replace each other.
 *
 * <p><b>Threading.</b> Thread-safe: writes are serialized, searches run concurrently and see every
 * write that returned before they started. Writes are visible immediately; a directory-backed
 * index commits on {@link #close()} (it is derived data, rebuilt from the memory log if lost).
 */
public final class HybridIndex implements AutoCloseable {

    /**
     * Attribute naming who asserted an item (e.g. the speaker of a message). Supersession only
     * happens between items asserted by the same party: one person's statement never replaces
     * another's. Items without it count as asserted by the partition's owner.
     */
    public static final String SPEAKER_ATTRIBUTE = "speaker";

    static final String F_ID = "id";
    static final String F_PARTITION = "partition";
    static final String F_TEXT = "text";
    static final String F_VECTOR = "vector";
    static final String F_TIME = "time";
    /** Doc values for ranking without loading stored fields: time (seconds, nanos) and a superseded flag. */
    static final String F_TIME_SECONDS = "time_s";
    static final String F_TIME_NANOS = "time_n";
    static final String F_SUPERSEDED_FLAG = "superseded_flag";
    static final String F_ATTR_KEY = "attr_k";
    static final String F_ATTR_VALUE = "attr_v";
    static final String F_STATUS = "status";
    static final String F_SUPERSEDED_BY = "superseded_by";
    static final String CURRENT = "current";
    static final String SUPERSEDED = "superseded";

    private final int dimensions;
    private final Settings settings;
    private final Directory directory;
    private final RecallAnalyzer analyzer = new RecallAnalyzer();
    private final IndexWriter writer;
    private final SearcherManager searchers;
    private final SupersessionDetector detector;
    private final SupersessionDetector readDetector;
    private final Object writeLock = new Object();
    private volatile boolean closed;

    private HybridIndex(Builder b) throws IOException {
        this.dimensions = b.dimensions;
        this.settings = new Settings(b);
        // On disk, new small segments stay in memory until merged or committed (Lucene's
        // near-real-time cache): a refresh after each write then costs no file creation.
        this.directory = b.path == null ? new ByteBuffersDirectory()
                : new NRTCachingDirectory(FSDirectory.open(b.path), 8, 64);
        this.detector = new SupersessionDetector(b.supersessionMinCosine, b.supersessionMinOverlap);
        this.readDetector = new SupersessionDetector(b.readMinCosine, b.readMinOverlap);
        IndexWriterConfig config = new IndexWriterConfig(analyzer);
        int maxConn = b.hnswMaxConn;
        int beamWidth = b.hnswBeamWidth;
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

    /** An index held in memory (Lucene {@code ByteBuffersDirectory}) with default settings. */
    public static HybridIndex inMemory(int dimensions) {
        return builder(dimensions).build();
    }

    /** An index kept in the given directory (created if missing), default settings otherwise. */
    public static HybridIndex inDirectory(Path path, int dimensions) {
        return builder(dimensions).directory(path).build();
    }

    /** A builder for an index of vectors with the given number of dimensions. */
    public static Builder builder(int dimensions) {
        return new Builder(dimensions);
    }

    /** Number of dimensions every vector must have. */
    public int dimensions() {
        return dimensions;
    }

    /**
     * Adds an item, replacing any item with the same id (in any partition), then checks whether it
     * replaces, or is replaced by, a near-duplicate of its partition.
     *
     * @throws IllegalArgumentException when the vector has the wrong number of dimensions or is zero
     */
    public void upsert(IndexedItem item) {
        upsertAll(List.of(requireNonNull(item, "item")));
    }

    /**
     * Adds items in order, as if {@link #upsert} were called for each. Every item is validated
     * before anything is written. With supersession detection off, the whole list is written in
     * one batch (fast bulk load).
     */
    public void upsertAll(List<IndexedItem> items) {
        requireNonNull(items, "items");
        List<float[]> unit = new ArrayList<>(items.size());
        for (IndexedItem item : items) {
            unit.add(unitVector(requireNonNull(item, "item").vectorNoCopy(), "item " + item.id()));
        }
        synchronized (writeLock) {
            ensureOpen();
            try {
                if (!settings.detectSupersession) {
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
                        writer.addDocument(toDocument(new Stored(item.id(), item.partition(), item.text(),
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
            } catch (IOException e) {
                throw new UncheckedIOException("writing to the recall index failed", e);
            }
        }
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
                if (docOf(searcher, item.id()) >= 0) {
                    removeExisting(searcher, item.id());
                }
                writer.updateDocument(new Term(F_ID, item.id()), toDocument(new Stored(item.id(), item.partition(),
                        item.text(), item.time(), item.attributes(), null), unit.get(i)));
            }
        } finally {
            searchers.release(searcher);
        }
        searchers.maybeRefreshBlocking();
    }

    /**
     * Merges the index into a single segment (one HNSW graph), which makes vector search both
     * faster and more accurate after a bulk load. Costs a rewrite of the whole index; call it
     * once after loading many items, not after every write.
     */
    public void optimize() {
        synchronized (writeLock) {
            ensureOpen();
            try {
                writer.forceMerge(1);
                searchers.maybeRefreshBlocking();
            } catch (IOException e) {
                throw new UncheckedIOException("merging the recall index failed", e);
            }
        }
    }

    /**
     * Deletes the item with this id; items it had superseded become current again.
     *
     * @return true when an item was deleted
     */
    public boolean delete(String id) {
        requireNonNull(id, "id");
        synchronized (writeLock) {
            ensureOpen();
            try {
                IndexSearcher searcher = searchers.acquire();
                boolean found;
                try {
                    found = removeExisting(searcher, id);
                } finally {
                    searchers.release(searcher);
                }
                searchers.maybeRefreshBlocking();
                return found;
            } catch (IOException e) {
                throw new UncheckedIOException("deleting " + id + " from the recall index failed", e);
            }
        }
    }

    /**
     * Deletes every item of a partition (supersession never crosses partitions, so nothing else
     * changes).
     *
     * @return the number of items deleted
     */
    public int deletePartition(String partition) {
        requireNonNull(partition, "partition");
        synchronized (writeLock) {
            ensureOpen();
            try {
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
            } catch (IOException e) {
                throw new UncheckedIOException("deleting partition " + partition + " failed", e);
            }
        }
    }

    /**
     * Rewrites the segments that hold deleted items and commits, so that the text and vectors of
     * deleted items leave the index files (a hard forget is only complete after this). Costs a
     * rewrite of those segments; call it when compacting, not after every delete.
     */
    public void purgeDeleted() {
        synchronized (writeLock) {
            ensureOpen();
            try {
                writer.forceMergeDeletes(true);
                writer.commit();
                searchers.maybeRefreshBlocking();
                writer.deleteUnusedFiles();
            } catch (IOException e) {
                throw new UncheckedIOException("purging deleted items from the recall index failed", e);
            }
        }
    }

    /** The item with this id, if present, as it was written (vector normalised to unit length). */
    public Optional<IndexedItem> find(String id) {
        requireNonNull(id, "id");
        ensureOpen();
        try {
            IndexSearcher searcher = searchers.acquire();
            try {
                int doc = docOf(searcher, id);
                if (doc < 0) {
                    return Optional.empty();
                }
                Stored s = load(searcher.storedFields(), doc);
                return Optional.of(new IndexedItem(s.id, s.partition, s.text, vectorOf(searcher, doc), s.time,
                        s.attributes));
            } finally {
                searchers.release(searcher);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + id + " from the recall index failed", e);
        }
    }

    /**
     * The id of the item that superseded this one; empty when the item is current or absent.
     */
    public Optional<String> supersededBy(String id) {
        requireNonNull(id, "id");
        ensureOpen();
        try {
            IndexSearcher searcher = searchers.acquire();
            try {
                int doc = docOf(searcher, id);
                return doc < 0 ? Optional.empty()
                        : Optional.ofNullable(load(searcher.storedFields(), doc).supersededBy);
            } finally {
                searchers.release(searcher);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + id + " from the recall index failed", e);
        }
    }

    /** Number of items (superseded ones included) in all partitions. */
    public int size() {
        ensureOpen();
        try {
            IndexSearcher searcher = searchers.acquire();
            try {
                return searcher.getIndexReader().numDocs();
            } finally {
                searchers.release(searcher);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("reading the recall index failed", e);
        }
    }

    /**
     * Searches one partition. Hits are ordered by fused score, best first; never more than
     * {@code maxResults}, never from another partition; superseded items only when asked for.
     * Returns an empty list when nothing matches.
     *
     * @throws IllegalArgumentException when the query vector has the wrong number of dimensions or is zero
     */
    public List<RecallHit> search(RecallQuery query) {
        requireNonNull(query, "query");
        float[] vector = query.vectorNoCopy() == null ? null : unitVector(query.vectorNoCopy(), "query vector");
        ensureOpen();
        try {
            IndexSearcher searcher = searchers.acquire();
            try {
                return search(searcher, query, vector);
            } finally {
                searchers.release(searcher);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("searching the recall index failed", e);
        }
    }

    @Override
    public void close() {
        synchronized (writeLock) {
            if (closed) {
                return;
            }
            closed = true;
            try {
                searchers.close();
                writer.close();
                directory.close();
            } catch (IOException e) {
                throw new UncheckedIOException("closing the recall index failed", e);
            }
        }
    }

    // ---------------------------------------------------------------- search

    private List<RecallHit> search(IndexSearcher searcher, RecallQuery query, float @Nullable [] vector)
            throws IOException {
        Query filter = scopeFilter(query.partition(), !query.includeSuperseded());
        int fetch = Math.max(settings.minCandidates, query.maxResults() * settings.candidateFactor);
        Map<Integer, Candidate> candidates = new LinkedHashMap<>();
        if (vector != null) {
            // The vector search is most of a query's cost and grows with k; it needs fewer
            // candidates than BM25, since lexical-only candidates get their cosine read anyway.
            int k = Math.max(settings.minDenseCandidates, query.maxResults() * settings.denseCandidateFactor);
            TopDocs dense = searcher.search(new KnnFloatVectorQuery(F_VECTOR, vector, k, filter), k);
            for (ScoreDoc sd : dense.scoreDocs) {
                candidates.computeIfAbsent(sd.doc, Candidate::new).dense = dotScoreToCosine(sd.score);
            }
        }
        Query lexical = lexicalQuery(query.text());
        double maxLexical = 0;
        if (lexical != null) {
            Query scoped = new BooleanQuery.Builder()
                    .add(lexical, BooleanClause.Occur.MUST)
                    .add(filter, BooleanClause.Occur.FILTER)
                    .build();
            TopDocs lex = searcher.search(scoped, fetch);
            for (ScoreDoc sd : lex.scoreDocs) {
                candidates.computeIfAbsent(sd.doc, Candidate::new).lexical = sd.score;
                maxLexical = Math.max(maxLexical, sd.score);
            }
        }
        StoredFields stored = searcher.storedFields();
        List<Candidate> pool = new ArrayList<>(candidates.values());
        readRankingFields(searcher, stored, pool, vector);
        List<Scored> scored = new ArrayList<>(pool.size());
        for (Candidate c : pool) {
            double dense = Double.isNaN(c.dense) ? 0 : settings.denseWeight * Math.max(0, c.dense);
            double lex = maxLexical > 0 && !Double.isNaN(c.lexical) ? settings.lexicalWeight * (c.lexical / maxLexical) : 0;
            double recency = settings.recencyWeight * recencyPrior(c.time, query.now());
            double score = dense + lex + recency;
            if (c.superseded) {
                score *= settings.supersededDemotion;
            }
            if (score >= query.minScore()) {
                boolean hasVector = vector != null;
                // explained only for the hits returned: formatting every candidate's reason costs more than scoring it
                scored.add(new Scored(c.doc, c.time, c.stored, score,
                        s -> why(hasVector, c, dense, lex, recency, s.supersededBy)));
            }
        }
        scored.sort(BEST_FIRST);
        if (settings.readTimeSupersession && lexical != null) {
            scored = resolveAtReadTime(searcher, stored, query, scored);
        }
        // Stored fields (text, attributes) are read only for the hits returned.
        List<RecallHit> hits = new ArrayList<>(Math.min(query.maxResults(), scored.size()));
        for (Scored sc : scored) {
            if (hits.size() == query.maxResults()) {
                break;
            }
            Stored s = sc.stored(stored);
            hits.add(new RecallHit(s.id, sc.score, s.text, s.time, s.attributes, sc.why.apply(s), s.supersededBy != null,
                    s.supersededBy));
        }
        return hits;
    }

    /**
     * Reads each candidate's time and superseded flag from doc values, visiting documents in
     * order; a document indexed before those doc values existed has its stored fields loaded.
     * A candidate found only lexically gets its cosine to {@code vector} here, with one vector
     * reader per segment.
     */
    private static void readRankingFields(IndexSearcher searcher, StoredFields stored, List<Candidate> candidates,
                                          float @Nullable [] vector) throws IOException {
        List<Candidate> byDoc = new ArrayList<>(candidates);
        byDoc.sort(Comparator.comparingInt(c -> c.doc));
        List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
        int leafIndex = -1;
        LeafReaderContext leaf = null;
        NumericDocValues seconds = null;
        NumericDocValues nanos = null;
        NumericDocValues superseded = null;
        FloatVectorValues vectors = null;
        for (Candidate c : byDoc) {
            int li = ReaderUtil.subIndex(c.doc, leaves);
            if (li != leafIndex) {
                leafIndex = li;
                leaf = leaves.get(li);
                seconds = leaf.reader().getNumericDocValues(F_TIME_SECONDS);
                nanos = leaf.reader().getNumericDocValues(F_TIME_NANOS);
                superseded = leaf.reader().getNumericDocValues(F_SUPERSEDED_FLAG);
                vectors = vector == null ? null : leaf.reader().getFloatVectorValues(F_VECTOR);
            }
            int target = c.doc - leaf.docBase;
            if (vector != null && Double.isNaN(c.dense)) {
                if (vectors == null || vectors.advance(target) != target) {
                    throw new IllegalStateException("recall index document " + c.doc + " has no vector");
                }
                c.dense = cosine(vector, vectors.vectorValue());
            }
            if (seconds != null && nanos != null && seconds.advanceExact(target) && nanos.advanceExact(target)) {
                c.time = Instant.ofEpochSecond(seconds.longValue(), nanos.longValue());
                c.superseded = superseded != null && superseded.advanceExact(target) && superseded.longValue() != 0;
            } else {
                c.stored = load(stored, c.doc);
                c.time = c.stored.time;
                c.superseded = c.stored.supersededBy != null;
            }
        }
    }

    /**
     * Among the best current results, an older result that is a near-duplicate of a newer one and
     * shares the query's subject with it is another version of the same fact: it is marked
     * superseded by the newer one for this read (dropped, or demoted and flagged when superseded
     * items are asked for).
     */
    private List<Scored> resolveAtReadTime(IndexSearcher searcher, StoredFields stored, RecallQuery query,
                                           List<Scored> scored) throws IOException {
        int window = Math.min(scored.size(), query.maxResults() + settings.readTimeWindowExtra);
        Set<String> queryTerms = analyzer.terms(F_TEXT, query.text());
        ToDoubleFunction<String> idf = partitionIdf(searcher, query.partition(), List.of());
        List<Stored> docs = new ArrayList<>(window);
        List<Set<String>> terms = new ArrayList<>(window);
        List<float[]> vectors = new ArrayList<>(window);
        for (int i = 0; i < window; i++) {
            Stored s = scored.get(i).stored(stored);
            docs.add(s);
            terms.add(analyzer.terms(F_TEXT, s.text));
            vectors.add(vectorOf(searcher, scored.get(i).doc));
        }
        List<Scored> out = new ArrayList<>(scored.size());
        for (int b = 0; b < scored.size(); b++) {
            Scored older = scored.get(b);
            String newer = null;
            if (b < window && docs.get(b).supersededBy == null) {
                Stored o = docs.get(b);
                for (int a = 0; a < window && newer == null; a++) {
                    Stored candidate = docs.get(a);
                    if (a != b && candidate.supersededBy == null
                            && sameSpeaker(candidate.attributes, o.attributes)
                            && candidate.time.isAfter(o.time)
                            && readDetector.sameSubjectForQuery(cosine(vectors.get(a), vectors.get(b)), terms.get(a),
                            terms.get(b), queryTerms, settings.readTimeMinQueryCoverage, idf)) {
                        newer = candidate.id;
                    }
                }
            }
            if (newer == null) {
                out.add(older);
            } else if (query.includeSuperseded()) {
                String by = newer;
                Stored o = docs.get(b);
                out.add(new Scored(older.doc, older.time, o.withSupersededBy(by), older.score * settings.supersededDemotion,
                        s -> older.why.apply(o) + "; superseded by " + by + " (same subject as the query, newer), demoted"));
            }
        }
        out.sort(BEST_FIRST);
        return out;
    }

    private static boolean sameSpeaker(Map<String, String> a, Map<String, String> b) {
        return java.util.Objects.equals(a.get(SPEAKER_ATTRIBUTE), b.get(SPEAKER_ATTRIBUTE));
    }

    private static String why(boolean hasVector, Candidate c, double dense, double lex, double recency,
                              @Nullable String supersededBy) {
        StringBuilder sb = new StringBuilder();
        if (hasVector) {
            sb.append(String.format(Locale.ROOT, "dense %.2f (cosine %.2f)", dense, c.dense));
        }
        if (!Double.isNaN(c.lexical)) {
            if (sb.length() > 0) {
                sb.append(" + ");
            }
            sb.append(String.format(Locale.ROOT, "lexical %.2f (bm25 %.2f)", lex, c.lexical));
        }
        if (sb.length() > 0) {
            sb.append(" + ");
        }
        sb.append(String.format(Locale.ROOT, "recency %.2f", recency));
        if (supersededBy != null) {
            sb.append("; superseded by ").append(supersededBy).append(", demoted");
        }
        return sb.toString();
    }

    private double recencyPrior(Instant time, Instant now) {
        double ageSeconds = Math.max(0, Duration.between(time, now).toSeconds());
        return Math.pow(0.5, ageSeconds / settings.recencyHalfLife.toSeconds());
    }

    private Query scopeFilter(String partition, boolean currentOnly) {
        BooleanQuery.Builder b = new BooleanQuery.Builder()
                .add(new TermQuery(new Term(F_PARTITION, partition)), BooleanClause.Occur.FILTER);
        if (currentOnly) {
            b.add(new TermQuery(new Term(F_STATUS, CURRENT)), BooleanClause.Occur.FILTER);
        }
        return b.build();
    }

    private @Nullable Query lexicalQuery(String text) {
        if (text.isBlank()) {
            return null;
        }
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (String t : analyzer.terms(F_TEXT, text)) {
            counts.merge(t, 1, Integer::sum);
        }
        if (counts.isEmpty()) {
            return null;
        }
        BooleanQuery.Builder b = new BooleanQuery.Builder();
        int clauses = 0;
        for (Map.Entry<String, Integer> e : counts.entrySet()) {
            if (clauses++ == IndexSearcher.getMaxClauseCount()) {
                break;
            }
            Query tq = new TermQuery(new Term(F_TEXT, e.getKey()));
            b.add(e.getValue() > 1 ? new BoostQuery(tq, e.getValue()) : tq, BooleanClause.Occur.SHOULD);
        }
        return b.build();
    }

    // ---------------------------------------------------------------- writes

    /** Removes the item with this id if present, restoring the items it superseded. */
    private boolean removeExisting(IndexSearcher searcher, String id) throws IOException {
        writer.deleteDocuments(new Term(F_ID, id));
        int doc = docOf(searcher, id);
        if (doc < 0) {
            return false;
        }
        TopDocs replaced = searcher.search(new TermQuery(new Term(F_SUPERSEDED_BY, id)), Integer.MAX_VALUE);
        StoredFields stored = searcher.storedFields();
        for (ScoreDoc sd : replaced.scoreDocs) {
            Stored old = load(stored, sd.doc);
            writer.updateDocument(new Term(F_ID, old.id), toDocument(old.withSupersededBy(null),
                    vectorOf(searcher, sd.doc)));
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
        Query filter = scopeFilter(item.partition(), true);
        TopDocs near = searcher.search(new KnnFloatVectorQuery(F_VECTOR, unit, settings.detectionNeighbours, filter),
                settings.detectionNeighbours);
        ToDoubleFunction<String> idf = null;
        String supersededBy = null;
        Instant newestReplacement = null;
        boolean markedOthers = false;
        StoredFields stored = searcher.storedFields();
        for (ScoreDoc sd : near.scoreDocs) {
            double cosine = dotScoreToCosine(sd.score);
            if (cosine < detector.minCosine()) {
                continue;
            }
            Stored other = load(stored, sd.doc);
            if (other.id.equals(item.id()) || !sameSpeaker(other.attributes, item.attributes())) {
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
                idf = partitionIdf(searcher, item.partition(), pending);
            }
            if (!detector.sameSubject(cosine, itemTerms, analyzer.terms(F_TEXT, other.text), idf)) {
                continue;
            }
            if (!other.time.isAfter(item.time())) {
                writer.updateDocument(new Term(F_ID, other.id), toDocument(other.withSupersededBy(item.id()),
                        vectorOf(searcher, sd.doc)));
                markedOthers = true;
            } else if (newestReplacement == null || other.time.isAfter(newestReplacement)) {
                newestReplacement = other.time;
                supersededBy = other.id;
            }
        }
        return new Detection(supersededBy, markedOthers);
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
            if (u.item().partition().equals(item.partition()) && sameSpeaker(u.item().attributes(), item.attributes())
                    && cosine(u.unit(), unit) >= detector.minCosine()) {
                return true;
            }
        }
        return false;
    }

    /**
     * BM25 idf of terms inside one partition: its live documents, plus items written but not yet
     * visible to this searcher ({@code pending}, each one more document). The partition's
     * documents are collected once per segment; each term then costs one lookup in each segment's term dictionary (one reused
     * enumerator per segment) and a walk of its (usually short) postings, instead of a
     * conjunction query per term (which was more than half of the time spent writing an item).
     */
    private static ToDoubleFunction<String> partitionIdf(IndexSearcher searcher, String partition,
                                                         List<Set<String>> pending) throws IOException {
        List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
        FixedBitSet[] inPartition = new FixedBitSet[leaves.size()];
        TermsEnum[] textTerms = new TermsEnum[leaves.size()];
        int documents = pending.size();
        for (int i = 0; i < leaves.size(); i++) {
            LeafReader reader = leaves.get(i).reader();
            PostingsEnum docs = postings(termsOf(reader, F_PARTITION), new BytesRef(partition), null);
            if (docs == null) {
                continue;
            }
            textTerms[i] = termsOf(reader, F_TEXT);
            Bits live = reader.getLiveDocs();
            FixedBitSet bits = new FixedBitSet(reader.maxDoc());
            for (int d = docs.nextDoc(); d != DocIdSetIterator.NO_MORE_DOCS; d = docs.nextDoc()) {
                if (live == null || live.get(d)) {
                    bits.set(d);
                    documents++;
                }
            }
            inPartition[i] = bits;
        }
        int n = documents;
        Map<String, Double> memo = new HashMap<>();
        return term -> memo.computeIfAbsent(term, t -> {
            try {
                int df = 0;
                for (Set<String> p : pending) {
                    if (p.contains(t)) {
                        df++;
                    }
                }
                BytesRef bytes = new BytesRef(t);
                PostingsEnum docs = null;
                for (int i = 0; i < leaves.size(); i++) {
                    if (inPartition[i] == null) {
                        continue;
                    }
                    docs = postings(textTerms[i], bytes, docs);
                    if (docs == null) {
                        continue;
                    }
                    for (int d = docs.nextDoc(); d != DocIdSetIterator.NO_MORE_DOCS; d = docs.nextDoc()) {
                        if (inPartition[i].get(d)) {
                            df++;
                        }
                    }
                }
                return Math.log(1 + (n - df + 0.5) / (df + 0.5));
            } catch (IOException e) {
                throw new UncheckedIOException("reading term statistics failed", e);
            }
        });
    }

    /** An enumerator over one segment's terms of a field; null when the segment has none. */
    private static @Nullable TermsEnum termsOf(LeafReader reader, String field) throws IOException {
        Terms terms = reader.terms(field);
        return terms == null ? null : terms.iterator();
    }

    /** The documents (deleted ones included) holding this term; null when none. Reuses {@code reuse} when it can. */
    private static @Nullable PostingsEnum postings(@Nullable TermsEnum terms, BytesRef term,
                                                   @Nullable PostingsEnum reuse) throws IOException {
        if (terms == null || !terms.seekExact(term)) {
            return null;
        }
        return terms.postings(reuse, PostingsEnum.NONE);
    }

    private static Document toDocument(Stored s, float[] unit) {
        Document d = new Document();
        d.add(new StringField(F_ID, s.id, Field.Store.YES));
        d.add(new StringField(F_PARTITION, s.partition, Field.Store.YES));
        d.add(new TextField(F_TEXT, s.text, Field.Store.YES));
        d.add(new KnnFloatVectorField(F_VECTOR, unit, VectorSimilarityFunction.DOT_PRODUCT));
        d.add(new StoredField(F_TIME, s.time.getEpochSecond()));
        d.add(new StoredField(F_TIME, s.time.getNano()));
        d.add(new NumericDocValuesField(F_TIME_SECONDS, s.time.getEpochSecond()));
        d.add(new NumericDocValuesField(F_TIME_NANOS, s.time.getNano()));
        for (Map.Entry<String, String> e : s.attributes.entrySet()) {
            d.add(new StoredField(F_ATTR_KEY, e.getKey()));
            d.add(new StoredField(F_ATTR_VALUE, e.getValue()));
        }
        d.add(new StringField(F_STATUS, s.supersededBy == null ? CURRENT : SUPERSEDED, Field.Store.NO));
        if (s.supersededBy != null) {
            d.add(new StringField(F_SUPERSEDED_BY, s.supersededBy, Field.Store.YES));
            d.add(new NumericDocValuesField(F_SUPERSEDED_FLAG, 1));
        }
        return d;
    }

    // ---------------------------------------------------------------- reads

    private static int docOf(IndexSearcher searcher, String id) throws IOException {
        TopDocs td = searcher.search(new TermQuery(new Term(F_ID, id)), 1);
        return td.scoreDocs.length == 0 ? -1 : td.scoreDocs[0].doc;
    }

    private static Stored load(StoredFields stored, int doc) throws IOException {
        Document d = stored.document(doc);
        IndexableField[] time = d.getFields(F_TIME);
        Instant t = Instant.ofEpochSecond(time[0].numericValue().longValue(), time[1].numericValue().longValue());
        String[] keys = d.getValues(F_ATTR_KEY);
        String[] values = d.getValues(F_ATTR_VALUE);
        Map<String, String> attrs = new HashMap<>();
        for (int i = 0; i < keys.length; i++) {
            attrs.put(keys[i], values[i]);
        }
        return new Stored(d.get(F_ID), d.get(F_PARTITION), d.get(F_TEXT), t, attrs, d.get(F_SUPERSEDED_BY));
    }

    private static float[] vectorOf(IndexSearcher searcher, int doc) throws IOException {
        List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
        LeafReaderContext leaf = leaves.get(ReaderUtil.subIndex(doc, leaves));
        FloatVectorValues values = leaf.reader().getFloatVectorValues(F_VECTOR);
        int target = doc - leaf.docBase;
        if (values == null || values.advance(target) != target) {
            throw new IllegalStateException("recall index document " + doc + " has no vector");
        }
        return values.vectorValue().clone();
    }

    // ---------------------------------------------------------------- vectors

    private float[] unitVector(float[] v, String what) {
        if (v.length != dimensions) {
            throw new IllegalArgumentException(
                    what + " has " + v.length + " dimensions, the index has " + dimensions);
        }
        double norm = 0;
        for (float x : v) {
            norm += (double) x * x;
        }
        if (norm == 0 || !Double.isFinite(norm)) {
            throw new IllegalArgumentException(what + " must be a non-zero finite vector, its norm is " + norm);
        }
        double inv = 1 / Math.sqrt(norm);
        float[] u = new float[v.length];
        for (int i = 0; i < v.length; i++) {
            u[i] = (float) (v[i] * inv);
        }
        return u;
    }

    private static double cosine(float[] a, float[] b) {
        double dot = 0;
        for (int i = 0; i < a.length; i++) {
            dot += (double) a[i] * b[i];
        }
        return dot;
    }

    /** Lucene scores DOT_PRODUCT on unit vectors as (1 + dot) / 2. */
    private static double dotScoreToCosine(float score) {
        return 2.0 * score - 1.0;
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("recall index is closed");
        }
    }

    // ---------------------------------------------------------------- internals

    private record Stored(String id, String partition, String text, Instant time, Map<String, String> attributes,
                          @Nullable String supersededBy) {
        Stored withSupersededBy(@Nullable String by) {
            return new Stored(id, partition, text, time, attributes, by);
        }
    }

    private static final class Candidate {
        final int doc;
        double dense = Double.NaN;
        double lexical = Double.NaN;
        Instant time;
        boolean superseded;
        @Nullable Stored stored;

        Candidate(int doc) {
            this.doc = doc;
        }
    }

    /** A scored candidate; its stored fields are loaded on first use. */
    private static final class Scored {
        final int doc;
        final Instant time;
        final double score;
        final Function<Stored, String> why;
        private @Nullable Stored stored;

        Scored(int doc, Instant time, @Nullable Stored stored, double score, Function<Stored, String> why) {
            this.doc = doc;
            this.time = time;
            this.stored = stored;
            this.score = score;
            this.why = why;
        }

        Stored stored(StoredFields fields) throws IOException {
            if (stored == null) {
                stored = load(fields, doc);
            }
            return stored;
        }
    }

    private static final Comparator<Scored> BEST_FIRST = Comparator.comparingDouble((Scored sc) -> sc.score).reversed()
            .thenComparing(sc -> sc.time, Comparator.reverseOrder());

    private record Settings(boolean detectSupersession, int detectionNeighbours, double denseWeight,
                            double lexicalWeight, double recencyWeight, Duration recencyHalfLife,
                            double supersededDemotion, int minCandidates, int candidateFactor,
                            int minDenseCandidates, int denseCandidateFactor,
                            boolean readTimeSupersession, double readTimeMinQueryCoverage, int readTimeWindowExtra) {
        Settings(Builder b) {
            this(b.detectSupersession, b.detectionNeighbours, b.denseWeight, b.lexicalWeight, b.recencyWeight,
                    b.recencyHalfLife, b.supersededDemotion, b.minCandidates, b.candidateFactor,
                    b.minDenseCandidates, b.denseCandidateFactor,
                    b.readTimeSupersession, b.readMinQueryCoverage, 5);
        }
    }

    /**
     * Settings of a {@link HybridIndex}. Defaults: in memory; HNSW max connections 16, beam width
     * 100; at least 100 lexical candidates (10 per requested result) and 40 vector candidates (4 per
     * requested result); weights dense 1.0,
     * lexical 0.5, recency 0.05 with a 30-day half-life; write-time supersession on (cosine at
     * least 0.60 and IDF-weighted term overlap at least 0.40, checking the 8 nearest current items
     * of the same speaker); read-time resolution off (when turned on: cosine 0.45, overlap 0.25,
     * query coverage 0.5, over the requested results plus 5; it catches more knowledge updates but
     * hides related conversation turns that multi-hop questions need); superseded items, when included, have their score
     * multiplied by 0.5.
     */
    public static final class Builder {
        private final int dimensions;
        private @Nullable Path path;
        private int hnswMaxConn = 16;
        private int hnswBeamWidth = 100;
        private int minCandidates = 100;
        private int candidateFactor = 10;
        private int minDenseCandidates = 40;
        private int denseCandidateFactor = 4;
        private double denseWeight = 1.0;
        private double lexicalWeight = 0.5;
        private double recencyWeight = 0.05;
        private Duration recencyHalfLife = Duration.ofDays(30);
        private boolean detectSupersession = true;
        private double supersessionMinCosine = 0.60;
        private double supersessionMinOverlap = 0.40;
        private boolean readTimeSupersession = false;
        private double readMinCosine = 0.45;
        private double readMinOverlap = 0.25;
        private double readMinQueryCoverage = 0.5;
        private int detectionNeighbours = 8;
        private double supersededDemotion = 0.5;

        private Builder(int dimensions) {
            if (dimensions < 1 || dimensions > 4096) {
                throw new IllegalArgumentException("dimensions must be in 1..4096: " + dimensions);
            }
            this.dimensions = dimensions;
        }

        /** Keep the index in this directory (created when missing) instead of in memory. */
        public Builder directory(Path path) {
            this.path = requireNonNull(path, "path");
            return this;
        }

        /** HNSW graph parameters: max connections per node (2..512) and construction beam width (1..3200). */
        public Builder hnsw(int maxConn, int beamWidth) {
            if (maxConn < 2 || maxConn > 512) {
                throw new IllegalArgumentException("hnsw maxConn must be in 2..512: " + maxConn);
            }
            if (beamWidth < 1 || beamWidth > 3200) {
                throw new IllegalArgumentException("hnsw beamWidth must be in 1..3200: " + beamWidth);
            }
            this.hnswMaxConn = maxConn;
            this.hnswBeamWidth = beamWidth;
            return this;
        }

        /**
         * How many candidates each retriever (dense, lexical) fetches before fusion: at least
         * {@code minimum}, and {@code perResult} times the requested results. More candidates
         * raise the recall of the approximate vector search at some cost in latency. Sets both
         * retrievers; {@link #denseCandidates} called afterwards sets the vector side alone.
         */
        public Builder candidates(int minimum, int perResult) {
            denseCandidates(minimum, perResult);
            this.minCandidates = minimum;
            this.candidateFactor = perResult;
            return this;
        }

        /**
         * How many candidates the vector search fetches before fusion: at least {@code minimum},
         * and {@code perResult} times the requested results. Its cost grows with this number; it
         * needs fewer than the lexical side because every lexical candidate's cosine is read
         * anyway (on LoCoMo, 40 vector candidates for 20 results recall exactly what 200 do).
         */
        public Builder denseCandidates(int minimum, int perResult) {
            checkCandidates(minimum, perResult);
            this.minDenseCandidates = minimum;
            this.denseCandidateFactor = perResult;
            return this;
        }

        private static void checkCandidates(int minimum, int perResult) {
            if (minimum < 1) {
                throw new IllegalArgumentException("minimum candidates must be >= 1: " + minimum);
            }
            if (perResult < 1) {
                throw new IllegalArgumentException("candidates per result must be >= 1: " + perResult);
            }
        }

        /** Fusion weights of the cosine similarity, the max-normalised BM25 score and the recency prior. */
        public Builder weights(double dense, double lexical, double recency) {
            checkWeight("dense", dense);
            checkWeight("lexical", lexical);
            checkWeight("recency", recency);
            if (dense + lexical == 0) {
                throw new IllegalArgumentException("dense and lexical weights must not both be 0");
            }
            this.denseWeight = dense;
            this.lexicalWeight = lexical;
            this.recencyWeight = recency;
            return this;
        }

        /** Age at which the recency prior has halved. */
        public Builder recencyHalfLife(Duration halfLife) {
            requireNonNull(halfLife, "halfLife");
            if (halfLife.toSeconds() < 1) {
                throw new IllegalArgumentException("recency half-life must be at least one second: " + halfLife);
            }
            this.recencyHalfLife = halfLife;
            return this;
        }

        /** Turns knowledge-update detection on or off (off: nothing is ever marked superseded). */
        public Builder supersessionDetection(boolean on) {
            this.detectSupersession = on;
            return this;
        }

        /**
         * Thresholds of the knowledge-update detector: two items are about the same thing when
         * their embeddings' cosine is at least {@code minCosine} and at least {@code minOverlap}
         * of the shorter one's content terms also occur in the other.
         */
        public Builder supersessionThresholds(double minCosine, double minOverlap) {
            new SupersessionDetector(minCosine, minOverlap);
            this.supersessionMinCosine = minCosine;
            this.supersessionMinOverlap = minOverlap;
            return this;
        }

        /**
         * Read-time resolution: among the best results of a query with text, an older result is
         * superseded for that read by a newer one when their cosine is at least {@code minCosine},
         * their IDF-weighted term overlap at least {@code minOverlap}, and the query terms both
         * contain weigh at least {@code minQueryCoverage} of the query terms either contains.
         * {@code on = false} turns it off.
         */
        public Builder readTimeSupersession(boolean on, double minCosine, double minOverlap, double minQueryCoverage) {
            new SupersessionDetector(minCosine, minOverlap);
            if (!(minQueryCoverage >= 0 && minQueryCoverage <= 1)) {
                throw new IllegalArgumentException("read-time minQueryCoverage must be in [0, 1]: " + minQueryCoverage);
            }
            this.readTimeSupersession = on;
            this.readMinCosine = minCosine;
            this.readMinOverlap = minOverlap;
            this.readMinQueryCoverage = minQueryCoverage;
            return this;
        }

        /** Factor (0..1] applied to the score of superseded items when a query includes them. */
        public Builder supersededDemotion(double factor) {
            if (!(factor > 0 && factor <= 1)) {
                throw new IllegalArgumentException("superseded demotion must be in (0, 1]: " + factor);
            }
            this.supersededDemotion = factor;
            return this;
        }

        /** Builds and opens the index. */
        public HybridIndex build() {
            try {
                return new HybridIndex(this);
            } catch (IOException e) {
                throw new UncheckedIOException("opening the recall index at " + path + " failed", e);
            }
        }

        private static void checkWeight(String name, double w) {
            if (!(w >= 0 && Double.isFinite(w))) {
                throw new IllegalArgumentException(name + " weight must be a finite number >= 0: " + w);
            }
        }
    }
}

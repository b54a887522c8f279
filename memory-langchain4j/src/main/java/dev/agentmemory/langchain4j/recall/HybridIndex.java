package dev.agentmemory.langchain4j.recall;

import static java.util.Objects.requireNonNull;

import dev.agentmemory.langchain4j.recall.IndexSchema.Stored;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.NRTCachingDirectory;
import org.jspecify.annotations.Nullable;

/**
 * Hybrid episodic index: dense search (cosine over caller-supplied embeddings) fused with
 * BM25 lexical scoring (English stemming and stop words, CJK bigrams; a query's function words
 * such as "what", "did", "her" left out) and a mild recency prior, over items grouped in
 * partitions (tenant + user). Below {@link Builder#exactSearchBelow} items, each of the best hits
 * also passes a share of its score to the previous and next item of its
 * {@linkplain #THREAD_ATTRIBUTE thread}, and items said on a date the query names ("in June")
 * gain a fixed amount. Larger searches compare the query with every item of the partition by
 * a one-bit-per-dimension sign code of its vector (a Hamming distance: a few instructions per
 * item, the codes in memory) and compute the exact cosine of the nearest by code; there is no
 * vector graph to build. Built on Apache Lucene.
 *
 * <p><b>Isolation.</b> Every search is restricted to one partition by a filter inside the Lucene
 * queries themselves (both the vector scan and the lexical query), so no hit can come from another
 * partition, whatever the scores.
 *
 * <p><b>Knowledge updates.</b> Two items of a partition that say nearly the same thing about the
 * same subject (high embedding similarity and high overlap of content terms other than names)
 * are two versions of one fact: the older one is superseded by the newest item that replaces it.
 * The decision is a function of each pair of items (texts, vectors, times, speakers; equal times
 * are ordered by id), not of the order in which they were written, so an index rebuilt from the
 * log holds the same supersessions as the live one. Superseded items are left out of
 * searches unless {@link RecallQuery#includeSuperseded()} asks for them, in which case they are
 * demoted and flagged. Deleting the newer item gives the older one the status it has without
 * it: superseded by the newest remaining replacement, or current. Optionally, at read time,
 * among the best results of a query, an older result that is a looser near-duplicate of a newer one and
 * shares the query's distinctive terms with it is treated the same way for that read. Only
 * items of the same {@linkplain #SPEAKER_ATTRIBUTE speaker} can replace each other.
 *
 * <p><b>Threading.</b> Thread-safe: writes are serialized, searches run concurrently and see every
 * write that returned before they started. Writes are visible to every read that follows; a
 * write does not refresh Lucene's searchers itself: the first read after it does, once for
 * everything written since ({@link #refreshes()}), so that many writes between two reads cost
 * one refresh (one small segment). A directory-backed index commits on {@link #close()} (it is
 * derived data, rebuilt from the memory log if lost).
 *
 * <p>This class is the front door: it validates input, serializes writes and opens and closes
 * the index. The parts behind it: {@code IndexSettings} (configuration), {@code IndexSchema} (the
 * Lucene documents and filters), {@code RecallWriter} (writes, refreshes, write-time
 * supersession), {@code RecallScorer} (candidates, score fusion, explanations) with
 * {@code ReadTimeResolver}, {@code PartitionIdf} (term statistics) and {@code Vectors}.
 */
public final class HybridIndex implements AutoCloseable {

    /**
     * Attribute naming who asserted an item (e.g. the speaker of a message). Supersession only
     * happens between items asserted by the same party: one person's statement never replaces
     * another's. Items without it count as asserted by the partition's owner.
     */
    public static final String SPEAKER_ATTRIBUTE = "speaker";

    /**
     * Attribute naming the thread an item belongs to (e.g. the chat session of a message). Items
     * of one thread that follow each other in time are neighbours
     * ({@link Builder#neighbourShare}); items without it have none.
     */
    public static final String THREAD_ATTRIBUTE = "session";

    /** The share of its score a hit passes to its neighbouring turns ({@link Builder#neighbourShare}). */
    public static final double DEFAULT_NEIGHBOUR_SHARE = 0.3;

    /** What an item said in the span of time a query names gains ({@link Builder#dateWeight}). */
    public static final double DEFAULT_DATE_WEIGHT = 0.2;

    /** Up to this many items a search scores every item exactly ({@link Builder#exactSearchBelow}). */
    public static final int DEFAULT_EXACT_SEARCH_BELOW = 2_000;

    /**
     * Partition size past which the vector candidates grew ({@link Builder#denseCandidatesGrowFrom}).
     *
     * @deprecated the index has no graph and the setting no longer has an effect
     */
    @Deprecated
    public static final int DEFAULT_DENSE_CANDIDATES_GROW_FROM = 5_000;


    private final int dimensions;
    private final Directory directory;
    private final RecallWriter writer;
    private final SearcherManager searchers;
    private final RecallScorer scorer;
    private final Object writeLock = new Object();
    private volatile boolean closed;

    private HybridIndex(Builder b) throws IOException {
        this.dimensions = b.dimensions;
        IndexSettings settings = b.settings();
        RecallAnalyzer analyzer = new RecallAnalyzer();
        // On disk, new small segments stay in memory until merged or committed (Lucene's
        // near-real-time cache): a refresh after each write then costs no file creation.
        this.directory = b.path == null ? new ByteBuffersDirectory()
                : new NRTCachingDirectory(FSDirectory.open(b.path), 8, 64);
        this.writer = new RecallWriter(directory, analyzer, settings);
        this.searchers = writer.searchers();
        this.scorer = new RecallScorer(analyzer, settings);
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
     * one batch (fast bulk load); with it on, a long list (a catch-up, a rebuild from the log) is
     * checked a few hundred items at a time, each batch decided in memory and followed by one
     * refresh, and ends in the same index as one write per item.
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
                writer.upsertAll(items, unit);
            } catch (IOException e) {
                throw new UncheckedIOException("writing to the recall index failed", e);
            }
        }
    }

    /** How many deletes by id the writer buffered so far (for tests). */
    long deletesBuffered() {
        synchronized (writeLock) {
            return writer.deletesBuffered();
        }
    }

    /**
     * Merges the index into a single segment, which makes searches a little faster after a bulk
     * load (one pass over one segment). Costs a rewrite of the whole index; call it once after
     * loading many items, not after every write.
     */
    public void optimize() {
        synchronized (writeLock) {
            ensureOpen();
            try {
                writer.optimize();
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
                return writer.delete(id);
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
                return writer.deletePartition(partition);
            } catch (IOException e) {
                throw new UncheckedIOException("deleting partition " + partition + " failed", e);
            }
        }
    }

    /**
     * The user data of the index's last commit ({@link #commit}), as read when it was opened; empty
     * for a new index or one committed without any.
     */
    public Map<String, String> commitData() {
        synchronized (writeLock) {
            ensureOpen();
            return writer.commitData();
        }
    }

    /**
     * Makes everything written so far durable (a directory-backed index survives a crash as of its
     * last commit), with {@code data} as the commit's user data, replacing the previous one: the
     * caller states in it what the committed items reflect (e.g. the last event of a log applied),
     * and reads it back with {@link #commitData} after a restart.
     */
    public void commit(Map<String, String> data) {
        requireNonNull(data, "data");
        synchronized (writeLock) {
            ensureOpen();
            try {
                writer.commit(data);
            } catch (IOException e) {
                throw new UncheckedIOException("committing the recall index failed", e);
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
                writer.purgeDeleted();
            } catch (IOException e) {
                throw new UncheckedIOException("purging deleted items from the recall index failed", e);
            }
        }
    }

    /**
     * The ids among {@code ids} that the index does not hold, in their order: one look-up of the
     * id term each, without loading any item (a catch-up asks it for a user's whole log).
     */
    public List<String> absent(List<String> ids) {
        requireNonNull(ids, "ids");
        synchronized (writeLock) {
            ensureOpen();
            try {
                // the writes since the last refresh answer first: no refresh for this question
                return writer.absent(ids);
            } catch (IOException e) {
                throw new UncheckedIOException("reading the recall index failed", e);
            }
        }
    }

    /**
     * How many times the index refreshed what its searches see: the first read after writes
     * refreshes once, for all of them (each refresh makes Lucene flush a small segment, later
     * merged). A diagnostic, for tests and benchmarks.
     */
    public long refreshes() {
        return writer.refreshes();
    }

    /**
     * Makes every write and delete that returned visible to searches now, if a read has not
     * already; every read does this first, so calling it only moves the cost of a refresh (a
     * small Lucene segment) to a moment where no read is waiting, e.g. after a batch of writes.
     */
    public void refresh() {
        fresh();
    }

    /** Before a read: refreshes the searchers when something was written since their last refresh (never waits for a write). */
    private void fresh() {
        ensureOpen();
        try {
            writer.refreshIfStale();
        } catch (IOException e) {
            throw new UncheckedIOException("refreshing the recall index failed", e);
        }
    }

    /** The item with this id, if present, as it was written (vector normalised to unit length). */
    public Optional<IndexedItem> find(String id) {
        requireNonNull(id, "id");
        fresh();
        try {
            IndexSearcher searcher = searchers.acquire();
            try {
                int doc = IndexSchema.docOf(searcher, id);
                if (doc < 0) {
                    return Optional.empty();
                }
                Stored s = IndexSchema.load(searcher.storedFields(), doc);
                return Optional.of(new IndexedItem(s.id(), s.partition(), s.text(), IndexSchema.vectorOf(searcher, doc), s.time(),
                        s.attributes()));
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
        fresh();
        try {
            IndexSearcher searcher = searchers.acquire();
            try {
                int doc = IndexSchema.docOf(searcher, id);
                return doc < 0 ? Optional.empty()
                        : Optional.ofNullable(IndexSchema.load(searcher.storedFields(), doc).supersededBy());
            } finally {
                searchers.release(searcher);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + id + " from the recall index failed", e);
        }
    }

    /** Number of items (superseded ones included) in all partitions. */
    public int size() {
        fresh();
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
        return search(query, Set.of());
    }

    /**
     * Searches like {@link #search(RecallQuery)}, for a caller that leaves the items with the
     * ids {@code leftOut} out of what it uses (e.g. messages the model sees anyway). When the
     * only writes that searches do not show yet are of those items, it reads without a refresh,
     * as if those writes had not been made yet (with what they changed in other items: an older
     * item they supersede may still be current). A delete, or a write of any other item, that
     * returned before the call is always seen.
     *
     * @throws IllegalArgumentException when the query vector has the wrong number of dimensions or is zero
     */
    public List<RecallHit> search(RecallQuery query, Set<String> leftOut) {
        requireNonNull(query, "query");
        requireNonNull(leftOut, "leftOut");
        float[] vector = query.vectorNoCopy() == null ? null : unitVector(query.vectorNoCopy(), "query vector");
        ensureOpen();
        if (writer.mustRefresh(leftOut)) {
            fresh();
        }
        try {
            IndexSearcher searcher = searchers.acquire();
            try {
                return scorer.search(searcher, query, vector);
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
            // the directory is closed (and the index's write lock released) even when the writer
            // cannot write its last changes, so that the folder can be opened again in this process
            try (Directory d = directory) {
                writer.close();
            } catch (IOException e) {
                throw new UncheckedIOException("closing the recall index failed", e);
            }
        }
    }


    private float[] unitVector(float[] v, String what) {
        return Vectors.unit(v, dimensions, what);
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("recall index is closed");
        }
    }
    /**
     * Settings of a {@link HybridIndex}. Defaults: in memory; at least 100 lexical candidates (10
     * per requested result) and 40 vector candidates (4 per requested result), each vector
     * candidate chosen among 10 items scored exactly; weights dense 1.0,
     * lexical 0.5, recency 0.05 with a 30-day half-life; write-time supersession on (cosine at
     * least 0.60 and term overlap, names weighing 0.1, at least 0.50, checking every item of the
     * partition and speaker below the exact-search size, else the 8 nearest); read-time resolution off (when turned on: cosine 0.45, overlap 0.25,
     * query coverage 0.5, over the requested results plus 5; it catches more knowledge updates but
     * hides related conversation turns that multi-hop questions need); superseded items, when included, have their score
     * multiplied by 0.5; a query's function words left out; neighbouring turns passed 0.3 of a
     * hit's score; 0.2 added for a date the query names (each chosen by cross-validation over
     * LoCoMo conversations, see the README).
     */
    public static final class Builder {
        /** How many results past the requested ones read-time resolution compares. */
        private static final int READ_TIME_WINDOW_EXTRA = 5;

        private final int dimensions;
        private @Nullable Path path;
        private int hnswMaxConn = 16;
        private int hnswBeamWidth = 100;
        private int minCandidates = 100;
        private int candidateFactor = 10;
        private int minDenseCandidates = 40;
        private int denseCandidateFactor = 4;
        private int denseCandidatesGrowFrom = DEFAULT_DENSE_CANDIDATES_GROW_FROM;
        private double denseWeight = 1.0;
        private double lexicalWeight = 0.5;
        private double recencyWeight = 0.05;
        private Duration recencyHalfLife = Duration.ofDays(30);
        private boolean detectSupersession = true;
        private double supersessionMinCosine = 0.60;
        private double supersessionMinOverlap = 0.50;
        private boolean readTimeSupersession = false;
        private double readMinCosine = 0.45;
        private double readMinOverlap = 0.25;
        private double readMinQueryCoverage = 0.5;
        private int detectionNeighbours = 8;
        private double supersededDemotion = 0.5;
        private int exactSearchBelow = DEFAULT_EXACT_SEARCH_BELOW;
        private boolean minMaxFusion = false;
        private boolean dropQueryFunctionWords = true;
        private double neighbourShare = DEFAULT_NEIGHBOUR_SHARE;
        private double dateWeight = DEFAULT_DATE_WEIGHT;
        private boolean frameResolution = true;
        private boolean serialMerges = false;

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

        /**
         * HNSW graph parameters of earlier versions: max connections per node (2..512) and
         * construction beam width (2..3200). Still validated, but without effect: the index builds
         * no graph (large searches scan sign codes of the vectors and score the nearest exactly).
         *
         * @deprecated no effect; kept so that code calling it keeps compiling
         */
        @Deprecated
        public Builder hnsw(int maxConn, int beamWidth) {
            if (maxConn < 2 || maxConn > 512) {
                throw new IllegalArgumentException("hnsw maxConn must be in 2..512: " + maxConn);
            }
            if (beamWidth < 2 || beamWidth > 3200) {
                throw new IllegalArgumentException("hnsw beamWidth must be in 2..3200: " + beamWidth);
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
         * and {@code perResult} times the requested results. In a search past
         * {@link #exactSearchBelow} items, 10 items per candidate (at least 200) are scored
         * exactly, the nearest by sign code, so the cost grows with this number; it needs fewer
         * than the lexical side because every lexical candidate's cosine is read anyway (on
         * LoCoMo, 40 vector candidates for 20 results recall exactly what 200 do).
         */
        public Builder denseCandidates(int minimum, int perResult) {
            checkCandidates(minimum, perResult);
            this.minDenseCandidates = minimum;
            this.denseCandidateFactor = perResult;
            return this;
        }

        /**
         * In earlier versions, past a partition of {@code items} items the vector candidates grew
         * with it, so that the HNSW graph kept its recall as it grew. Still validated ({@code >= 1}),
         * but without effect: the vector search compares every item by code, and the count set by
         * {@link #denseCandidates} holds at every size.
         *
         * @deprecated no effect; kept so that code calling it keeps compiling
         */
        @Deprecated
        public Builder denseCandidatesGrowFrom(int items) {
            if (items < 1) {
                throw new IllegalArgumentException("denseCandidatesGrowFrom must be >= 1: " + items);
            }
            this.denseCandidatesGrowFrom = items;
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
         * of the lighter one's content terms (by weight; a name's terms weigh 0.1, others 1) also
         * occur in the other.
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

        /**
         * Searches that cover at most this many items (a partition's current items, or all of its
         * items when superseded ones are asked for) score every one of them exactly: cosine to
         * each vector and BM25 with term statistics over exactly those items. Their results are a
         * function of the items alone, whatever the index's history (deleted documents, segments).
         * Larger searches compare every item by the sign code of its vector and score the nearest
         * exactly (the vector candidates), and use Lucene's BM25. {@code 0} always does that.
         * Default {@value #DEFAULT_EXACT_SEARCH_BELOW}.
         */
        public Builder exactSearchBelow(int items) {
            if (items < 0) {
                throw new IllegalArgumentException("exactSearchBelow must be >= 0: " + items);
            }
            this.exactSearchBelow = items;
            return this;
        }

        /**
         * Fusion by min-max normalisation: the cosine and the BM25 score are each scaled to [0, 1]
         * over the query's candidates before they are weighted (by default the cosine is taken as
         * it is and BM25 is divided by its maximum).
         */
        public Builder minMaxFusion(boolean on) {
            this.minMaxFusion = on;
            return this;
        }

        /**
         * Leaves English function words (interrogatives, pronouns, auxiliaries: "what", "did",
         * "her") out of a query's lexical terms; the indexed text keeps them.
         */
        public Builder dropQueryFunctionWords(boolean on) {
            this.dropQueryFunctionWords = on;
            return this;
        }

        /**
         * Neighbouring turns: in a search that scores every item exactly, each of the best-scoring
         * items passes this share of its score to the items right before and after it in time of
         * the same {@linkplain #THREAD_ATTRIBUTE thread} (0: off).
         */
        public Builder neighbourShare(double share) {
            if (!(share >= 0 && share <= 1)) {
                throw new IllegalArgumentException("neighbour share must be in [0, 1]: " + share);
            }
            this.neighbourShare = share;
            return this;
        }

        /**
         * Added to the score of items said on the day, in the month or in the year a query names
         * ("in June", "on 13 October, 2023"; UTC; 0: off).
         */
        public Builder dateWeight(double weight) {
            checkWeight("date", weight);
            this.dateWeight = weight;
            return this;
        }

        /**
         * Read-time resolution by frame (on by default): among the best results of a query with
         * text, of two statements that open with a named subject in common ("Kevin Smythe is an
         * advocate for ..."), the older is superseded for that read by the newer when they are
         * near-duplicates (cosine at least 0.45, partition-idf term overlap at least 0.25) sharing
         * the query's distinctive terms (0.3 of those either has), and demoted (its score
         * multiplied by the {@linkplain #supersededDemotion superseded demotion}, not flagged) when
         * they are looser near-duplicates (overlap at least 0.15). Before those rules, a small
         * logistic regression fitted on knowledge-update pairs reads two such statements said at
         * least an hour apart (their cosine and term overlap, the older's cosine to the query and
         * whether it is the best result) and supersedes the older for the read at probability 0.5
         * or more. Chat turns that open with a speaker ("Caroline: ...") or with "I" have no named
         * subjects and are never resolved this way.
         */
        public Builder frameResolution(boolean on) {
            this.frameResolution = on;
            return this;
        }

        /**
         * For tests: segment merges run in the writing thread instead of beside it, so that the
         * segments, and with them the graph and Lucene's term statistics, are a function of the
         * writes alone (with merges beside the writes they depend on timing).
         */
        Builder serialMerges() {
            this.serialMerges = true;
            return this;
        }

        /** The settings as set so far. */
        IndexSettings settings() {
            return new IndexSettings(hnswMaxConn, hnswBeamWidth, detectSupersession, supersessionMinCosine,
                    supersessionMinOverlap, detectionNeighbours, denseWeight, lexicalWeight, recencyWeight,
                    recencyHalfLife, supersededDemotion, minCandidates, candidateFactor, minDenseCandidates,
                    denseCandidateFactor, denseCandidatesGrowFrom, readTimeSupersession, readMinCosine, readMinOverlap, readMinQueryCoverage,
                    READ_TIME_WINDOW_EXTRA, exactSearchBelow, minMaxFusion, dropQueryFunctionWords,
                    neighbourShare, dateWeight, frameResolution, serialMerges);
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

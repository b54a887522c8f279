package dev.agentmemory.langchain4j.recall;

import static dev.agentmemory.langchain4j.recall.IndexSchema.F_SUPERSEDED_FLAG;
import static dev.agentmemory.langchain4j.recall.IndexSchema.F_TEXT;
import static dev.agentmemory.langchain4j.recall.IndexSchema.F_TIME_NANOS;
import static dev.agentmemory.langchain4j.recall.IndexSchema.F_TIME_SECONDS;

import dev.agentmemory.langchain4j.recall.RecallScorer.Candidate;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.Weight;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.SmallFloat;
import org.jspecify.annotations.Nullable;

/**
 * Exact scoring of every live document a filter selects (one partition, current items unless
 * superseded ones are asked for): the cosine of each one's vector, and BM25 with term statistics
 * computed over exactly those documents. Nothing depends on how the index got there: deleted
 * documents still in a segment, other partitions and segment layout play no
 * part, so the same items give the same scores. Used below {@link HybridIndex.Builder#exactSearchBelow}
 * items, where a scan costs less than it is worth (see the README's benchmarks).
 */
final class ExactScan {

    /** Lucene's BM25 defaults. */
    static final double K1 = 1.2;
    static final double B = 0.75;

    private ExactScan() {
    }

    /**
     * Every live document of {@code filter} as a candidate with its cosine to {@code vector} (when
     * given), its BM25 score for {@code terms} (term to query weight; NaN when no term occurs), its
     * time and its superseded flag.
     */
    static List<Candidate> scan(IndexSearcher searcher, Query filter, Map<String, Double> terms,
                                float @Nullable [] vector) throws IOException {
        Weight weight = searcher.createWeight(searcher.rewrite(filter), ScoreMode.COMPLETE_NO_SCORES, 1f);
        String[] termList = terms.keySet().toArray(new String[0]);
        List<Candidate> all = new ArrayList<>();
        List<int[]> freqs = new ArrayList<>();
        List<Integer> lengths = new ArrayList<>();
        StoredFields stored = searcher.storedFields();
        for (LeafReaderContext leaf : searcher.getIndexReader().leaves()) {
            Scorer scorer = weight.scorer(leaf);
            if (scorer == null) {
                continue;
            }
            LeafReader reader = leaf.reader();
            Bits live = reader.getLiveDocs();
            NumericDocValues norms = reader.getNormValues(F_TEXT);
            SegmentVectors vectors = vector == null ? null : SegmentVectors.of(reader);
            NumericDocValues seconds = reader.getNumericDocValues(F_TIME_SECONDS);
            NumericDocValues nanos = reader.getNumericDocValues(F_TIME_NANOS);
            NumericDocValues superseded = reader.getNumericDocValues(F_SUPERSEDED_FLAG);
            NumericDocValues threads = reader.getNumericDocValues(IndexSchema.F_THREAD);
            int first = all.size();
            int[] slot = new int[reader.maxDoc()];
            java.util.Arrays.fill(slot, -1);
            DocIdSetIterator it = scorer.iterator();
            for (int d = it.nextDoc(); d != DocIdSetIterator.NO_MORE_DOCS; d = it.nextDoc()) {
                if (live != null && !live.get(d)) {
                    continue;
                }
                Candidate c = new Candidate(leaf.docBase + d);
                if (vector != null) {
                    float[] v = vectors == null ? null : vectors.vector(d);
                    if (v == null) {
                        throw new IllegalStateException("recall index document " + c.doc + " has no vector");
                    }
                    c.dense = Vectors.cosine(vector, v);
                }
                if (seconds != null && nanos != null && seconds.advanceExact(d) && nanos.advanceExact(d)) {
                    c.time = Instant.ofEpochSecond(seconds.longValue(), nanos.longValue());
                    c.superseded = superseded != null && superseded.advanceExact(d) && superseded.longValue() != 0;
                } else {
                    c.stored = IndexSchema.load(stored, c.doc);
                    c.time = c.stored.time();
                    c.superseded = c.stored.supersededBy() != null;
                }
                if (threads != null && threads.advanceExact(d)) {
                    c.thread = threads.longValue();
                } else {
                    // indexed before the thread's doc values existed
                    c.stored = c.stored != null ? c.stored : IndexSchema.load(stored, c.doc);
                    c.thread = IndexSchema.threadHash(c.stored.attributes());
                }
                // the length BM25 sees: Lucene's one-byte encoding of the number of terms
                lengths.add(norms != null && norms.advanceExact(d) ? SmallFloat.byte4ToInt((byte) norms.longValue()) : 0);
                slot[d] = all.size();
                all.add(c);
                freqs.add(new int[termList.length]);
            }
            if (all.size() == first || termList.length == 0) {
                continue;
            }
            Terms text = reader.terms(F_TEXT);
            TermsEnum te = text == null ? null : text.iterator();
            PostingsEnum postings = null;
            for (int t = 0; te != null && t < termList.length; t++) {
                if (!te.seekExact(new BytesRef(termList[t]))) {
                    continue;
                }
                postings = te.postings(postings, PostingsEnum.FREQS);
                for (int d = postings.nextDoc(); d != DocIdSetIterator.NO_MORE_DOCS; d = postings.nextDoc()) {
                    if (slot[d] >= 0) {
                        freqs.get(slot[d])[t] = postings.freq();
                    }
                }
            }
        }
        if (termList.length > 0 && !all.isEmpty()) {
            bm25(all, freqs, lengths, termList, terms);
        }
        return all;
    }

    private static void bm25(List<Candidate> all, List<int[]> freqs, List<Integer> lengths, String[] termList,
                             Map<String, Double> weights) {
        int n = all.size();
        int[] df = new int[termList.length];
        long totalLength = 0;
        for (int i = 0; i < n; i++) {
            totalLength += lengths.get(i);
            int[] f = freqs.get(i);
            for (int t = 0; t < f.length; t++) {
                if (f[t] > 0) {
                    df[t]++;
                }
            }
        }
        double avgLength = Math.max(1e-9, (double) totalLength / n);
        double[] idf = new double[termList.length];
        for (int t = 0; t < termList.length; t++) {
            idf[t] = Math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5)) * weights.getOrDefault(termList[t], 1.0);
        }
        for (int i = 0; i < n; i++) {
            int[] f = freqs.get(i);
            double norm = K1 * (1 - B + B * lengths.get(i) / avgLength);
            double score = 0;
            boolean matched = false;
            for (int t = 0; t < f.length; t++) {
                if (f[t] > 0) {
                    matched = true;
                    score += idf[t] * f[t] / (f[t] + norm);
                }
            }
            all.get(i).lexical = matched ? score : Double.NaN;
        }
    }

    /**
     * Whether {@code filter} matches at most {@code limit} live documents: the same answer as
     * {@code searcher.count(filter) <= limit}, but counting stops past the limit, so deciding that a
     * large partition is searched by {@link CodeScan} does not cost a pass over all its documents.
     */
    static boolean matchesAtMost(IndexSearcher searcher, Query filter, int limit) throws IOException {
        Weight weight = searcher.createWeight(searcher.rewrite(filter), ScoreMode.COMPLETE_NO_SCORES, 1f);
        long seen = 0;
        for (LeafReaderContext leaf : searcher.getIndexReader().leaves()) {
            int known = weight.count(leaf);
            if (known >= 0) {
                seen += known;
            } else {
                Scorer scorer = weight.scorer(leaf);
                if (scorer == null) {
                    continue;
                }
                Bits live = leaf.reader().getLiveDocs();
                DocIdSetIterator it = scorer.iterator();
                for (int d = it.nextDoc(); d != DocIdSetIterator.NO_MORE_DOCS && seen <= limit; d = it.nextDoc()) {
                    if (live == null || live.get(d)) {
                        seen++;
                    }
                }
            }
            if (seen > limit) {
                return false;
            }
        }
        return true;
    }

    /** A document and its cosine to a query vector. */
    record Neighbour(int doc, double cosine) {
    }

    /**
     * The {@code k} live documents of {@code filter} nearest to {@code vector} by exact cosine,
     * nearest first; equal cosines in order of id.
     */
    static List<Neighbour> nearest(IndexSearcher searcher, Query filter, float[] vector, int k) throws IOException {
        List<Candidate> all = scan(searcher, filter, Map.<String, Double>of(), vector);
        StoredFields stored = searcher.storedFields();
        java.util.Map<Integer, String> ids = new java.util.HashMap<>();
        java.util.function.IntFunction<String> id = doc -> ids.computeIfAbsent(doc, d -> {
            try {
                return IndexSchema.load(stored, d).id();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException("reading a recall item's id failed", e);
            }
        });
        all.sort(java.util.Comparator.comparingDouble((Candidate c) -> c.dense).reversed()
                .thenComparing(c -> id.apply(c.doc)));
        List<Neighbour> out = new ArrayList<>(Math.min(k, all.size()));
        for (int i = 0; i < Math.min(k, all.size()); i++) {
            out.add(new Neighbour(all.get(i).doc, all.get(i).dense));
        }
        return out;
    }

    /**
     * Every live document of {@code filter} whose cosine to {@code vector} is at least
     * {@code minCosine}, in no particular order (a function of the documents alone).
     */
    static List<Neighbour> within(IndexSearcher searcher, Query filter, float[] vector, double minCosine)
            throws IOException {
        List<Neighbour> out = new ArrayList<>();
        for (Candidate c : scan(searcher, filter, Map.of(), vector)) {
            if (c.dense >= minCosine) {
                out.add(new Neighbour(c.doc, c.dense));
            }
        }
        return out;
    }
}

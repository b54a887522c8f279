package dev.agentmemory.langchain4j.recall;

import static dev.agentmemory.langchain4j.recall.IndexSchema.F_SUPERSEDED_FLAG;
import static dev.agentmemory.langchain4j.recall.IndexSchema.F_TEXT;
import static dev.agentmemory.langchain4j.recall.IndexSchema.F_TIME_NANOS;
import static dev.agentmemory.langchain4j.recall.IndexSchema.F_TIME_SECONDS;

import dev.agentmemory.langchain4j.recall.IndexSchema.Stored;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.function.Function;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.jspecify.annotations.Nullable;

/**
 * The read side of the recall index: gathers dense and lexical candidates inside one partition,
 * fuses their scores (cosine, max-normalised BM25, a recency prior, a demotion of superseded
 * items), explains each returned hit's score, and hands the ranking to {@link ReadTimeResolver}
 * when read-time resolution is on.
 */
final class RecallScorer {

    private final IndexSettings settings;
    private final ReadTimeResolver resolver;
    private final QueryTerms queryTerms;

    RecallScorer(RecallAnalyzer analyzer, IndexSettings settings) {
        this.settings = settings;
        this.resolver = new ReadTimeResolver(analyzer, settings);
        this.queryTerms = new QueryTerms(analyzer, settings.dropQueryFunctionWords());
    }

    /** Hits of {@code query} (with its unit vector, if any) on this searcher, best first. */
    List<RecallHit> search(IndexSearcher searcher, RecallQuery query, float @Nullable [] vector)
            throws IOException {
        Query filter = IndexSchema.scopeFilter(query.partition(), !query.includeSuperseded());
        Map<String, Double> terms = queryTerms.of(query.text());
        StoredFields stored = searcher.storedFields();
        List<Candidate> pool;
        boolean hasLexical = !terms.isEmpty();
        boolean exact = ExactScan.matchesAtMost(searcher, filter, settings.exactSearchBelow());
        if (exact) {
            // small enough to score every item exactly: the result is a function of the items alone
            pool = ExactScan.scan(searcher, filter, terms, vector);
            if (vector == null) {
                // a text-only search finds only items sharing a term, as the lexical query does
                pool.removeIf(c -> Double.isNaN(c.lexical));
            }
        } else {
            pool = approximateCandidates(searcher, filter, query, terms, vector);
            readRankingFields(searcher, stored, pool, vector);
        }
        double maxLexical = 0;
        double minLexical = Double.MAX_VALUE;
        double maxDense = -Double.MAX_VALUE;
        double minDense = Double.MAX_VALUE;
        for (Candidate c : pool) {
            double lexical = Double.isNaN(c.lexical) ? 0 : c.lexical;
            maxLexical = Math.max(maxLexical, lexical);
            minLexical = Math.min(minLexical, lexical);
            if (!Double.isNaN(c.dense)) {
                maxDense = Math.max(maxDense, c.dense);
                minDense = Math.min(minDense, c.dense);
            }
        }
        DateCue dateCue = settings.dateWeight() > 0 ? DateCue.in(query.text()).orElse(null) : null;
        double[] base = new double[pool.size()];
        double[] denseParts = new double[pool.size()];
        double[] lexParts = new double[pool.size()];
        double[] recencyParts = new double[pool.size()];
        double[] dateParts = new double[pool.size()];
        for (int i = 0; i < pool.size(); i++) {
            Candidate c = pool.get(i);
            double dense;
            double lex;
            if (settings.minMaxFusion()) {
                // each signal scaled to [0, 1] over this query's candidates
                dense = Double.isNaN(c.dense) || maxDense <= minDense ? 0
                        : settings.denseWeight() * (c.dense - minDense) / (maxDense - minDense);
                double raw = Double.isNaN(c.lexical) ? 0 : c.lexical;
                lex = maxLexical <= minLexical ? 0 : settings.lexicalWeight() * (raw - minLexical) / (maxLexical - minLexical);
            } else {
                dense = Double.isNaN(c.dense) ? 0 : settings.denseWeight() * Math.max(0, c.dense);
                lex = maxLexical > 0 && !Double.isNaN(c.lexical) ? settings.lexicalWeight() * (c.lexical / maxLexical) : 0;
            }
            double recency = settings.recencyWeight() * recencyPrior(c.time, query.now());
            // a date the query names: items said on that day, in that month or year
            double date = dateCue != null && dateCue.matches(c.time) ? settings.dateWeight() : 0;
            double score = dense + lex + recency + date;
            if (c.superseded) {
                score *= settings.supersededDemotion();
            }
            base[i] = score;
            denseParts[i] = dense;
            lexParts[i] = lex;
            recencyParts[i] = recency;
            dateParts[i] = date;
        }
        // neighbours in time are only known when every item is scored
        double[] bonus = exact && settings.neighbourShare() > 0
                ? NeighbourContext.bonuses(pool, base, settings.neighbourShare(), query.maxResults(), stored)
                : new double[pool.size()];
        List<Scored> scored = new ArrayList<>(pool.size());
        boolean hasVector = vector != null;
        for (int i = 0; i < pool.size(); i++) {
            Candidate c = pool.get(i);
            double score = base[i] + bonus[i];
            if (score >= query.minScore()) {
                double dense = denseParts[i];
                double lex = lexParts[i];
                double recency = recencyParts[i];
                double neighbour = bonus[i];
                double date = dateParts[i];
                // explained only for the hits returned: formatting every candidate's reason costs more than scoring it
                scored.add(new Scored(c.doc, c.time, c.stored, score,
                        s -> why(hasVector, c, dense, lex, recency, date, neighbour, s.supersededBy())));
            }
        }
        Comparator<Scored> order = bestFirst(stored);
        if ((settings.readTimeSupersession() || settings.frameResolution()) && hasLexical) {
            scored.sort(order);
            scored = resolver.resolve(searcher, stored, query, scored);
        } else {
            // only the returned hits need their order: the same first ones as sorting every candidate
            scored = best(scored, query.maxResults(), order);
        }
        // Stored fields (text, attributes) are read only for the hits returned.
        List<RecallHit> hits = new ArrayList<>(Math.min(query.maxResults(), scored.size()));
        for (Scored sc : scored) {
            if (hits.size() == query.maxResults()) {
                break;
            }
            Stored s = sc.stored(stored);
            hits.add(new RecallHit(s.id(), sc.score, s.text(), s.time(), s.attributes(), sc.why.apply(s), s.supersededBy() != null,
                    s.supersededBy()));
        }
        return hits;
    }

    /** The candidates of the approximate path: the nearest by {@link CodeScan} and the best BM25 matches (Lucene's statistics). */
    private List<Candidate> approximateCandidates(IndexSearcher searcher, Query filter, RecallQuery query,
                                                  Map<String, Double> terms, float @Nullable [] vector) throws IOException {
        int fetch = Math.max(settings.minCandidates(), query.maxResults() * settings.candidateFactor());
        Map<Integer, Candidate> candidates = new LinkedHashMap<>();
        if (vector != null) {
            // every item of the partition compared by code, the shortlist scored exactly (CodeScan)
            int k = settings.denseCandidates(query.maxResults());
            for (ExactScan.Neighbour n : CodeScan.nearest(searcher, query.partition(), !query.includeSuperseded(), vector, k,
                    settings.shortlist(k))) {
                candidates.computeIfAbsent(n.doc(), Candidate::new).dense = n.cosine();
            }
        }
        Query lexical = lexicalQuery(terms);
        if (lexical != null) {
            Query scoped = new BooleanQuery.Builder()
                    .add(lexical, BooleanClause.Occur.MUST)
                    .add(filter, BooleanClause.Occur.FILTER)
                    .build();
            TopDocs lex = searcher.search(scoped, fetch);
            for (ScoreDoc sd : lex.scoreDocs) {
                candidates.computeIfAbsent(sd.doc, Candidate::new).lexical = sd.score;
            }
        }
        return new ArrayList<>(candidates.values());
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
        SegmentVectors vectors = null;
        for (Candidate c : byDoc) {
            int li = ReaderUtil.subIndex(c.doc, leaves);
            if (li != leafIndex) {
                leafIndex = li;
                leaf = leaves.get(li);
                seconds = leaf.reader().getNumericDocValues(F_TIME_SECONDS);
                nanos = leaf.reader().getNumericDocValues(F_TIME_NANOS);
                superseded = leaf.reader().getNumericDocValues(F_SUPERSEDED_FLAG);
                vectors = vector == null ? null : SegmentVectors.of(leaf.reader());
            }
            int target = c.doc - leaves.get(li).docBase; // the leaf read above
            if (vector != null && Double.isNaN(c.dense)) {
                float[] v = vectors == null ? null : vectors.vector(target);
                if (v == null) {
                    throw new IllegalStateException("recall index document " + c.doc + " has no vector");
                }
                c.dense = Vectors.cosine(vector, v);
            }
            if (seconds != null && nanos != null && seconds.advanceExact(target) && nanos.advanceExact(target)) {
                c.time = Instant.ofEpochSecond(seconds.longValue(), nanos.longValue());
                c.superseded = superseded != null && superseded.advanceExact(target) && superseded.longValue() != 0;
            } else {
                c.stored = IndexSchema.load(stored, c.doc);
                c.time = c.stored.time();
                c.superseded = c.stored.supersededBy() != null;
            }
        }
    }

    private static String why(boolean hasVector, Candidate c, double dense, double lex, double recency,
                              double date, double neighbour, @Nullable String supersededBy) {
        // the numbers as "%.2f" wrote them (TwoDecimals), without a Formatter per number
        StringBuilder sb = new StringBuilder(96);
        if (hasVector) {
            TwoDecimals.append(TwoDecimals.append(sb.append("dense "), dense).append(" (cosine "), c.dense).append(')');
        }
        if (!Double.isNaN(c.lexical)) {
            if (sb.length() > 0) {
                sb.append(" + ");
            }
            TwoDecimals.append(TwoDecimals.append(sb.append("lexical "), lex).append(" (bm25 "), c.lexical).append(')');
        }
        if (sb.length() > 0) {
            sb.append(" + ");
        }
        TwoDecimals.append(sb.append("recency "), recency);
        if (date > 0) {
            TwoDecimals.append(sb.append(" + date "), date);
        }
        if (neighbour > 0) {
            TwoDecimals.append(sb.append(" + neighbour "), neighbour);
        }
        if (supersededBy != null) {
            sb.append("; superseded by ").append(supersededBy).append(", demoted");
        }
        return sb.toString();
    }

    /**
     * The {@code n} first of {@code all} in {@code order}, in that order: a bounded heap instead of
     * sorting every candidate ({@code order} is total: ties end on the id).
     */
    static List<Scored> best(List<Scored> all, int n, Comparator<Scored> order) {
        if (all.size() <= n) {
            all.sort(order);
            return all;
        }
        // the worst of the kept ones on top
        PriorityQueue<Scored> kept = new PriorityQueue<>(n + 1, order.reversed());
        for (Scored s : all) {
            if (kept.size() < n) {
                kept.add(s);
            } else if (order.compare(s, java.util.Objects.requireNonNull(kept.peek())) < 0) {
                kept.poll();
                kept.add(s);
            }
        }
        List<Scored> out = new ArrayList<>(kept);
        out.sort(order);
        return out;
    }

    private double recencyPrior(Instant time, Instant now) {
        // whole seconds from time to now, as Duration.between(time, now).toSeconds() counts them
        long seconds = now.getEpochSecond() - time.getEpochSecond();
        if (now.getNano() < time.getNano()) {
            seconds--;
        }
        double ageSeconds = Math.max(0, seconds);
        return Math.pow(0.5, ageSeconds / settings.recencyHalfLife().toSeconds());
    }

    private static @Nullable Query lexicalQuery(Map<String, Double> counts) {
        if (counts.isEmpty()) {
            return null;
        }
        BooleanQuery.Builder b = new BooleanQuery.Builder();
        int clauses = 0;
        for (Map.Entry<String, Double> e : counts.entrySet()) {
            if (clauses++ == IndexSearcher.getMaxClauseCount()) {
                break;
            }
            Query tq = new TermQuery(new Term(F_TEXT, e.getKey()));
            b.add(e.getValue() != 1.0 ? new BoostQuery(tq, e.getValue().floatValue()) : tq, BooleanClause.Occur.SHOULD);
        }
        return b.build();
    }

    static final class Candidate {
        final int doc;
        double dense = Double.NaN;
        double lexical = Double.NaN;
        Instant time = Instant.EPOCH; // readRankingFields sets it before anything ranks
        boolean superseded;
        /** {@link IndexSchema#threadHash} of the item; read by the exact scan only. */
        long thread = IndexSchema.NO_THREAD;
        @Nullable Stored stored;

        Candidate(int doc) {
            this.doc = doc;
        }
    }

    /** A scored candidate; its stored fields are loaded on first use. */
    static final class Scored {
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
                stored = IndexSchema.load(fields, doc);
            }
            return stored;
        }
    }

    /**
     * Best score first; among equal scores the newer item, then the smaller id, so that equal
     * scores never fall back on where a document happens to sit in the index.
     */
    static Comparator<Scored> bestFirst(StoredFields fields) {
        return Comparator.comparingDouble((Scored sc) -> sc.score).reversed()
                .thenComparing(sc -> sc.time, Comparator.reverseOrder())
                .thenComparing(sc -> {
                    try {
                        return sc.stored(fields).id();
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException("reading a recall hit's id failed", e);
                    }
                });
    }

}

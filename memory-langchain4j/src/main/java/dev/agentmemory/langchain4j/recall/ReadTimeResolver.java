package dev.agentmemory.langchain4j.recall;

import static dev.agentmemory.langchain4j.recall.IndexSchema.F_TEXT;

import dev.agentmemory.langchain4j.recall.IndexSchema.Stored;
import dev.agentmemory.langchain4j.recall.RecallScorer.Scored;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.ToDoubleFunction;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.search.IndexSearcher;
import org.jspecify.annotations.Nullable;

/**
 * Read-time resolution of knowledge updates: among the best results of one query, an older
 * result that is a looser near-duplicate of a newer one and shares the query's distinctive terms
 * with it is treated as superseded for that read, and so is an older result that a small learned
 * model ({@link UpdateModel}) reads as replaced by a newer one said later about the same subject.
 * By default only statements that open with a named subject in common are compared (by frame); the
 * near-duplicate rule for every result is off by default.
 */
final class ReadTimeResolver {

    private final IndexSettings settings;
    private final RecallAnalyzer analyzer;
    private final SupersessionDetector readDetector;

    ReadTimeResolver(RecallAnalyzer analyzer, IndexSettings settings) {
        this.settings = settings;
        this.analyzer = analyzer;
        this.readDetector = new SupersessionDetector(settings.readMinCosine(), settings.readMinOverlap());
    }

    /**
     * Among the best current results, an older result that is a near-duplicate of a newer one and
     * shares the query's subject with it is another version of the same fact: it is marked
     * superseded by the newer one for this read (dropped, or demoted and flagged when superseded
     * items are asked for). By frame, a looser near-duplicate about the same named subjects is
     * only demoted: ranked lower, not flagged.
     */
    List<Scored> resolve(IndexSearcher searcher, StoredFields stored, RecallQuery query,
                                           List<Scored> scored) throws IOException {
        int window = Math.min(scored.size(), query.maxResults() + settings.readTimeWindowExtra());
        Set<String> queryTerms = analyzer.terms(F_TEXT, query.text());
        ToDoubleFunction<String> idf = PartitionIdf.whenAsked(searcher, query.partition());
        List<Stored> docs = new ArrayList<>(window);
        List<Set<String>> terms = new ArrayList<>(window);
        List<float[]> vectors = new ArrayList<>(window);
        List<StatementFrame> frames = new ArrayList<>(window);
        for (int i = 0; i < window; i++) {
            Stored s = scored.get(i).stored(stored);
            docs.add(s);
            terms.add(analyzer.terms(F_TEXT, s.text()));
            vectors.add(IndexSchema.vectorOf(searcher, scored.get(i).doc));
            // a question or a hypothetical has no frame: it neither replaces nor is replaced
            frames.add(SupersessionDetector.states(s.text()) ? StatementFrame.of(s.text()) : StatementFrame.NONE);
        }
        // the learned rule compares statements about named subjects, against the query's vector
        float @Nullable [] queryVector = settings.frameResolution() && query.vector() != null
                ? Vectors.unit(query.vector(), query.vector().length, "query vector") : null;
        List<UpdatePair.@Nullable Side> sides = new ArrayList<>(window);
        double bestToQuery = 0;
        for (int i = 0; i < window; i++) {
            Stored s = docs.get(i);
            if (queryVector != null && s.supersededBy() == null) {
                sides.add(new UpdatePair.Side(s.text(), vectors.get(i), terms.get(i), frames.get(i), s.time()));
                bestToQuery = Math.max(bestToQuery, Vectors.cosine(vectors.get(i), queryVector));
            } else {
                sides.add(null);
            }
        }
        List<Scored> out = new ArrayList<>(scored.size());
        for (int b = 0; b < scored.size(); b++) {
            Scored older = scored.get(b);
            String newer = null;
            String demotedBy = null;
            if (b < window && docs.get(b).supersededBy() == null) {
                Stored o = docs.get(b);
                for (int a = 0; a < window && newer == null; a++) {
                    Stored candidate = docs.get(a);
                    if (a != b && candidate.supersededBy() == null
                            && IndexSchema.sameSpeaker(candidate.attributes(), o.attributes())
                            && candidate.time().isAfter(o.time())) {
                        Outcome r = replaces(Vectors.cosine(vectors.get(a), vectors.get(b)), a, b, terms, frames,
                                queryTerms, idf, sides, queryVector, bestToQuery);
                        if (r == Outcome.SUPERSEDE) {
                            newer = candidate.id();
                        } else if (r == Outcome.DEMOTE && demotedBy == null) {
                            demotedBy = candidate.id();
                        }
                    }
                }
            }
            if (newer == null && demotedBy != null) {
                String by = demotedBy;
                out.add(new Scored(older.doc, older.time, docs.get(b), older.score * settings.supersededDemotion(),
                        st -> older.why.apply(st) + "; older than " + by + " about the same subjects, demoted"));
            } else if (newer == null) {
                out.add(older);
            } else if (query.includeSuperseded()) {
                String by = newer;
                Stored o = docs.get(b);
                out.add(new Scored(older.doc, older.time, o.withSupersededBy(by), older.score * settings.supersededDemotion(),
                        s -> older.why.apply(o) + "; superseded by " + by + " (same subject as the query, newer), demoted"));
            }
        }
        out.sort(RecallScorer.bestFirst(stored));
        return out;
    }

    /** What read-time resolution does to an older result because of a newer one. */
    private enum Outcome { NONE, DEMOTE, SUPERSEDE }

    private static final SupersessionDetector FRAME_SUPERSEDES = new SupersessionDetector(
            SupersessionDetector.READ_FRAME_MIN_COSINE, SupersessionDetector.READ_FRAME_MIN_OVERLAP);
    private static final SupersessionDetector FRAME_DEMOTES = new SupersessionDetector(
            SupersessionDetector.READ_FRAME_MIN_COSINE, SupersessionDetector.READ_FRAME_DEMOTE_MIN_OVERLAP);

    /**
     * What result {@code a} (the newer) does to result {@code b} for this read. First the learned
     * rule ({@link UpdateModel}): two statements about a named subject in common, said at least
     * {@link UpdatePair#MIN_GAP} apart, of which the model says the newer replaces the older as
     * the query's answer. Then the near-duplicate rules ({@link #byNearDuplicates}).
     */
    private Outcome replaces(double cosine, int a, int b, List<Set<String>> terms, List<StatementFrame> frames,
                             Set<String> queryTerms, ToDoubleFunction<String> idf, List<UpdatePair.@Nullable Side> sides,
                             float @Nullable [] queryVector, double bestToQuery) {
        UpdatePair.Side older = sides.get(b);
        UpdatePair.Side newer = sides.get(a);
        if (older != null && newer != null && queryVector != null) {
            UpdatePair pair = UpdatePair.of(older, newer, queryVector, bestToQuery, t -> analyzer.terms(F_TEXT, t));
            if (pair != null && UpdateModel.supersedes(pair)) {
                return Outcome.SUPERSEDE;
            }
        }
        return byNearDuplicates(cosine, a, b, terms, frames, queryTerms, idf);
    }

    /**
     * The near-duplicate rules. By frame: when both open with a named subject in common, a
     * near-duplicate (cosine, idf-weighted overlap) that shares the query's distinctive terms
     * supersedes, and a looser near-duplicate demotes. The near-duplicate rule without frames
     * (off by default) supersedes.
     */
    private Outcome byNearDuplicates(double cosine, int a, int b, List<Set<String>> terms, List<StatementFrame> frames,
                             Set<String> queryTerms, ToDoubleFunction<String> idf) {
        if (settings.frameResolution() && frames.get(b).sharesSubject(frames.get(a))) {
            // the subjects' names are shared by definition: they weigh little in the overlap, as at write time
            Set<String> names = analyzer.terms(F_TEXT, String.join(" ", frames.get(a).subjects()) + " "
                    + String.join(" ", frames.get(b).subjects()));
            ToDoubleFunction<String> weights = t -> idf.applyAsDouble(t)
                    * (names.contains(t) ? SupersessionDetector.NAME_WEIGHT : 1.0);
            if (FRAME_SUPERSEDES.sameSubjectForQuery(cosine, terms.get(a), terms.get(b), queryTerms,
                    SupersessionDetector.READ_FRAME_MIN_QUERY_COVERAGE, weights)) {
                return Outcome.SUPERSEDE;
            }
            if (FRAME_DEMOTES.sameSubject(cosine, terms.get(a), terms.get(b), weights)) {
                return Outcome.DEMOTE;
            }
        }
        return settings.readTimeSupersession() && readDetector.sameSubjectForQuery(cosine, terms.get(a), terms.get(b),
                queryTerms, settings.readTimeMinQueryCoverage(), idf) ? Outcome.SUPERSEDE : Outcome.NONE;
    }
}

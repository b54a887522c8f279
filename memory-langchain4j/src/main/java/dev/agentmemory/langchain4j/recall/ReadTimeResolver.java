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

/**
 * Read-time resolution of knowledge updates: among the best results of one query, an older
 * result that is a looser near-duplicate of a newer one and shares the query's distinctive terms
 * with it is treated as superseded for that read.
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
     * items are asked for).
     */
    List<Scored> resolve(IndexSearcher searcher, StoredFields stored, RecallQuery query,
                                           List<Scored> scored) throws IOException {
        int window = Math.min(scored.size(), query.maxResults() + settings.readTimeWindowExtra());
        Set<String> queryTerms = analyzer.terms(F_TEXT, query.text());
        ToDoubleFunction<String> idf = PartitionIdf.of(searcher, query.partition(), List.of());
        List<Stored> docs = new ArrayList<>(window);
        List<Set<String>> terms = new ArrayList<>(window);
        List<float[]> vectors = new ArrayList<>(window);
        for (int i = 0; i < window; i++) {
            Stored s = scored.get(i).stored(stored);
            docs.add(s);
            terms.add(analyzer.terms(F_TEXT, s.text()));
            vectors.add(IndexSchema.vectorOf(searcher, scored.get(i).doc));
        }
        List<Scored> out = new ArrayList<>(scored.size());
        for (int b = 0; b < scored.size(); b++) {
            Scored older = scored.get(b);
            String newer = null;
            if (b < window && docs.get(b).supersededBy() == null) {
                Stored o = docs.get(b);
                for (int a = 0; a < window && newer == null; a++) {
                    Stored candidate = docs.get(a);
                    if (a != b && candidate.supersededBy() == null
                            && IndexSchema.sameSpeaker(candidate.attributes(), o.attributes())
                            && candidate.time().isAfter(o.time())
                            && readDetector.sameSubjectForQuery(Vectors.cosine(vectors.get(a), vectors.get(b)), terms.get(a),
                            terms.get(b), queryTerms, settings.readTimeMinQueryCoverage(), idf)) {
                        newer = candidate.id();
                    }
                }
            }
            if (newer == null) {
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
}

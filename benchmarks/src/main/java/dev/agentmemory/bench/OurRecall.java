package dev.agentmemory.bench;

import dev.agentmemory.langchain4j.recall.HybridIndex;
import dev.agentmemory.langchain4j.recall.IndexedItem;
import dev.agentmemory.langchain4j.recall.RecallHit;
import dev.agentmemory.langchain4j.recall.RecallQuery;
import java.util.List;

/** Our episodic recall, driven directly through {@link HybridIndex}. */
final class OurRecall implements AutoCloseable {

    static final String NAME = "agent-memory";
    /** Our default number of episodic results in the framed block. */
    static final int DEFAULT_RESULTS = 5;

    final HybridIndex index;

    OurRecall(int dimensions) {
        HybridIndex.Builder b = HybridIndex.builder(dimensions);
        // tuning hooks: -Dbench.write=cos,overlap  -Dbench.read=cos,overlap,queryCoverage|off
        // -Dbench.weights=dense,lexical,recency  -Dbench.candidates=minimum,perResult
        String write = System.getProperty("bench.write");
        if (write != null) {
            String[] w = write.split(",");
            b.supersessionThresholds(Double.parseDouble(w[0]), Double.parseDouble(w[1]));
        }
        String read = System.getProperty("bench.read");
        if (read != null) {
            String[] r = read.split(",");
            b.readTimeSupersession(!read.equals("off"), r.length > 1 ? Double.parseDouble(r[0]) : 0.5,
                    r.length > 1 ? Double.parseDouble(r[1]) : 0.5, r.length > 1 ? Double.parseDouble(r[2]) : 0.5);
        }
        String weights = System.getProperty("bench.weights");
        if (weights != null) {
            String[] w = weights.split(",");
            b.weights(Double.parseDouble(w[0]), Double.parseDouble(w[1]), Double.parseDouble(w[2]));
        }
        String candidates = System.getProperty("bench.candidates");
        if (candidates != null) {
            String[] c = candidates.split(",");
            b.candidates(Integer.parseInt(c[0]), Integer.parseInt(c[1]));
        }
        this.index = b.build();
    }

    void addAll(List<IndexedItem> items) {
        index.upsertAll(items);
    }

    List<RecallHit> search(RecallQuery query) {
        return index.search(query);
    }

    static List<String> ids(List<RecallHit> hits) {
        return hits.stream().map(RecallHit::id).toList();
    }

    @Override
    public void close() {
        index.close();
    }
}

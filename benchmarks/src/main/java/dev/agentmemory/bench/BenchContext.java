package dev.agentmemory.bench;

import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.allminilml6v2.AllMiniLmL6V2EmbeddingModel;
import org.jspecify.annotations.Nullable;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.List;
import java.util.Map;

/**
 * What suites share in one JVM: the output stream and one embedding model, loaded on first use.
 * Texts are embedded once: repeated texts come from a cache.
 */
final class BenchContext {

    private static final int BATCH = 256;

    private final PrintStream out;
    /** Loaded on first use unless given. */
    private @Nullable EmbeddingModel model;
    private final Map<String, float[]> cache = new HashMap<>();

    BenchContext(PrintStream out) {
        this.out = out;
    }

    BenchContext(PrintStream out, EmbeddingModel model) {
        this.out = out;
        this.model = model;
    }

    PrintStream out() {
        return out;
    }

    synchronized EmbeddingModel model() {
        if (model == null) {
            model = new AllMiniLmL6V2EmbeddingModel();
        }
        return model;
    }

    /** Embeddings of the texts, in order, each distinct text embedded once per JVM. */
    synchronized List<float[]> embedAll(List<String> texts) {
        Set<String> distinct = new LinkedHashSet<>();
        for (String t : texts) {
            if (!cache.containsKey(t)) {
                distinct.add(t);
            }
        }
        List<String> missing = List.copyOf(distinct);
        for (int from = 0; from < missing.size(); from += BATCH) {
            List<String> chunk = missing.subList(from, Math.min(missing.size(), from + BATCH));
            List<Embedding> embedded = model().embedAll(chunk.stream().map(TextSegment::from).toList()).content();
            for (int i = 0; i < chunk.size(); i++) {
                cache.put(chunk.get(i), embedded.get(i).vector());
            }
        }
        List<float[]> result = new ArrayList<>(texts.size());
        for (String t : texts) {
            result.add(cache.get(t));
        }
        return result;
    }

    float[] embed(String text) {
        return embedAll(List.of(text)).get(0);
    }
}

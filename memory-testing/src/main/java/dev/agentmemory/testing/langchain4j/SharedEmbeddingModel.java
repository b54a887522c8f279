package dev.agentmemory.testing.langchain4j;

import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.allminilml6v2.AllMiniLmL6V2EmbeddingModel;

/**
 * The real embedding model (all-MiniLM-L6-v2, ONNX), loaded once per JVM on first use: it takes
 * seconds to load and a second copy costs memory, so every test in every module uses this one.
 */
public final class SharedEmbeddingModel {

    private static final class Holder {
        static final EmbeddingModel MODEL = new AllMiniLmL6V2EmbeddingModel();
    }

    private SharedEmbeddingModel() {
    }

    /** The model, loaded on the first call. */
    public static EmbeddingModel get() {
        return Holder.MODEL;
    }

    /** The vector of {@code text}. */
    public static float[] embed(String text) {
        return get().embed(text).content().vector();
    }
}

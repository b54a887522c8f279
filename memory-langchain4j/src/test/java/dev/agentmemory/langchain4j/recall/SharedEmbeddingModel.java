package dev.agentmemory.langchain4j.recall;

import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.allminilml6v2.AllMiniLmL6V2EmbeddingModel;

/** One embedding model per test JVM (it takes seconds to load). */
final class SharedEmbeddingModel {

    private static final class Holder {
        static final EmbeddingModel MODEL = new AllMiniLmL6V2EmbeddingModel();
    }

    private SharedEmbeddingModel() {
    }

    static EmbeddingModel get() {
        return Holder.MODEL;
    }

    static float[] embed(String text) {
        return get().embed(text).content().vector();
    }
}

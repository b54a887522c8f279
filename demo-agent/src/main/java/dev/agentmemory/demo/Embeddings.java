package dev.agentmemory.demo;

import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.allminilml6v2.AllMiniLmL6V2EmbeddingModel;

/** The one embedding model of this JVM (it takes seconds to load), created on first use. */
final class Embeddings {

    private Embeddings() {
    }

    private static final class Holder {
        static final EmbeddingModel MODEL = new AllMiniLmL6V2EmbeddingModel();
    }

    static EmbeddingModel shared() {
        return Holder.MODEL;
    }
}

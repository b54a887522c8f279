package dev.agentmemory.langchain4j;

import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.allminilml6v2.AllMiniLmL6V2EmbeddingModel;

/** The real embedding model, loaded once per JVM (it takes seconds). */
public final class Embeddings {

    public static final EmbeddingModel MODEL = new AllMiniLmL6V2EmbeddingModel();

    private Embeddings() {
    }
}

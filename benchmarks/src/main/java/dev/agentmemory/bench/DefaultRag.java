package dev.agentmemory.bench;

import dev.langchain4j.data.document.Metadata;
import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.rag.content.Content;
import dev.langchain4j.rag.content.retriever.ContentRetriever;
import dev.langchain4j.rag.content.retriever.EmbeddingStoreContentRetriever;
import dev.langchain4j.rag.query.Query;
import dev.langchain4j.store.embedding.inmemory.InMemoryEmbeddingStore;
import java.util.ArrayList;
import java.util.List;

/**
 * LangChain4j's default RAG memory for one user: an {@link InMemoryEmbeddingStore} and an
 * {@link EmbeddingStoreContentRetriever} with default settings except {@code maxResults}. Each
 * segment carries its id in the metadata key {@code "id"}.
 */
final class DefaultRag {

    static final String NAME = "langchain4j-default";

    private final InMemoryEmbeddingStore<TextSegment> store = new InMemoryEmbeddingStore<>();
    private final ContentRetriever retriever;

    DefaultRag(EmbeddingModel model, int maxResults) {
        this.retriever = EmbeddingStoreContentRetriever.builder()
                .embeddingStore(store)
                .embeddingModel(model)
                .maxResults(maxResults)
                .build();
    }

    void add(String id, String text, float[] vector) {
        store.add(id, Embedding.from(vector), TextSegment.from(text, Metadata.from("id", id)));
    }

    /** Ids of the retrieved segments, best first (the retriever embeds the question itself). */
    List<String> retrieve(String question) {
        List<String> ids = new ArrayList<>();
        for (Content c : retriever.retrieve(Query.from(question))) {
            ids.add(c.textSegment().metadata().getString("id"));
        }
        return ids;
    }
}

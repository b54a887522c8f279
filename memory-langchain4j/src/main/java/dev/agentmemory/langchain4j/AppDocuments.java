package dev.agentmemory.langchain4j;

import dev.langchain4j.data.document.Metadata;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.rag.content.Content;
import dev.langchain4j.rag.content.ContentMetadata;
import dev.langchain4j.rag.content.retriever.ContentRetriever;
import dev.langchain4j.rag.query.Query;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The application's own retrievers (a knowledge base behind an {@code EmbeddingStoreContentRetriever},
 * a web search), asked alongside the memory: their contents become untrusted documents of layer
 * {@value #LAYER} in the memory's one block and budget, each carrying the {@link MemoryContent}
 * metadata (whatever {@code memory.*} keys the document itself held are dropped, so a document
 * cannot claim to be a trusted memory).
 */
final class AppDocuments {

    /** The layer of the application's documents. */
    static final String LAYER = "document";
    /** The memory layers the application's documents go before in the block (and so in the budget). */
    private static final Set<String> AFTER_DOCUMENTS = Set.of("episodic", MemoryContentRetriever.SUMMARY);
    /** Document metadata keys (LangChain4j's document loaders) that say where a document came from. */
    private static final List<String> ORIGIN_KEYS = List.of("file_name", "url");

    private final List<ContentRetriever> retrievers;

    AppDocuments(List<ContentRetriever> retrievers) {
        this.retrievers = List.copyOf(retrievers);
    }

    boolean isEmpty() {
        return retrievers.isEmpty();
    }

    /** Every retriever's contents for {@code query}, in retriever order, each in the order its retriever gave. */
    List<Content> retrieve(Query query, Instant at) {
        List<Content> out = new ArrayList<>();
        for (int i = 0; i < retrievers.size(); i++) {
            List<Content> found = retrievers.get(i).retrieve(query);
            for (int rank = 0; rank < found.size(); rank++) {
                out.add(document(found.get(rank), i + 1, rank + 1, at));
            }
        }
        return out;
    }

    /**
     * The memory's contents with {@code documents} placed after the current state, the open tasks
     * and the persistent facts, and before episodic hits and summaries.
     */
    static List<Content> merge(List<Content> memory, List<Content> documents) {
        int at = memory.size();
        for (int i = 0; i < memory.size(); i++) {
            if (AFTER_DOCUMENTS.contains(memory.get(i).textSegment().metadata().getString(MemoryContent.LAYER))) {
                at = i;
                break;
            }
        }
        List<Content> out = new ArrayList<>(memory.size() + documents.size());
        out.addAll(memory.subList(0, at));
        out.addAll(documents);
        out.addAll(memory.subList(at, memory.size()));
        return out;
    }

    private static Content document(Content c, int retriever, int rank, Instant at) {
        Metadata own = c.textSegment().metadata();
        Map<String, Object> kept = new HashMap<>();
        own.toMap().forEach((k, v) -> {
            if (!k.startsWith("memory.")) {
                kept.put(k, v);
            }
        });
        Metadata md = Metadata.from(kept);
        String source = "retriever-" + retriever;
        for (String k : ORIGIN_KEYS) {
            String origin = own.getString(k);
            if (origin != null && !origin.isBlank()) {
                source += ":" + origin;
                break;
            }
        }
        Object embeddingId = c.metadata().get(ContentMetadata.EMBEDDING_ID);
        Object score = c.metadata().get(ContentMetadata.SCORE);
        double s = score instanceof Number n ? n.doubleValue() : 0;
        md.put(MemoryContent.LAYER, LAYER);
        md.put(MemoryContent.ID, embeddingId != null ? "document:" + embeddingId : "document:" + retriever + "." + rank);
        md.put(MemoryContent.KIND, "document");
        md.put(MemoryContent.SOURCE, source);
        md.put(MemoryContent.TRUST, "untrusted");
        md.put(MemoryContent.STATUS, "retrieved");
        md.put(MemoryContent.OBSERVED_AT, at.toString());
        md.put(MemoryContent.SCORE, s);
        md.put(MemoryContent.WHY, String.format(Locale.ROOT, "result %d of the application's retriever %d%s", rank,
                retriever, score instanceof Number ? String.format(Locale.ROOT, " (score %.3f)", s) : ""));
        Map<ContentMetadata, Object> contentMd = new HashMap<>(c.metadata());
        return Content.from(TextSegment.from(c.textSegment().text(), md), contentMd);
    }
}

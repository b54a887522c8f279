package dev.agentmemory.langchain4j.recall;

import dev.agentmemory.testing.langchain4j.SharedEmbeddingModel;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Writing items new to the index buffers no delete for them: Lucene applies a buffered delete by
 * looking its id up in every segment at the next flush, so a catch-up of 100,000 items paid
 * 100,000 lookups for ids that were nowhere. An item written again still replaces the old one.
 */
class NewItemDeletesTest {

    private static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");
    private final HybridIndex index = HybridIndex.inMemory(384);

    @AfterEach
    void close() {
        index.close();
    }

    private static IndexedItem item(String id, String text) {
        return new IndexedItem(id, "acme/alice", text, SharedEmbeddingModel.embed(text), T0, Map.of("source", "test"));
    }

    @Test
    void should_buffer_no_delete_for_new_items_and_one_for_an_item_written_again() {
        List<IndexedItem> parcels = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            parcels.add(item("p" + i, "parcel " + i + " goes to depot " + (i * 7 % 13)));
        }
        index.upsertAll(parcels.subList(0, 20));
        index.upsertAll(parcels.subList(20, 40));
        index.upsert(item("dog", "my dog is called Rex"));

        assertThat(index.deletesBuffered()).isZero();

        index.upsert(item("dog", "my dog is called Max"));

        assertThat(index.deletesBuffered()).isEqualTo(1);
        List<String> texts = index.search(RecallQuery.of("acme/alice", "what is my dog called?",
                SharedEmbeddingModel.embed("what is my dog called?"), 3, T0.plus(Duration.ofDays(1))))
                .stream().map(RecallHit::text).toList();
        assertThat(texts).contains("my dog is called Max").doesNotContain("my dog is called Rex");
        assertThat(index.size()).isEqualTo(41);
    }
}

package dev.agentmemory.langchain4j.recall;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.IndexableField;
import org.junit.jupiter.api.Test;

/**
 * An item's attributes are written to its document in one order whatever order its map iterates
 * in. {@link IndexedItem} keeps a {@link Map#copyOf} copy, whose iteration order is drawn anew in
 * every JVM: written in that order, the same items made stored fields in another order from one
 * run to the next, so segments of other compressed sizes, other merges chosen by the size-based
 * merge policy and other term statistics (BM25 counts a deleted document until a merge drops it).
 * On Lucene 10.3 the same writes, in one thread with serial merges, gave different segments and
 * scores 1e-5 apart from one run to the next (see {@link RankingPinTest}).
 */
class StoredAttributeOrderTest {

    @Test
    void should_store_the_attributes_in_one_order_whatever_order_the_map_iterates_in() {
        // given: the same attributes in a map iterating in one order, and in one iterating in the reverse order
        Map<String, String> forward = new LinkedHashMap<>();
        forward.put("source", "pin");
        forward.put(HybridIndex.SPEAKER_ATTRIBUTE, "user");
        forward.put(HybridIndex.THREAD_ATTRIBUTE, "s1");
        forward.put("channel", "web");
        Map<String, String> reversed = new LinkedHashMap<>();
        List<String> keys = new ArrayList<>(forward.keySet());
        for (int i = keys.size() - 1; i >= 0; i--) {
            reversed.put(keys.get(i), forward.get(keys.get(i)));
        }
        assertThat(List.copyOf(reversed.keySet())).isNotEqualTo(List.copyOf(forward.keySet()));
        float[] unit = Vectors.unit(new float[] {0.6f, 0.8f, 0f, 0f}, 4, "v");
        Instant time = Instant.parse("2024-01-01T08:00:00Z");

        // when
        Document a = IndexSchema.toDocument(new IndexSchema.Stored("m1", "acme/alice", "I like tea.", time, forward, null), unit);
        Document b = IndexSchema.toDocument(new IndexSchema.Stored("m1", "acme/alice", "I like tea.", time, reversed, null), unit);

        // then: the same stored fields in the same order (so the same bytes once compressed)
        assertThat(stored(b)).isEqualTo(stored(a)).contains(
                IndexSchema.F_ATTR_KEY + "=channel", IndexSchema.F_ATTR_VALUE + "=web");
    }

    /** The document's stored fields in order, as name=value. */
    private static List<String> stored(Document doc) {
        List<String> out = new ArrayList<>();
        for (IndexableField f : doc.getFields()) {
            if (f.fieldType().stored()) {
                Object value = f.stringValue() != null ? f.stringValue() : f.numericValue();
                out.add(f.name() + "=" + value);
            }
        }
        return out;
    }
}

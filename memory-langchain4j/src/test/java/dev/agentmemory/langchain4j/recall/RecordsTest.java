package dev.agentmemory.langchain4j.recall;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RecordsTest {

    private static final Instant T = Instant.parse("2024-01-01T00:00:00Z");

    @Test
    void should_copy_vector_and_attributes_when_item_is_built() {
        float[] v = {1, 2};
        Map<String, String> attrs = new HashMap<>(Map.of("k", "v"));
        IndexedItem item = new IndexedItem("i", "p", "t", v, T, attrs);
        v[0] = 9;
        attrs.put("x", "y");
        item.vector()[1] = 7;
        assertThat(item.vector()).containsExactly(1, 2);
        assertThat(item.attributes()).isEqualTo(Map.of("k", "v"));
    }

    @Test
    void should_reject_invalid_items_with_the_bad_value_in_the_message() {
        assertThatThrownBy(() -> IndexedItem.of(" ", "p", "t", new float[] {1}, T))
                .hasMessage("id must not be blank: ' '");
        assertThatThrownBy(() -> IndexedItem.of("i", "", "t", new float[] {1}, T))
                .hasMessage("partition must not be blank: ''");
        assertThatThrownBy(() -> IndexedItem.of("i", "p", "t", new float[] {Float.NaN}, T))
                .hasMessage("vector of item i has a non-finite component: NaN");
    }

    @Test
    void should_reject_invalid_queries_with_the_bad_value_in_the_message() {
        assertThatThrownBy(() -> RecallQuery.of("p", "q", null, 0, T)).hasMessage("maxResults must be >= 1: 0");
        assertThatThrownBy(() -> RecallQuery.of("p", "  ", null, 3, T))
                .hasMessage("a query needs a non-blank text or a vector (text was '  ')");
    }

    @Test
    void should_require_superseded_by_exactly_when_hit_is_superseded() {
        assertThatThrownBy(() -> new RecallHit("i", 1, "t", T, Map.of(), "w", true, null))
                .hasMessage("superseded (true) must be true exactly when supersededBy is set: null");
    }

    @Test
    void should_reject_invalid_builder_settings_naming_them() {
        assertThatThrownBy(() -> HybridIndex.builder(0)).hasMessage("dimensions must be in 1..4096: 0");
        assertThatThrownBy(() -> HybridIndex.builder(8).hnsw(1, 100)).hasMessage("hnsw maxConn must be in 2..512: 1");
        assertThatThrownBy(() -> HybridIndex.builder(8).hnsw(16, 1)).hasMessage("hnsw beamWidth must be in 2..3200: 1");
        assertThatThrownBy(() -> HybridIndex.builder(8).supersessionThresholds(1.5, 0.5))
                .hasMessage("supersession minCosine must be in (0, 1]: 1.5");
        assertThatThrownBy(() -> HybridIndex.builder(8).weights(0, 0, 1))
                .hasMessage("dense and lexical weights must not both be 0");
    }
}

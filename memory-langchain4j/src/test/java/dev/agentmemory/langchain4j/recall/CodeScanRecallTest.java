package dev.agentmemory.langchain4j.recall;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The vector search of large partitions (sign codes compared with the query, the nearest scored
 * exactly) against an index that scores every item exactly, through {@link HybridIndex}: at many
 * partition sizes around the switch between the two ({@link HybridIndex.Builder#exactSearchBelow}),
 * with several partitions sharing one index, deleted items, superseded items in and out of scope,
 * a partition of a few items inside a large index, vectors larger than Lucene's vector field
 * allows, and segments written at different times.
 */
class CodeScanRecallTest {

    private static final Instant T0 = Instant.parse("2024-05-01T10:00:00Z");
    private static final int DIMS = 96;

    /** Clustered vectors: one of {@code centroids} plus noise. */
    private static float[] near(Random random, float[][] centroids, int dims) {
        float[] c = centroids[random.nextInt(centroids.length)];
        float[] v = new float[dims];
        for (int i = 0; i < dims; i++) {
            v[i] = (float) (c[i] + 0.45 * random.nextGaussian());
        }
        return v;
    }

    private static float[][] centroids(Random random, int count, int dims) {
        float[][] out = new float[count][dims];
        for (float[] c : out) {
            for (int i = 0; i < dims; i++) {
                c[i] = (float) random.nextGaussian();
            }
        }
        return out;
    }

    private static List<String> ids(List<RecallHit> hits) {
        return hits.stream().map(RecallHit::id).toList();
    }

    @Test
    void should_find_what_scoring_every_item_finds_at_sizes_around_the_switch_with_partitions_and_deletes() {
        Random random = new Random(5);
        float[][] centroids = centroids(random, 40, DIMS);
        String[] partitions = {"acme/alice", "acme/bob", "acme/carol"};
        double hits = 0;
        int asked = 0;
        for (int size : new int[] {1, 9, 10, 11, 150, 399, 400, 401, 1_200}) {
            // scan: the code scan from 400 items on; exact: every item scored exactly
            try (HybridIndex scan = HybridIndex.builder(DIMS).supersessionDetection(false).exactSearchBelow(399).build();
                 HybridIndex exact = HybridIndex.builder(DIMS).supersessionDetection(false)
                         .exactSearchBelow(Integer.MAX_VALUE).build()) {
                List<IndexedItem> items = new ArrayList<>();
                // three partitions interleaved; carol's has a tenth of the items (a filter matching few)
                for (int i = 0; i < size * 3; i++) {
                    String partition = partitions[i % 3];
                    if (partition.equals("acme/carol") && i % 30 != 2) {
                        continue;
                    }
                    items.add(IndexedItem.of(size + "-" + i, partition, "item " + i, near(random, centroids, DIMS),
                            T0.plusSeconds(i)));
                }
                for (HybridIndex index : List.of(scan, exact)) {
                    // in two batches, each searched (refreshed) after: two segments
                    index.upsertAll(items.subList(0, items.size() / 2));
                    index.refresh();
                    index.upsertAll(items.subList(items.size() / 2, items.size()));
                    index.refresh();
                }
                // a fifth of Alice's items deleted, from both segments
                Set<String> deleted = new HashSet<>();
                for (IndexedItem item : items) {
                    if (item.partition().equals("acme/alice") && random.nextInt(5) == 0) {
                        scan.delete(item.id());
                        exact.delete(item.id());
                        deleted.add(item.id());
                    }
                }
                for (int q = 0; q < 12; q++) {
                    String partition = partitions[q % 3];
                    RecallQuery query = RecallQuery.of(partition, "", near(random, centroids, DIMS), 10,
                            T0.plusSeconds(10_000));
                    List<String> byScan = ids(scan.search(query));
                    List<String> byExact = ids(exact.search(query));

                    assertThat(byScan).as("size %d query %d", size, q).hasSameSizeAs(byExact)
                            .noneMatch(deleted::contains);
                    for (String id : byScan) {
                        int i = Integer.parseInt(id.substring(id.indexOf('-') + 1));
                        assertThat(partitions[i % 3]).as("partition of %s", id).isEqualTo(partition);
                    }
                    if (byExact.size() < 10) {
                        // fewer items than results: all of them, whichever way
                        assertThat(byScan).as("size %d query %d", size, q).containsExactlyInAnyOrderElementsOf(byExact);
                    }
                    hits += byScan.stream().filter(new HashSet<>(byExact)::contains).count();
                    asked += byExact.size();
                }
            }
        }
        assertThat(hits / asked).isGreaterThanOrEqualTo(0.98);
    }

    @Test
    void should_leave_superseded_items_out_unless_asked_for_as_the_exact_scan_does() {
        // given: statements of Alice that replace earlier ones, among many other items
        Random random = new Random(9);
        float[][] centroids = centroids(random, 20, DIMS);
        float[] colour = near(random, centroids, DIMS);
        float[] colourNow = colour.clone();
        colourNow[0] += 0.01f;
        try (HybridIndex scan = HybridIndex.builder(DIMS).exactSearchBelow(0).build();
             HybridIndex exact = HybridIndex.builder(DIMS).exactSearchBelow(Integer.MAX_VALUE).build()) {
            for (HybridIndex index : List.of(scan, exact)) {
                List<IndexedItem> items = new ArrayList<>();
                Random same = new Random(1);
                for (int i = 0; i < 600; i++) {
                    items.add(IndexedItem.of("n" + i, "acme/alice", "note " + i, near(same, centroids, DIMS), T0.plusSeconds(i)));
                }
                index.upsertAll(items);
                index.upsert(IndexedItem.of("old", "acme/alice", "My favourite colour is green.", colour, T0.plusSeconds(700)));
                index.upsert(IndexedItem.of("new", "acme/alice", "My favourite colour is blue.", colourNow, T0.plusSeconds(800)));
            }
            assertThat(exact.supersededBy("old")).contains("new");
            assertThat(scan.supersededBy("old")).contains("new");

            // when: asked near the statements, current items only, then with superseded ones
            RecallQuery current = RecallQuery.of("acme/alice", "", colour, 5, T0.plusSeconds(900));
            RecallQuery all = new RecallQuery("acme/alice", "", colour, 5, T0.plusSeconds(900), true, 0);
            RecallQuery everything = new RecallQuery("acme/alice", "", colour, 700, T0.plusSeconds(900), true, 0);

            // then: the same hits as scoring every item
            assertThat(ids(scan.search(current))).contains("new").doesNotContain("old")
                    .isEqualTo(ids(exact.search(current)));
            assertThat(ids(scan.search(all))).isEqualTo(ids(exact.search(all)));
            List<RecallHit> withOld = scan.search(everything);
            assertThat(withOld).filteredOn(h -> h.id().equals("old")).singleElement()
                    .satisfies(h -> assertThat(h.superseded()).isTrue());
            assertThat(ids(withOld)).isEqualTo(ids(exact.search(everything)));
        }
    }

    @Test
    void should_index_and_search_vectors_of_more_dimensions_than_a_lucene_vector_field_takes() {
        // given: 1,536-dimension vectors (an OpenAI embedding model's size; Lucene's vector fields stop at 1,024)
        int dims = 1_536;
        Random random = new Random(3);
        float[][] centroids = centroids(random, 10, dims);
        List<IndexedItem> items = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            items.add(IndexedItem.of("m" + i, "acme/alice", "item " + i, near(random, centroids, dims), T0.plusSeconds(i)));
        }
        try (HybridIndex scan = HybridIndex.builder(dims).supersessionDetection(false).exactSearchBelow(0).build()) {
            // when
            scan.upsertAll(items);

            // then: each item is its own nearest, and reads back as written
            for (int i = 0; i < 300; i += 37) {
                RecallQuery query = RecallQuery.of("acme/alice", "", items.get(i).vectorNoCopy(), 1, T0.plusSeconds(400));
                assertThat(ids(scan.search(query))).containsExactly("m" + i);
                assertThat(scan.find("m" + i).orElseThrow().vectorNoCopy())
                        .containsExactly(Vectors.unit(items.get(i).vectorNoCopy(), dims, "v"));
            }
        }
    }

    @Test
    void should_keep_a_segments_codes_in_memory_while_it_is_open_and_free_them_when_the_index_closes() {
        Random random = new Random(4);
        float[][] centroids = centroids(random, 10, DIMS);
        int before = VectorCodes.cachedSegments();
        try (HybridIndex scan = HybridIndex.builder(DIMS).supersessionDetection(false).exactSearchBelow(0).build()) {
            for (int batch = 0; batch < 3; batch++) {
                List<IndexedItem> items = new ArrayList<>();
                for (int i = 0; i < 100; i++) {
                    items.add(IndexedItem.of(batch + "-" + i, "acme/alice", "item", near(random, centroids, DIMS),
                            T0.plusSeconds(batch * 100L + i)));
                }
                scan.upsertAll(items);
                scan.search(RecallQuery.of("acme/alice", "", near(random, centroids, DIMS), 5, T0.plusSeconds(1_000)));
            }
            assertThat(VectorCodes.cachedSegments() - before).isPositive();
        }
        assertThat(VectorCodes.cachedSegments()).isLessThanOrEqualTo(before);
    }
}

package dev.agentmemory.langchain4j.recall;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.lucene.codecs.Codec;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.DocValuesType;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.SegmentCommitInfo;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the recall index needs of Lucene, on whichever version runs the tests (9.12 by default,
 * 10.3 with the {@code lucene10} profile on Java 21+): the files name the running Lucene's own
 * codec, so a plain reader of that version opens them; vectors read back per document exactly as
 * written, across segments and deletes; and the code scan ranks a partition as the exact
 * scan does.
 */
class LuceneVersionsTest {

    private static final Instant T0 = Instant.parse("2024-05-01T10:00:00Z");
    private static final int DIMS = 16;

    @TempDir
    Path dir;

    private static float[] randomVector(Random random) {
        float[] v = new float[DIMS];
        for (int i = 0; i < DIMS; i++) {
            v[i] = (float) random.nextGaussian();
        }
        return v;
    }

    private static IndexedItem item(int i, String partition, float[] v) {
        return new IndexedItem("m" + i, partition, "memory number " + i, v, T0.plusSeconds(i), Map.of());
    }

    @Test
    void should_write_files_a_plain_reader_of_the_running_lucene_opens_and_read_vectors_back_as_written()
            throws IOException {
        Random random = new Random(7);
        List<float[]> written = new ArrayList<>();
        Path path = dir.resolve("index");
        try (HybridIndex index = HybridIndex.builder(DIMS).directory(path).supersessionDetection(false).build()) {
            // three segments (a write, then a refresh, three times), one item deleted from the first
            for (int batch = 0; batch < 3; batch++) {
                List<IndexedItem> items = new ArrayList<>();
                for (int i = batch * 10; i < batch * 10 + 10; i++) {
                    float[] v = randomVector(random);
                    written.add(v);
                    items.add(item(i, "acme/alice", v));
                }
                index.upsertAll(items);
                index.refresh();
            }
            index.delete("m3");
            index.commit(Map.of());
        }

        try (FSDirectory directory = FSDirectory.open(path)) {
            SegmentInfos infos = SegmentInfos.readLatestCommit(directory);
            assertThat(infos.size()).isGreaterThan(1);
            for (SegmentCommitInfo segment : infos) {
                assertThat(segment.info.getCodec().getName()).isEqualTo(Codec.getDefault().getName());
            }
            try (DirectoryReader reader = DirectoryReader.open(directory)) {
                assertThat(reader.numDocs()).isEqualTo(29);
                for (LeafReaderContext leaf : reader.leaves()) {
                    // no vector field (no graph, no vectors format of ours): vectors and codes are doc values
                    assertThat(leaf.reader().getFieldInfos().fieldInfo(IndexSchema.F_VECTOR)).isNull();
                    assertThat(leaf.reader().getFieldInfos().fieldInfo(IndexSchema.F_VECTOR_DATA).getDocValuesType())
                            .isEqualTo(DocValuesType.BINARY);
                    assertThat(leaf.reader().getFieldInfos().fieldInfo(IndexSchema.F_CODE).getDocValuesType())
                            .isEqualTo(DocValuesType.BINARY);
                }
            }
        }
        try (HybridIndex reopened = HybridIndex.builder(DIMS).directory(path).build()) {
            assertThat(reopened.find("m3")).isEmpty();
            for (int i = 0; i < written.size(); i++) {
                if (i == 3) {
                    continue;
                }
                float[] unit = Vectors.unit(written.get(i), DIMS, "v");
                assertThat(reopened.find("m" + i).orElseThrow().vectorNoCopy()).as("m%d", i).containsExactly(unit);
            }
        }
    }

    @Test
    void should_rank_a_partition_by_code_as_the_exact_scan_does() {
        Random random = new Random(11);
        List<IndexedItem> items = new ArrayList<>();
        for (int i = 0; i < 600; i++) {
            // another partition's items interleaved with Alice's: the code scan filters them out
            items.add(item(i, i % 3 == 0 ? "acme/bob" : "acme/alice", randomVector(random)));
        }
        try (HybridIndex graph = HybridIndex.builder(DIMS).supersessionDetection(false).exactSearchBelow(0)
                .denseCandidates(100, 10).build();
             HybridIndex exact = HybridIndex.builder(DIMS).supersessionDetection(false)
                     .exactSearchBelow(Integer.MAX_VALUE).build()) {
            graph.upsertAll(items);
            exact.upsertAll(items);
            for (int q = 0; q < 20; q++) {
                RecallQuery query = RecallQuery.of("acme/alice", "", randomVector(random), 10, T0.plusSeconds(700));
                List<String> byGraph = graph.search(query).stream().map(RecallHit::id).toList();
                List<String> byScan = exact.search(query).stream().map(RecallHit::id).toList();
                assertThat(byGraph).as("query %d", q).hasSize(10).isEqualTo(byScan);
            }
        }
    }

    @Test
    void should_build_and_search_a_graph_with_the_smallest_settings_the_builder_accepts() {
        Random random = new Random(3);
        List<IndexedItem> items = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            items.add(item(i, "acme/alice", randomVector(random)));
        }
        float[] first = items.get(0).vectorNoCopy();
        try (HybridIndex index = HybridIndex.builder(DIMS).hnsw(2, 2).exactSearchBelow(0)
                .supersessionDetection(false).build()) {
            index.upsertAll(items);
            List<RecallHit> hits = index.search(RecallQuery.of("acme/alice", "", first, 1, T0.plusSeconds(60)));
            assertThat(hits).extracting(RecallHit::id).containsExactly("m0");
        }
    }
}

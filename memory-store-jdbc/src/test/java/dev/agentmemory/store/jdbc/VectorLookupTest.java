package dev.agentmemory.store.jdbc;

import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.core.spi.StoredVector;
import dev.agentmemory.core.spi.VectorModel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Reading a few stored vectors of a partition with many costs a key lookup per item on an H2
 * file, not a walk over the partition's rows (a catch-up reads a long log's vectors in small
 * batches: a walk per batch made it quadratic).
 */
class VectorLookupTest {

    private static final Partition ALICE = new Partition("shop", "alice");
    private static final Partition BOB = new Partition("shop", "bob");
    private static final VectorModel MODEL = new VectorModel("mini", 4);
    private static final VectorModel OTHER = new VectorModel("mini", 8);

    @TempDir
    Path dir;

    @Test
    void should_read_a_batch_of_vectors_by_key_when_a_reopened_file_keeps_many() {
        // given: 30,000 vectors of alice (and some of bob, and of another dimension) in a file, reopened so that H2's cache is empty
        Path file = dir.resolve("memory");
        try (EventStore store = JdbcStores.h2File(file, ReadCountingFileSystem.prefix())) {
            for (int from = 1; from <= 30_000; from += 1_000) {
                store.saveVectors(ALICE, MODEL, vectors(from, from + 999, 4));
            }
            store.saveVectors(ALICE, OTHER, vectors(1, 100, 8));
            store.saveVectors(BOB, MODEL, vectors(1, 100, 4));
        }
        try (EventStore store = JdbcStores.h2File(file, ReadCountingFileSystem.prefix())) {
            List<String> wanted = IntStream.of(7, 15_000, 29_999, 30_001).mapToObj(VectorLookupTest::item).toList();

            // when
            long before = ReadCountingFileSystem.bytesRead();
            Map<String, StoredVector> found = store.vectors(ALICE, MODEL, wanted);
            long read = ReadCountingFileSystem.bytesRead() - before;

            // then: the three kept ones, with their sequence and components; the missing one absent
            assertThat(found).containsOnlyKeys(item(7), item(15_000), item(29_999));
            assertThat(found.get(item(15_000))).isEqualTo(vector(15_000, 4));
            // key lookups read 12 KB here; a walk over alice's key entries read 1.2 MB
            assertThat(read).as("bytes read for 4 vectors").isLessThan(64 * 1024);
        }
    }

    @Test
    void should_read_only_the_asked_model_and_partition() {
        try (EventStore store = JdbcStores.h2File(dir.resolve("small"))) {
            store.saveVectors(ALICE, MODEL, vectors(1, 3, 4));
            store.saveVectors(ALICE, OTHER, vectors(2, 2, 8));
            store.saveVectors(BOB, MODEL, vectors(3, 4, 4));
            List<String> asked = List.of(item(1), item(2), item(2), item(3), item(4));

            assertThat(store.vectors(ALICE, MODEL, asked)).containsOnlyKeys(item(1), item(2), item(3))
                    .containsEntry(item(2), vector(2, 4));
            assertThat(store.vectors(ALICE, OTHER, asked)).containsOnlyKeys(item(2)).containsEntry(item(2), vector(2, 8));
            assertThat(store.vectors(BOB, MODEL, asked)).containsOnlyKeys(item(3), item(4));

            store.deleteVectors(ALICE, List.of(item(2), item(9)));
            assertThat(store.vectors(ALICE, MODEL, asked)).containsOnlyKeys(item(1), item(3));
            assertThat(store.vectors(ALICE, OTHER, asked)).isEmpty();
            assertThat(store.vectors(BOB, MODEL, asked)).containsOnlyKeys(item(3), item(4));
        }
    }

    private static List<StoredVector> vectors(int from, int to, int dims) {
        return IntStream.rangeClosed(from, to).mapToObj(n -> vector(n, dims)).toList();
    }

    private static StoredVector vector(int n, int dims) {
        float[] v = new float[dims];
        for (int i = 0; i < dims; i++) {
            v[i] = n + i / 10f;
        }
        return new StoredVector(item(n), n, v);
    }

    private static String item(int n) {
        return "record-" + n;
    }
}

package dev.agentmemory.bench;

import dev.agentmemory.langchain4j.recall.HybridIndex;
import dev.agentmemory.langchain4j.recall.IndexedItem;
import dev.agentmemory.langchain4j.recall.RecallQuery;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Where exact search stops being cheap: the median and p99 of one hybrid query (text and vector,
 * 15 results: what the episodic layer asks for to show 5) on one partition of N items (chat
 * sessions of 20 turns), scored exactly (every item; {@code exact-plain}: without query function
 * words, neighbouring turns and date cues) and through the HNSW graph with Lucene's BM25,
 * clustered synthetic vectors as in {@code perf}. Run with
 * {@code java -cp benchmarks/target/benchmarks.jar dev.agentmemory.bench.ExactSearchCostBench [N ...]}.
 */
final class ExactSearchCostBench {

    private static final int QUERIES = 200;
    private static final int WARMUP = 50;
    /** Results asked for (the episodic layer asks for three times the results it shows, at least 10 more). */
    private static final int RESULTS = 15;

    private ExactSearchCostBench() {
    }

    public static void main(String[] args) {
        int[] sizes = args.length == 0 ? new int[] {1_000, 5_000, 10_000, 20_000, 50_000}
                : java.util.Arrays.stream(args).mapToInt(Integer::parseInt).toArray();
        System.out.printf("%-8s %-12s %10s %10s%n", "items", "search", "median ms", "p99 ms");
        for (int size : sizes) {
            Random random = new Random(7L + size);
            String[] words = Words.vocabulary(5_000, random);
            List<float[]> centroids = new ArrayList<>();
            for (int c = 0; c < Math.max(1, size / 50); c++) {
                centroids.add(PerfSuite.randomUnit(random));
            }
            List<IndexedItem> items = new ArrayList<>(size);
            Instant base = Instant.parse("2024-01-01T00:00:00Z");
            for (int i = 0; i < size; i++) {
                // turns of chat sessions of 20 messages, so that neighbouring turns are looked up
                items.add(new IndexedItem("m" + i, "u", Words.sentence(words, random, 12), PerfSuite.vector(random, centroids),
                        base.plusSeconds(i), java.util.Map.of(HybridIndex.THREAD_ATTRIBUTE, "s" + i / 20)));
            }
            List<float[]> queries = new ArrayList<>();
            List<String> texts = new ArrayList<>();
            for (int q = 0; q < WARMUP + QUERIES; q++) {
                queries.add(PerfSuite.vector(random, centroids));
                texts.add(Words.sentence(words, random, 6));
            }
            for (String search : List.of("exact", "exact-plain", "hnsw")) {
                boolean exact = !search.equals("hnsw");
                HybridIndex.Builder builder = HybridIndex.builder(queries.get(0).length).supersessionDetection(false)
                        .exactSearchBelow(exact ? Integer.MAX_VALUE : 0);
                if (search.equals("exact-plain")) {
                    // the scoring before query function words, neighbouring turns and date cues
                    builder.dropQueryFunctionWords(false).neighbourShare(0).dateWeight(0);
                }
                try (HybridIndex index = builder.build()) {
                    index.upsertAll(items);
                    index.optimize();
                    double[] ms = new double[QUERIES];
                    Instant now = base.plusSeconds(size + 60L);
                    for (int q = 0; q < WARMUP + QUERIES; q++) {
                        long a = System.nanoTime();
                        index.search(RecallQuery.of("u", texts.get(q), queries.get(q), RESULTS, now));
                        if (q >= WARMUP) {
                            ms[q - WARMUP] = (System.nanoTime() - a) / 1e6;
                        }
                    }
                    System.out.printf("%-8d %-12s %10s %10s%n", size, search,
                            Stats.f3(Stats.percentile(ms, 50)), Stats.f3(Stats.percentile(ms, 99)));
                }
            }
        }
    }
}

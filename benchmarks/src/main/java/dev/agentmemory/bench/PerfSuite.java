package dev.agentmemory.bench;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentmemory.langchain4j.recall.HybridIndex;
import dev.agentmemory.langchain4j.recall.IndexedItem;
import dev.agentmemory.langchain4j.recall.RecallHit;
import dev.agentmemory.langchain4j.recall.RecallQuery;
import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.store.embedding.EmbeddingMatch;
import dev.langchain4j.store.embedding.EmbeddingSearchRequest;
import dev.langchain4j.store.embedding.inmemory.InMemoryEmbeddingStore;
import java.io.PrintStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * Recall latency with 1k, 10k and 100k memories in one user's scope: our index (dense-only and
 * hybrid queries) against exact {@link InMemoryEmbeddingStore} search, medians and p99, and our
 * recall@10 against the exact top 10. Vectors (384 dimensions, seeded) are clustered synthetic
 * data like sentence embeddings: one random centroid per 50 memories (2,000 at 100k), each memory
 * and query its centroid plus gaussian noise, normalised. {@code -Dperf.vectors=random} uses
 * independent random unit vectors instead (the worst case for HNSW). Texts are random words; query
 * embedding time is measured separately with the real model. {@code --limit N} keeps only the
 * sizes up to N; our index is built with HNSW beam width 50 (max connections 16) and fetches at least
 * 150 candidates (15 per result). {@code -Dperf.recallOnly=true} runs only this recall-latency part. The bulk load is followed by {@link HybridIndex#optimize()} (counted in its build time).
 */
final class PerfSuite implements Suite {

    static final int[] SIZES = {1_000, 10_000, 100_000};
    private static final int DIMENSIONS = 384;
    private static final int K = 10;
    private static final int WARMUP = 30;
    private static final int QUERIES = 200;
    private static final String USER = "tenant-1/user-1";
    private static final int MEMORIES_PER_CLUSTER = 50;
    private static final double CLUSTER_NOISE = 0.045;

    /** How benchmark vectors are generated. */
    private static boolean randomVectors() {
        return "random".equals(System.getProperty("perf.vectors", "clustered"));
    }

    @Override
    public String name() {
        return "perf";
    }

    @Override
    public boolean needsData() {
        return false;
    }

    @Override
    public String description() {
        return "recall latency at 1k/10k/100k memories vs exact InMemoryEmbeddingStore, ChatMemoryStore cost per turn,"
                + " durable writes, plugin overhead per turn (--limit N: sizes <= N)";
    }

    @Override
    public ObjectNode run(SuiteOptions options, BenchContext context) throws Exception {
        int limit = options.limitOr(Integer.MAX_VALUE);
        ObjectNode json = JsonNodeFactory.instance.objectNode();
        json.put("suite", name());
        json.put("dimensions", DIMENSIONS);
        json.put("cores", Runtime.getRuntime().availableProcessors());
        json.put("java", System.getProperty("java.version"));
        json.put("vectors", randomVectors() ? "random unit" : "clustered synthetic");
        PrintStream out = context.out();
        ObjectNode embedding = queryEmbedding(context);
        json.set("query_embedding_ms", embedding);
        out.printf("query embedding (AllMiniLmL6V2, one question): median %s ms, p99 %s ms (excluded below)%n",
                Stats.f3(embedding.get("median").asDouble()), Stats.f3(embedding.get("p99").asDouble()));
        out.printf("vectors: %s%n", randomVectors() ? "random unit (-Dperf.vectors=random)"
                : "clustered synthetic (centroid + gaussian noise, " + MEMORIES_PER_CLUSTER + " memories per centroid)");
        out.printf("%-8s %-28s %12s %12s %12s %10s%n", "memories", "system", "median ms", "p99 ms", "build s",
                "recall@10");
        ArrayNode recall = json.putArray("recall_latency");
        for (int size : SIZES) {
            if (size > limit || Boolean.getBoolean("perf.turnOnly")) {
                continue;
            }
            recall.add(measure(size, out));
        }
        if (!Boolean.getBoolean("perf.recallOnly")) {
            runStoreBenches(json, limit, out);
        }
        json.set("cold_start", coldStart(limit, out));
        return json;
    }

    /** Store cost per turn, durable writes and plugin overhead per turn; {@code --limit} shrinks them too. */
    private static void runStoreBenches(ObjectNode json, int limit, PrintStream out) throws Exception {
        boolean full = limit >= 10_000;
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("agent-memory-perf");
        try {
            if (!Boolean.getBoolean("perf.turnOnly")) {
                json.set("store_cost", new StoreCostBench(full ? 60 : 10, 8, dir).run(limit, out));
                json.set("durable_writes", new DurableWriteBench(dir).run(Math.min(limit, 5_000), out));
            }
            json.set("turn_overhead", new TurnOverheadBench(dir, full ? 300 : 30, full ? 100 : 10, 200).run(Math.min(limit, 10_000), out));
        } finally {
            try (var files = java.nio.file.Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }

    /**
     * Heap per memory and a user's first recall in a new memory ({@link ColdStartBench}) at 10k and
     * 100k memories (those within {@code --limit}), or at the sizes of {@code -Dperf.coldStart=N,M}.
     */
    private static ObjectNode coldStart(int limit, PrintStream out) throws Exception {
        String sizes = System.getProperty("perf.coldStart", "10000,100000");
        int[] within = java.util.Arrays.stream(sizes.split(",")).map(String::trim).mapToInt(Integer::parseInt)
                .filter(n -> n <= limit).toArray();
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("agent-memory-cold");
        try {
            return new ColdStartBench(dir).run(within, out);
        } finally {
            try (var files = java.nio.file.Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }

    private static ObjectNode queryEmbedding(BenchContext context) {
        Random random = new Random(7);
        String[] words = Words.vocabulary(2_000, random);
        for (int i = 0; i < 5; i++) {
            context.model().embed("warm up " + i);
        }
        double[] ms = new double[50];
        for (int i = 0; i < ms.length; i++) {
            String q = "What did we decide about " + Words.sentence(words, random, 8) + "?";
            long t = System.nanoTime();
            context.model().embed(q);
            ms[i] = (System.nanoTime() - t) / 1e6;
        }
        return Stats.latency(ms);
    }

    private static ObjectNode measure(int size, PrintStream out) {
        Random random = new Random(42L + size);
        String[] words = Words.vocabulary(5_000, random);
        List<IndexedItem> items = new ArrayList<>(size);
        InMemoryEmbeddingStore<TextSegment> exact = new InMemoryEmbeddingStore<>();
        Instant base = Instant.parse("2024-01-01T00:00:00Z");
        List<String> ids = new ArrayList<>(size);
        List<Embedding> embeddings = new ArrayList<>(size);
        List<TextSegment> segments = new ArrayList<>(size);
        List<float[]> centroids = new ArrayList<>();
        for (int c = 0; c < Math.max(1, size / MEMORIES_PER_CLUSTER); c++) {
            centroids.add(randomUnit(random));
        }
        for (int i = 0; i < size; i++) {
            float[] v = vector(random, centroids);
            String text = Words.sentence(words, random, 12);
            String id = "m" + i;
            items.add(IndexedItem.of(id, USER, text, v, base.plusSeconds(i)));
            ids.add(id);
            embeddings.add(Embedding.from(v));
            segments.add(TextSegment.from(text));
        }
        long t0 = System.nanoTime();
        exact.addAll(ids, embeddings, segments);
        double exactBuild = (System.nanoTime() - t0) / 1e9;
        t0 = System.nanoTime();
        // bulk load: random vectors have no near-duplicates, so knowledge-update checks are off here
        HybridIndex ours = HybridIndex.builder(DIMENSIONS).supersessionDetection(false)
                .hnsw(16, 50).candidates(150, 15).build();
        try (ours) {
            ours.upsertAll(items);
            ours.optimize();
            double oursBuild = (System.nanoTime() - t0) / 1e9;
            items.clear();
            Instant now = base.plusSeconds(size + 60L);
            List<float[]> queries = new ArrayList<>();
            List<String> texts = new ArrayList<>();
            for (int q = 0; q < WARMUP + QUERIES; q++) {
                queries.add(vector(random, centroids));
                texts.add(Words.sentence(words, random, 6));
            }
            double[] oursMs = new double[QUERIES];
            double[] hybridMs = new double[QUERIES];
            double[] exactMs = new double[QUERIES];
            double recallSum = 0;
            for (int q = 0; q < WARMUP + QUERIES; q++) {
                float[] v = queries.get(q);
                long a = System.nanoTime();
                List<RecallHit> dense = ours.search(RecallQuery.of(USER, "", v, K, now));
                long b = System.nanoTime();
                ours.search(RecallQuery.of(USER, texts.get(q), v, K, now));
                long c = System.nanoTime();
                List<EmbeddingMatch<TextSegment>> matches = exact.search(EmbeddingSearchRequest.builder()
                        .queryEmbedding(Embedding.from(v)).maxResults(K).build()).matches();
                long d = System.nanoTime();
                if (q >= WARMUP) {
                    int i = q - WARMUP;
                    oursMs[i] = (b - a) / 1e6;
                    hybridMs[i] = (c - b) / 1e6;
                    exactMs[i] = (d - c) / 1e6;
                    Set<String> truth = new HashSet<>();
                    matches.forEach(m -> truth.add(m.embeddingId()));
                    recallSum += Stats.recallAt(OurRecall.ids(dense), truth, K);
                }
            }
            ObjectNode row = JsonNodeFactory.instance.objectNode();
            row.put("memories", size);
            row.put("queries", QUERIES);
            row.set("agent-memory", Stats.latency(oursMs).put("build_seconds", Stats.round(oursBuild)));
            row.set("agent-memory-hybrid", Stats.latency(hybridMs));
            row.set(DefaultRag.NAME, Stats.latency(exactMs).put("build_seconds", Stats.round(exactBuild)));
            double recall = recallSum / QUERIES;
            row.put("recall@10_vs_exact", Stats.round(recall));
            row.put("speedup_median", Stats.round(Stats.percentile(exactMs, 50) / Stats.percentile(oursMs, 50)));
            for (Map.Entry<String, double[]> e : Map.of(
                    "agent-memory (dense)", oursMs, "agent-memory (hybrid)", hybridMs).entrySet()) {
                out.printf("%-8d %-28s %12s %12s %12s %10s%n", size, e.getKey(), Stats.f3(Stats.percentile(e.getValue(), 50)),
                        Stats.f3(Stats.percentile(e.getValue(), 99)), Stats.f3(oursBuild),
                        e.getValue() == oursMs ? Stats.f3(recall) : "");
            }
            out.printf("%-8d %-28s %12s %12s %12s %10s%n", size, DefaultRag.NAME + " (exact)",
                    Stats.f3(Stats.percentile(exactMs, 50)), Stats.f3(Stats.percentile(exactMs, 99)), Stats.f3(exactBuild),
                    "1.000");
            return row;
        }
    }

    static float[] vector(Random random, List<float[]> centroids) {
        if (randomVectors()) {
            return randomUnit(random);
        }
        float[] c = centroids.get(random.nextInt(centroids.size()));
        float[] v = new float[DIMENSIONS];
        double norm = 0;
        for (int i = 0; i < v.length; i++) {
            v[i] = (float) (c[i] + CLUSTER_NOISE * random.nextGaussian());
            norm += v[i] * v[i];
        }
        float inv = (float) (1 / Math.sqrt(norm));
        for (int i = 0; i < v.length; i++) {
            v[i] *= inv;
        }
        return v;
    }

    static float[] randomUnit(Random random) {
        float[] v = new float[DIMENSIONS];
        double norm = 0;
        for (int i = 0; i < v.length; i++) {
            v[i] = (float) random.nextGaussian();
            norm += v[i] * v[i];
        }
        float inv = (float) (1 / Math.sqrt(norm));
        for (int i = 0; i < v.length; i++) {
            v[i] *= inv;
        }
        return v;
    }
}

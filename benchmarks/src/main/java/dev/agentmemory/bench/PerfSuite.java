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
import java.nio.file.Files;
import java.nio.file.Path;
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
 * independent random unit vectors instead (the worst case for HNSW); {@code -Dperf.vectors=real} runs only the rows
 * on real sentence embeddings ({@link RealEmbeddingCorpus}, from {@code -Dperf.datasets=DIR}, default
 * {@code ../shared/datasets}; skipped when the folder is missing). Texts are random words; query
 * embedding time is measured separately with the real model. {@code --limit N} keeps only the
 * sizes up to N; our index is built as {@link #indexBuilder()} says. {@code -Dperf.recallOnly=true} runs only this
 * recall-latency part; {@code -Dperf.turnVsDefaultOnly=true} only the turn against LangChain4j's default
 * ({@link TurnVsDefaultBench}); {@code -Dperf.coldStartOnly=true} only the heap and cold-start row
 * ({@link ColdStartBench}). The bulk load is followed by {@link HybridIndex#optimize()} (counted in its build time).
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
                + " durable writes, store round trips and plugin overhead per AiService turn (--limit N: sizes <= N)";
    }

    @Override
    public ObjectNode run(SuiteOptions options, BenchContext context) throws Exception {
        int limit = options.limitOr(Integer.MAX_VALUE);
        ObjectNode json = JsonNodeFactory.instance.objectNode();
        json.put("suite", name());
        json.put("dimensions", DIMENSIONS);
        json.put("cores", Runtime.getRuntime().availableProcessors());
        json.put("java", System.getProperty("java.version"));
        // Lucene 10 on Java 21+ computes vector distances with the Vector API only when the JVM
        // was started with --add-modules jdk.incubator.vector
        json.put("lucene", org.apache.lucene.util.Version.LATEST.toString());
        json.put("vector_module", ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent());
        boolean realOnly = "real".equals(System.getProperty("perf.vectors"));
        json.put("vectors", realOnly ? "real MiniLM" : randomVectors() ? "random unit" : "clustered synthetic");
        PrintStream out = context.out();
        out.printf("Java %s, Lucene %s, vector module %s%n", System.getProperty("java.version"),
                org.apache.lucene.util.Version.LATEST, json.get("vector_module").asBoolean() ? "on" : "off");
        if (Boolean.getBoolean("perf.coldStartOnly")) {
            json.set("cold_start", coldStart(limit, out));
            return json;
        }
        ObjectNode embedding = queryEmbedding(context);
        json.set("query_embedding_ms", embedding);
        out.printf("query embedding (AllMiniLmL6V2, one question): median %s ms, p99 %s ms (excluded below)%n",
                Stats.f3(embedding.get("median").asDouble()), Stats.f3(embedding.get("p99").asDouble()));
        out.printf("vectors: %s%n", realOnly ? "real MiniLM only (-Dperf.vectors=real)"
                : randomVectors() ? "random unit (-Dperf.vectors=random)"
                : "clustered synthetic (centroid + gaussian noise, " + MEMORIES_PER_CLUSTER + " memories per centroid),"
                + " then real MiniLM");
        out.printf("%-8s %-28s %12s %12s %12s %10s%n", "memories", "system", "median ms", "p99 ms", "build s",
                "recall@10");
        ArrayNode recall = json.putArray("recall_latency");
        for (int size : SIZES) {
            if (size > limit || Boolean.getBoolean("perf.turnOnly") || Boolean.getBoolean("perf.turnVsDefaultOnly")
                    || "real".equals(System.getProperty("perf.vectors"))) {
                continue;
            }
            recall.add(measure(synthetic(size), out));
        }
        Path datasets = Path.of(System.getProperty("perf.datasets", "../shared/datasets"));
        if (!"real".equals(System.getProperty("perf.vectors"))) {
            out.println("real embeddings: skipped (-Dperf.vectors=real runs them; the first run embeds 101k texts)");
        } else if (!Files.isDirectory(datasets.resolve("locomo"))) {
            out.printf("real embeddings: skipped, no datasets at %s (-Dperf.datasets=DIR)%n", datasets.toAbsolutePath());
        } else {
            // the whole corpus, embedded once and cached; --limit only drops rows
            RealEmbeddingCorpus corpus = RealEmbeddingCorpus.load(datasets, SIZES[SIZES.length - 1],
                    Path.of(System.getProperty("perf.embeddingsCache", "target/perf-embeddings")), context.model(), out);
            for (int size : SIZES) {
                if (size <= Math.min(limit, corpus.texts.size())) {
                    recall.add(measure(real(corpus, size), out));
                }
            }
        }
        if (!Boolean.getBoolean("perf.recallOnly")) {
            runStoreBenches(json, limit, context, out);
        }
        json.set("cold_start", coldStart(limit, out));
        return json;
    }

    /** Store cost per turn, durable writes and plugin overhead per turn; {@code --limit} shrinks them too. */
    private static void runStoreBenches(ObjectNode json, int limit, BenchContext context, PrintStream out)
            throws Exception {
        boolean full = limit >= 10_000;
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("agent-memory-perf");
        try {
            // a ~220-turn support conversation, 20 of them warm-up
            json.set("turn_vs_default", new TurnVsDefaultBench(dir, context.model(), 200, 20).run(out));
            if (Boolean.getBoolean("perf.turnVsDefaultOnly")) {
                return;
            }
            if (!Boolean.getBoolean("perf.turnOnly")) {
                json.set("store_cost", new StoreCostBench(full ? 60 : 10, 8, dir).run(limit, out));
                json.set("durable_writes", new DurableWriteBench(dir).run(Math.min(limit, 5_000), out));
            }
            java.nio.file.Path trips = java.nio.file.Files.createDirectories(dir.resolve("round-trips"));
            json.set("round_trips", new RoundTripsBench("bench", full ? 20 : 5, full ? 200 : 20).run(Map.of(
                    "H2 file", () -> dev.agentmemory.store.jdbc.JdbcStores.h2File(trips.resolve("memory"))), out));
            json.set("turn_overhead", new TurnOverheadBench(dir, full ? 300 : 30, full ? 100 : 10, 200).run(Math.min(limit, 10_000), out));
        } finally {
            try (var files = java.nio.file.Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }

    /**
     * Heap per memory and a user's first recall in a new memory ({@link ColdStartBench}) at 10k
     * memories (within {@code --limit}), or at the sizes of {@code -Dperf.coldStart=N,M}: the 100k
     * row is opt-in ({@code -Dperf.coldStart=10000,100000}), since loading 100k memories twice (in
     * memory, then on an H2 file) takes tens of minutes on two shared cores.
     */
    private static ObjectNode coldStart(int limit, PrintStream out) throws Exception {
        String sizes = System.getProperty("perf.coldStart", "10000");
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

    /** The memories and queries of one recall-latency row. */
    private record Workload(String vectors, List<IndexedItem> items, List<float[]> queries, List<String> queryTexts) {
    }

    /** {@code size} synthetic memories (clustered, or random with {@code -Dperf.vectors=random}) and their queries. */
    private static Workload synthetic(int size) {
        Random random = new Random(42L + size);
        String[] words = Words.vocabulary(5_000, random);
        List<IndexedItem> items = new ArrayList<>(size);
        Instant base = Instant.parse("2024-01-01T00:00:00Z");
        List<float[]> centroids = new ArrayList<>();
        for (int c = 0; c < Math.max(1, size / MEMORIES_PER_CLUSTER); c++) {
            centroids.add(randomUnit(random));
        }
        for (int i = 0; i < size; i++) {
            float[] v = vector(random, centroids);
            items.add(IndexedItem.of("m" + i, USER, Words.sentence(words, random, 12), v, base.plusSeconds(i)));
        }
        List<float[]> queries = new ArrayList<>();
        List<String> texts = new ArrayList<>();
        for (int q = 0; q < WARMUP + QUERIES; q++) {
            queries.add(vector(random, centroids));
            texts.add(Words.sentence(words, random, 6));
        }
        return new Workload(randomVectors() ? "random unit" : "clustered synthetic", items, queries, texts);
    }

    /** The first {@code size} memories of the real-embedding corpus, asked the datasets' questions. */
    private static Workload real(RealEmbeddingCorpus corpus, int size) {
        Instant base = Instant.parse("2024-01-01T00:00:00Z");
        List<IndexedItem> items = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            items.add(IndexedItem.of("m" + i, USER, corpus.texts.get(i), corpus.vectors[i], base.plusSeconds(i)));
        }
        List<Integer> order = new ArrayList<>();
        for (int q = 0; q < corpus.queries.length; q++) {
            order.add(q);
        }
        java.util.Collections.shuffle(order, new Random(42L + size));
        List<float[]> queries = new ArrayList<>();
        List<String> texts = new ArrayList<>();
        for (int q = 0; q < WARMUP + QUERIES; q++) {
            int i = order.get(q % order.size());
            queries.add(corpus.queries[i]);
            texts.add(corpus.queryTexts.get(i));
        }
        return new Workload("real MiniLM", items, queries, texts);
    }

    private static ObjectNode measure(Workload workload, PrintStream out) {
        List<IndexedItem> items = new ArrayList<>(workload.items());
        int size = items.size();
        InMemoryEmbeddingStore<TextSegment> exact = new InMemoryEmbeddingStore<>();
        List<String> ids = new ArrayList<>(size);
        List<Embedding> embeddings = new ArrayList<>(size);
        List<TextSegment> segments = new ArrayList<>(size);
        Instant last = Instant.EPOCH;
        for (IndexedItem item : items) {
            ids.add(item.id());
            embeddings.add(Embedding.from(item.vector()));
            segments.add(TextSegment.from(item.text()));
            last = item.time().isAfter(last) ? item.time() : last;
        }
        long t0 = System.nanoTime();
        exact.addAll(ids, embeddings, segments);
        double exactBuild = (System.nanoTime() - t0) / 1e9;
        t0 = System.nanoTime();
        long cpu0 = processCpuNanos();
        // bulk load: knowledge-update checks are off here (they are measured by the knowledge-update suite)
        HybridIndex ours = indexBuilder().build();
        try (ours) {
            ours.upsertAll(items);
            ours.optimize();
            double oursBuild = (System.nanoTime() - t0) / 1e9;
            // CPU seconds of the whole process while building: on a shared machine, wall time also counts waiting for a core
            double oursBuildCpu = (processCpuNanos() - cpu0) / 1e9;
            // the same ranking (cosine plus the recency prior) computed exactly over every item: what our
            // approximate search gives up, apart from the prior's reordering of near-ties against the cosine-only reference
            HybridIndex reference = exactReference(items);
            items.clear();
            Instant now = last.plusSeconds(60);
            List<float[]> queries = workload.queries();
            List<String> texts = workload.queryTexts();
            double[] oursMs = new double[QUERIES];
            double[] hybridMs = new double[QUERIES];
            double[] exactMs = new double[QUERIES];
            // CPU time of this thread per query: on a shared machine wall time mostly measures waiting for a core
            double[] oursCpuMs = new double[QUERIES];
            double[] exactCpuMs = new double[QUERIES];
            java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
            double recallSum = 0;
            double recallOursSum = 0;
            for (int q = 0; q < WARMUP + QUERIES; q++) {
                float[] v = queries.get(q);
                long cpuA = threads.getCurrentThreadCpuTime();
                long a = System.nanoTime();
                List<RecallHit> dense = ours.search(RecallQuery.of(USER, "", v, K, now));
                long b = System.nanoTime();
                long cpuB = threads.getCurrentThreadCpuTime();
                ours.search(RecallQuery.of(USER, texts.get(q), v, K, now));
                long cpuC = threads.getCurrentThreadCpuTime();
                long c = System.nanoTime();
                List<EmbeddingMatch<TextSegment>> matches = exact.search(EmbeddingSearchRequest.builder()
                        .queryEmbedding(Embedding.from(v)).maxResults(K).build()).matches();
                long d = System.nanoTime();
                long cpuD = threads.getCurrentThreadCpuTime();
                if (q >= WARMUP) {
                    int i = q - WARMUP;
                    oursMs[i] = (b - a) / 1e6;
                    hybridMs[i] = (c - b) / 1e6;
                    exactMs[i] = (d - c) / 1e6;
                    oursCpuMs[i] = (cpuB - cpuA) / 1e6;
                    exactCpuMs[i] = (cpuD - cpuC) / 1e6;
                    Set<String> truth = new HashSet<>();
                    matches.forEach(m -> truth.add(m.embeddingId()));
                    recallSum += Stats.recallAt(OurRecall.ids(dense), truth, K);
                    recallOursSum += Stats.recallAt(OurRecall.ids(dense),
                            new HashSet<>(OurRecall.ids(reference.search(RecallQuery.of(USER, "", v, K, now)))), K);
                }
            }
            reference.close();
            ObjectNode row = JsonNodeFactory.instance.objectNode();
            row.put("memories", size);
            row.put("vectors", workload.vectors());
            row.put("queries", QUERIES);
            row.set("agent-memory", Stats.latency(oursMs).put("build_seconds", Stats.round(oursBuild))
                    .put("build_cpu_seconds", Stats.round(oursBuildCpu)));
            row.set("agent-memory-hybrid", Stats.latency(hybridMs));
            row.set(DefaultRag.NAME, Stats.latency(exactMs).put("build_seconds", Stats.round(exactBuild)));
            double recall = recallSum / QUERIES;
            row.put("recall@10_vs_exact", Stats.round(recall));
            double recallOurs = recallOursSum / QUERIES;
            row.put("recall@10_vs_exact_same_ranking", Stats.round(recallOurs));
            row.put("index", System.getProperty("perf.index", "default") + ", dense: code scan, exact re-rank");
            row.put("speedup_median", Stats.round(Stats.percentile(exactMs, 50) / Stats.percentile(oursMs, 50)));
            double oursCpu = Stats.percentile(oursCpuMs, 50);
            double exactCpu = Stats.percentile(exactCpuMs, 50);
            ((ObjectNode) row.get("agent-memory")).put("median_cpu_ms", Stats.round(oursCpu));
            ((ObjectNode) row.get(DefaultRag.NAME)).put("median_cpu_ms", Stats.round(exactCpu));
            row.put("speedup_median_cpu", Stats.round(exactCpu / oursCpu));
            row.put("speedup_median_hybrid", Stats.round(Stats.percentile(exactMs, 50) / Stats.percentile(hybridMs, 50)));
            String label = workload.vectors().equals("real MiniLM") ? " real" : "";
            for (Map.Entry<String, double[]> e : List.of(Map.entry("agent-memory (dense)" + label, oursMs),
                    Map.entry("agent-memory (hybrid)" + label, hybridMs))) {
                out.printf("%-8d %-28s %12s %12s %12s %10s%n", size, e.getKey(), Stats.f3(Stats.percentile(e.getValue(), 50)),
                        Stats.f3(Stats.percentile(e.getValue(), 99)), Stats.f3(oursBuild),
                        e.getValue() == oursMs ? Stats.f3(recall) : "");
            }
            out.printf("%-8d %-28s %12s %12s %12s %10s   (%.1fx dense, %.1fx hybrid; our build %.1f s CPU;"
                    + " recall@10 vs our ranking computed exactly %s; CPU medians %s / %s ms, %.1fx)%n", size,
                    DefaultRag.NAME + " (exact)" + label,
                    Stats.f3(Stats.percentile(exactMs, 50)), Stats.f3(Stats.percentile(exactMs, 99)), Stats.f3(exactBuild),
                    "1.000", Stats.percentile(exactMs, 50) / Stats.percentile(oursMs, 50),
                    Stats.percentile(exactMs, 50) / Stats.percentile(hybridMs, 50), oursBuildCpu, Stats.f3(recallOurs),
                    Stats.f3(oursCpu), Stats.f3(exactCpu), exactCpu / oursCpu);
            return row;
        }
    }

    /**
     * Our index as the rows build it: the library's default candidates (for 10 results: from BM25
     * 100, from the dense side 40, found by the code scan among a shortlist of 400 re-ranked
     * exactly), knowledge-update checks off. {@code -Dperf.index=previous}: 150 candidates from
     * each (15 per result), the setting of the earlier README figures.
     */
    static HybridIndex.Builder indexBuilder() {
        HybridIndex.Builder b = HybridIndex.builder(DIMENSIONS).supersessionDetection(false);
        if (System.getProperty("perf.index", "default").equals("previous")) {
            b.candidates(150, 15);
        }
        return b;
    }

    /** Our index scoring every item exactly. */
    private static HybridIndex exactReference(List<IndexedItem> items) {
        HybridIndex exact = HybridIndex.builder(DIMENSIONS).supersessionDetection(false)
                .exactSearchBelow(Integer.MAX_VALUE).build();
        exact.upsertAll(items);
        return exact;
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
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

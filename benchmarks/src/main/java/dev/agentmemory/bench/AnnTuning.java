package dev.agentmemory.bench;

import dev.agentmemory.langchain4j.recall.HybridIndex;
import dev.agentmemory.langchain4j.recall.IndexedItem;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.lucene.codecs.Codec;
import org.apache.lucene.codecs.FilterCodec;
import org.apache.lucene.codecs.KnnVectorsFormat;
import org.apache.lucene.codecs.lucene99.Lucene99HnswScalarQuantizedVectorsFormat;
import org.apache.lucene.codecs.lucene99.Lucene99HnswVectorsFormat;
import org.apache.lucene.codecs.perfield.PerFieldKnnVectorsFormat;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.ByteBuffersDirectory;

/**
 * How the HNSW parameters were chosen for the recall index (issue 27, item 4): on a workload
 * (synthetic clustered vectors, or one half of the real MiniLM corpus, split by a hash of each
 * text, so that the other half can be reported on without having been tuned on), builds the
 * graph with max connections M and beam width B exactly as {@link HybridIndex} does, then sweeps
 * the number of vector candidates and prints recall@10 against the exact top 10 and the median
 * latency of the graph search beside an exact scan. {@code build} mode times a {@link HybridIndex}
 * bulk load instead (wall and CPU seconds). Run:
 * {@code java -cp benchmarks.jar dev.agentmemory.bench.AnnTuning sweep synthetic:30000 16 50 40,80,120}
 * or {@code ... sweep real-a:0 16 50 40,80} ({@code real-a}, {@code real-b}: the halves; {@code real}: all;
 * {@code :0} all the half's memories), {@code ... build synthetic:100000 16 50 [mergeWorkers]}.
 */
final class AnnTuning {

    private static final int K = 10;
    private static final int QUERIES = 200;
    private static final int WARMUP = 30;
    /** {@code -Dann.format=int8}: the sweep's graph scores int8 (7-bit) vectors, its top k re-ranked on the floats. */
    private static final boolean QUANTIZED = "int8".equals(System.getProperty("ann.format"));

    private AnnTuning() {
    }

    record Data(List<float[]> vectors, List<String> texts, List<float[]> queries) {
    }

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        Data data = data(args[1]);
        int m = Integer.parseInt(args[2]);
        int beam = Integer.parseInt(args[3]);
        if (mode.equals("build")) {
            build(data, m, beam);
            return;
        }
        if (mode.equals("query")) {
            query(data, m, beam, Integer.parseInt(args[4]));
            return;
        }
        int[] ks = java.util.Arrays.stream(args[4].split(",")).mapToInt(Integer::parseInt).toArray();
        sweep(data, m, beam, ks);
    }

    static Data data(String spec) throws IOException {
        String[] p = spec.split(":");
        int n = Integer.parseInt(p[1]);
        if (p[0].equals("synthetic")) {
            Random random = new Random(42L + n);
            List<float[]> centroids = new ArrayList<>();
            for (int c = 0; c < Math.max(1, n / 50); c++) {
                centroids.add(PerfSuite.randomUnit(random));
            }
            List<float[]> vectors = new ArrayList<>();
            List<String> texts = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                vectors.add(PerfSuite.vector(random, centroids));
                texts.add("m" + i);
            }
            List<float[]> queries = new ArrayList<>();
            for (int q = 0; q < WARMUP + QUERIES; q++) {
                queries.add(PerfSuite.vector(random, centroids));
            }
            return new Data(vectors, texts, queries);
        }
        RealEmbeddingCorpus corpus = RealEmbeddingCorpus.load(Path.of(System.getProperty("perf.datasets",
                        "../shared/datasets")), 100_000,
                Path.of(System.getProperty("perf.embeddingsCache", "target/perf-embeddings")),
                new dev.langchain4j.model.embedding.onnx.allminilml6v2.AllMiniLmL6V2EmbeddingModel(), System.out);
        int half = p[0].equals("real-a") ? 0 : p[0].equals("real-b") ? 1 : -1;
        List<float[]> vectors = new ArrayList<>();
        List<String> texts = new ArrayList<>();
        for (int i = 0; i < corpus.texts.size() && (n == 0 || vectors.size() < n); i++) {
            if (half < 0 || inHalf(corpus.texts.get(i), half)) {
                vectors.add(corpus.vectors[i]);
                texts.add(corpus.texts.get(i));
            }
        }
        List<float[]> queries = new ArrayList<>();
        for (int q = 0; q < corpus.queries.length; q++) {
            if (half < 0 || inHalf(corpus.queryTexts.get(q), half)) {
                queries.add(corpus.queries[q]);
            }
        }
        java.util.Collections.shuffle(queries, new Random(42));
        List<float[]> picked = new ArrayList<>(queries.subList(0, Math.min(queries.size(), WARMUP + QUERIES)));
        System.out.printf("%s: %,d memories, %,d queries%n", p[0], vectors.size(), picked.size());
        return new Data(vectors, texts, picked);
    }

    /** Which half a text belongs to: the low bit of a hash of it that does not depend on the JVM. */
    static boolean inHalf(String text, int half) {
        int h = 0x811c9dc5;
        for (int i = 0; i < text.length(); i++) {
            h = (h ^ text.charAt(i)) * 0x01000193;
        }
        return ((h >>> 7) & 1) == half;
    }

    private static void build(Data data, int m, int beam) {
        Instant base = Instant.parse("2024-01-01T00:00:00Z");
        List<IndexedItem> items = new ArrayList<>();
        for (int i = 0; i < data.vectors().size(); i++) {
            items.add(IndexedItem.of("m" + i, "u", data.texts().get(i), data.vectors().get(i), base.plusSeconds(i)));
        }
        long t0 = System.nanoTime();
        long cpu0 = cpu();
        try (HybridIndex index = HybridIndex.builder(data.vectors().get(0).length).supersessionDetection(false)
                .hnsw(m, beam).build()) {
            index.upsertAll(items);
            long t1 = System.nanoTime();
            long cpu1 = cpu();
            index.optimize();
            System.out.printf("build %,d items M=%d beam=%d: upsert %.1f s wall %.1f s CPU, optimize %.1f s wall %.1f s CPU%n",
                    items.size(), m, beam, (t1 - t0) / 1e9, (cpu1 - cpu0) / 1e9, (System.nanoTime() - t1) / 1e9,
                    (cpu() - cpu1) / 1e9);
        }
    }

    /** Dense queries through {@link HybridIndex} ({@code rounds} passes over the queries): CPU ms per query. */
    private static void query(Data data, int m, int beam, int rounds) {
        Instant base = Instant.parse("2024-01-01T00:00:00Z");
        List<IndexedItem> items = new ArrayList<>();
        for (int i = 0; i < data.vectors().size(); i++) {
            items.add(IndexedItem.of("m" + i, "u", data.texts().get(i), data.vectors().get(i), base.plusSeconds(i)));
        }
        try (HybridIndex index = HybridIndex.builder(data.vectors().get(0).length).supersessionDetection(false)
                .hnsw(m, beam).build()) {
            index.upsertAll(items);
            index.optimize();
            Instant now = base.plusSeconds(items.size() + 60L);
            List<Double> ms = new ArrayList<>();
            for (int r = 0; r < rounds; r++) {
                for (float[] v : data.queries()) {
                    long a = threadCpu();
                    index.search(dev.agentmemory.langchain4j.recall.RecallQuery.of("u", "", v, K, now));
                    ms.add((threadCpu() - a) / 1e6);
                }
            }
            System.out.printf("dense query, %,d items: median %.3f CPU ms%n", items.size(),
                    Stats.percentile(ms.stream().mapToDouble(Double::doubleValue).toArray(), 50));
        }
    }

    private static void sweep(Data data, int m, int beam, int[] ks) throws IOException {
        IndexWriterConfig config = new IndexWriterConfig();
        boolean int8 = QUANTIZED;
        KnnVectorsFormat format = int8
                ? new Lucene99HnswScalarQuantizedVectorsFormat(m, beam)
                : new Lucene99HnswVectorsFormat(m, beam);
        // the default codec's name and a per-field vector format, as the library's codec: readable by any reader
        KnnVectorsFormat perField = new PerFieldKnnVectorsFormat() {
            @Override
            public KnnVectorsFormat getKnnVectorsFormatForField(String field) {
                return format;
            }
        };
        config.setCodec(new FilterCodec(Codec.getDefault().getName(), Codec.getDefault()) {
            @Override
            public KnnVectorsFormat knnVectorsFormat() {
                return perField;
            }
        });
        config.setRAMBufferSizeMB(1024);
        ByteBuffersDirectory dir = new ByteBuffersDirectory();
        long t0 = System.nanoTime();
        long cpu0 = cpu();
        try (IndexWriter w = new IndexWriter(dir, config)) {
            for (float[] v : data.vectors()) {
                Document d = new Document();
                d.add(new StringField("partition", "u", Field.Store.NO));
                d.add(new KnnFloatVectorField("vector", unit(v), VectorSimilarityFunction.DOT_PRODUCT));
                w.addDocument(d);
            }
            w.forceMerge(1);
        }
        System.out.printf("graph of %,d M=%d beam=%d%s, Lucene %s, Java %s, vector module %s: %.1f s wall, %.1f s CPU%n",
                data.vectors().size(), m, beam, int8 ? " int8" : "", org.apache.lucene.util.Version.LATEST,
                Runtime.version().feature(), ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent() ? "on" : "off",
                (System.nanoTime() - t0) / 1e9, (cpu() - cpu0) / 1e9);
        float[][] all = data.vectors().stream().map(AnnTuning::unit).toArray(float[][]::new);
        try (DirectoryReader reader = DirectoryReader.open(dir)) {
            IndexSearcher searcher = new IndexSearcher(reader);
            int nq = data.queries().size();
            List<int[]> truth = new ArrayList<>();
            double[] exactMs = new double[nq];
            for (int q = 0; q < nq; q++) {
                float[] v = unit(data.queries().get(q));
                long a = threadCpu();
                truth.add(exactTop(all, v));
                exactMs[q] = (threadCpu() - a) / 1e6;
            }
            // the ceiling a ranking of cosine plus the library's recency prior (0.05, 30-day half-life; items one
            // second apart, asked a minute after the last) can reach against the cosine-only top 10
            float[] recency = new float[all.length];
            for (int i = 0; i < all.length; i++) {
                recency[i] = (float) (0.05 * Math.pow(0.5, (all.length - 1 - i + 60) / (30.0 * 86_400)));
            }
            double ceiling = 0;
            for (int q = Math.min(WARMUP, nq / 4); q < nq; q++) {
                java.util.Set<Integer> want = new java.util.HashSet<>();
                for (int t : truth.get(q)) {
                    want.add(t);
                }
                for (int t : exactTop(all, unit(data.queries().get(q)), recency)) {
                    ceiling += want.contains(t) ? 1.0 / K : 0;
                }
            }
            System.out.printf("  exact cosine + recency vs exact cosine: recall@10 %.3f%n", ceiling / (nq - Math.min(WARMUP, nq / 4)));
            double exactMedian = Stats.percentile(java.util.Arrays.copyOfRange(exactMs, Math.min(WARMUP, nq / 4), nq), 50);
            for (int k : ks) {
                double recall = 0;
                int counted = 0;
                List<Double> ms = new ArrayList<>();
                for (int q = 0; q < nq; q++) {
                    float[] v = unit(data.queries().get(q));
                    long a = threadCpu();
                    TopDocs top = searcher.search(new KnnFloatVectorQuery("vector", v, k,
                            new TermQuery(new Term("partition", "u"))), k);
                    if (int8) {
                        top = rescore(top, all, v);
                    }
                    long b = threadCpu();
                    if (q < Math.min(WARMUP, nq / 4)) {
                        continue;
                    }
                    ms.add((b - a) / 1e6);
                    java.util.Set<Integer> want = new java.util.HashSet<>();
                    for (int t : truth.get(q)) {
                        want.add(t);
                    }
                    int hit = 0;
                    for (int i = 0; i < Math.min(K, top.scoreDocs.length); i++) {
                        ScoreDoc sd = top.scoreDocs[i];
                        hit += want.contains(sd.doc) ? 1 : 0;
                    }
                    recall += hit / (double) K;
                    counted++;
                }
                double median = Stats.percentile(ms.stream().mapToDouble(Double::doubleValue).toArray(), 50);
                System.out.printf("  k=%4d recall@10 %.3f  median %.3f CPU ms  exact %.3f CPU ms  (%.0fx)%n", k, recall / counted,
                        median, exactMedian, exactMedian / median);
            }
        }
    }

    /** The graph's candidates ordered by their exact (float) dot product with the query. */
    private static TopDocs rescore(TopDocs top, float[][] all, float[] q) {
        ScoreDoc[] docs = top.scoreDocs.clone();
        for (ScoreDoc sd : docs) {
            float s = 0;
            float[] v = all[sd.doc];
            for (int j = 0; j < v.length; j++) {
                s += v[j] * q[j];
            }
            sd.score = s;
        }
        java.util.Arrays.sort(docs, (x, y) -> Float.compare(y.score, x.score));
        return new TopDocs(top.totalHits, docs);
    }

    private static int[] exactTop(float[][] all, float[] q) {
        return exactTop(all, q, new float[all.length]);
    }

    private static int[] exactTop(float[][] all, float[] q, float[] bias) {
        int[] best = new int[K];
        float[] score = new float[K];
        java.util.Arrays.fill(score, -Float.MAX_VALUE);
        for (int i = 0; i < all.length; i++) {
            float s = bias[i];
            float[] v = all[i];
            for (int j = 0; j < v.length; j++) {
                s += v[j] * q[j];
            }
            if (s > score[K - 1]) {
                int at = K - 1;
                while (at > 0 && score[at - 1] < s) {
                    score[at] = score[at - 1];
                    best[at] = best[at - 1];
                    at--;
                }
                score[at] = s;
                best[at] = i;
            }
        }
        return best;
    }

    static float[] unit(float[] v) {
        double n = 0;
        for (float x : v) {
            n += x * x;
        }
        float inv = (float) (1 / Math.sqrt(n));
        float[] u = new float[v.length];
        for (int i = 0; i < v.length; i++) {
            u[i] = v[i] * inv;
        }
        return u;
    }

    /** CPU time of this thread: on a loaded machine, wall time mostly measures waiting for a core. */
    private static long threadCpu() {
        return java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
    }

    private static long cpu() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
                .getOperatingSystemMXBean()).getProcessCpuTime();
    }
}

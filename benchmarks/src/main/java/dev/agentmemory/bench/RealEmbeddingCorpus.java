package dev.agentmemory.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Real sentence embeddings (AllMiniLmL6V2, 384 dimensions) of the development datasets' texts, for
 * the recall-latency rows of {@code perf}: the memories are LoCoMo turns, their sentences, runs of
 * two and three consecutive turns, the knowledge-update facts and the injection strings, then
 * windows of 6, 10 and 16 words sliding by 2 over each LoCoMo session (overlapping windows give the
 * dense neighbourhoods a long chat history has), distinct texts up to the requested number; the
 * queries are the LoCoMo and knowledge-update questions, which are not among the memories. The
 * datasets are read by path; the vectors are embedded once and cached in a file named after a hash
 * of the texts (under {@code target/}, never in git).
 */
final class RealEmbeddingCorpus {

    private static final int BATCH = 512;
    private static final int[] WINDOWS = {6, 10, 16};
    private static final int WINDOW_STRIDE = 2;

    final List<String> texts;
    final float[][] vectors;
    final List<String> queryTexts;
    final float[][] queries;

    private RealEmbeddingCorpus(List<String> texts, float[][] vectors, List<String> queryTexts, float[][] queries) {
        this.texts = texts;
        this.vectors = vectors;
        this.queryTexts = queryTexts;
        this.queries = queries;
    }

    /**
     * Embeds the corpus once, ahead of a {@code perf} run:
     * {@code java -cp benchmarks.jar dev.agentmemory.bench.RealEmbeddingCorpus [DATASETS [N]]}
     * (defaults {@code ../shared/datasets}, 100,000; the cache goes to {@code target/perf-embeddings}).
     */
    public static void main(String[] args) throws IOException {
        Path datasets = Path.of(args.length > 0 ? args[0] : "../shared/datasets");
        int max = args.length > 1 ? Integer.parseInt(args[1]) : 100_000;
        RealEmbeddingCorpus corpus = load(datasets, max, Path.of(System.getProperty("perf.embeddingsCache",
                "target/perf-embeddings")), new dev.langchain4j.model.embedding.onnx.allminilml6v2.AllMiniLmL6V2EmbeddingModel(),
                System.out);
        System.out.printf("%,d memories, %,d questions%n", corpus.texts.size(), corpus.queryTexts.size());
    }

    /**
     * At most {@code max} memories from the datasets under {@code datasets} (the folder holding
     * {@code locomo/}, {@code knowledge-update/} and {@code injection/}), embedded by {@code model}
     * unless {@code cacheDir} already holds them.
     */
    static RealEmbeddingCorpus load(Path datasets, int max, Path cacheDir, EmbeddingModel model, PrintStream out)
            throws IOException {
        Set<String> memories = new LinkedHashSet<>();
        Set<String> questions = new LinkedHashSet<>();
        List<List<String>> sessions = new ArrayList<>();
        JsonNode locomo = BenchMain.JSON.readTree(datasets.resolve("locomo/locomo-dev.json").toFile());
        for (JsonNode conv : locomo) {
            JsonNode c = conv.get("conversation");
            for (int s = 1; c.has("session_" + s) || c.has("session_" + s + "_date_time"); s++) {
                JsonNode session = c.get("session_" + s);
                if (session == null || !session.isArray()) {
                    continue;
                }
                List<String> turns = new ArrayList<>();
                for (JsonNode turn : session) {
                    turns.add(turn.get("speaker").asText() + ": " + turn.get("text").asText());
                }
                sessions.add(turns);
            }
            for (JsonNode qa : conv.get("qa")) {
                if (qa.hasNonNull("question")) {
                    questions.add(qa.get("question").asText());
                }
            }
        }
        for (List<String> turns : sessions) {
            memories.addAll(turns);
        }
        for (List<String> turns : sessions) {
            for (String turn : turns) {
                for (String sentence : turn.substring(turn.indexOf(": ") + 2).split("(?<=[.!?])\\s+")) {
                    if (sentence.split("\\s+").length >= 3) {
                        memories.add(sentence);
                    }
                }
            }
        }
        for (int run = 2; run <= 3; run++) {
            for (List<String> turns : sessions) {
                for (int i = 0; i + run <= turns.size(); i++) {
                    memories.add(String.join(" ", turns.subList(i, i + run)));
                }
            }
        }
        try (BufferedReader r = Files.newBufferedReader(datasets.resolve("knowledge-update/knowledge-update-dev.jsonl"),
                StandardCharsets.UTF_8)) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                if (!line.isBlank()) {
                    JsonNode n = BenchMain.JSON.readTree(line);
                    n.get("facts").forEach(f -> memories.add(f.asText()));
                    memories.add(n.get("update").asText());
                    questions.add(n.get("question").asText());
                }
            }
        }
        try (BufferedReader r = Files.newBufferedReader(datasets.resolve("injection/injection-dev.jsonl"),
                StandardCharsets.UTF_8)) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                if (!line.isBlank()) {
                    memories.add(BenchMain.JSON.readTree(line).get("text").asText());
                }
            }
        }
        for (int length : WINDOWS) {
            for (List<String> turns : sessions) {
                String[] words = String.join(" ", turns).split("\\s+");
                for (int i = 0; i + length <= words.length && memories.size() < max; i += WINDOW_STRIDE) {
                    memories.add(String.join(" ", java.util.Arrays.asList(words).subList(i, i + length)));
                }
            }
        }
        memories.removeAll(questions);
        List<String> texts = new ArrayList<>(memories).subList(0, Math.min(max, memories.size()));
        List<String> queryTexts = List.copyOf(questions);
        List<String> all = new ArrayList<>(texts);
        all.addAll(queryTexts);
        float[][] vectors = cached(all, cacheDir, model, out);
        float[][] memoryVectors = java.util.Arrays.copyOfRange(vectors, 0, texts.size());
        float[][] queryVectors = java.util.Arrays.copyOfRange(vectors, texts.size(), vectors.length);
        return new RealEmbeddingCorpus(List.copyOf(texts), memoryVectors, queryTexts, queryVectors);
    }

    private static float[][] cached(List<String> texts, Path cacheDir, EmbeddingModel model, PrintStream out)
            throws IOException {
        Path file = cacheDir.resolve("minilm-" + hash(texts) + ".f32");
        if (Files.isReadable(file)) {
            try (DataInputStream in = new DataInputStream(new java.io.BufferedInputStream(Files.newInputStream(file)))) {
                int n = in.readInt();
                int dim = in.readInt();
                float[][] vectors = new float[n][dim];
                for (float[] v : vectors) {
                    for (int i = 0; i < dim; i++) {
                        v[i] = in.readFloat();
                    }
                }
                return vectors;
            }
        }
        out.printf("embedding %,d dataset texts once (cached in %s)%n", texts.size(), file);
        float[][] vectors = new float[texts.size()][];
        long start = System.nanoTime();
        for (int from = 0; from < texts.size(); from += BATCH) {
            List<String> chunk = texts.subList(from, Math.min(texts.size(), from + BATCH));
            List<Embedding> embedded = model.embedAll(chunk.stream().map(TextSegment::from).toList()).content();
            for (int i = 0; i < chunk.size(); i++) {
                vectors[from + i] = embedded.get(i).vector();
            }
            if ((from / BATCH) % 20 == 0) {
                out.printf("  %,d / %,d embedded (%.0f s)%n", from + chunk.size(), texts.size(),
                        (System.nanoTime() - start) / 1e9);
            }
        }
        Files.createDirectories(cacheDir);
        Path tmp = Files.createTempFile(cacheDir, "minilm", ".tmp");
        try (DataOutputStream o = new DataOutputStream(new java.io.BufferedOutputStream(Files.newOutputStream(tmp)))) {
            o.writeInt(vectors.length);
            o.writeInt(vectors[0].length);
            for (float[] v : vectors) {
                for (float x : v) {
                    o.writeFloat(x);
                }
            }
        }
        Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        return vectors;
    }

    private static String hash(List<String> texts) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            for (String t : texts) {
                sha.update(t.getBytes(StandardCharsets.UTF_8));
                sha.update((byte) 0);
            }
            return HexFormat.of().formatHex(sha.digest()).substring(0, 16);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}

package dev.agentmemory.langchain4j.recall;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentmemory.testing.Datasets;
import dev.agentmemory.testing.langchain4j.SharedEmbeddingModel;
import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * How {@link UpdateModel}'s weights were made, and a check that they are still what this
 * procedure gives: a logistic regression (Newton's method, L2 penalty {@value #L2}) over every
 * pair of statements of an item of the knowledge-update development set's {@code tune} half
 * (the first byte of the SHA-256 of the item id is even; the {@code held_out} half is never
 * read) that {@link UpdatePair#of} pairs: they open with a named subject in common and were said
 * at least an hour apart, so with the suite's times (facts a minute apart, the update a day
 * later) the update and each fact. A pair is a positive when the fact is one the update
 * supersedes, a negative otherwise. The features are {@link UpdatePair}'s, with the item's
 * question as the query. Skipped when the data is not there.
 */
@Tag("slow")
class UpdateModelFitTest {

    private static final double L2 = 1e-3;
    private static final Instant T0 = Instant.parse("2024-03-01T09:00:00Z");
    private static final RecallAnalyzer ANALYZER = new RecallAnalyzer();

    record Example(double[] x, boolean positive) {
    }

    static List<Example> tuneHalfPairs(Path file) throws Exception {
        ObjectMapper json = new ObjectMapper();
        List<Example> out = new ArrayList<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            if (line.isBlank()) {
                continue;
            }
            JsonNode n = json.readTree(line);
            if (!isTuneHalf(n.get("id").asText())) {
                continue;
            }
            List<String> texts = new ArrayList<>();
            n.get("facts").forEach(f -> texts.add(f.asText()));
            int update = texts.size();
            texts.add(n.get("update").asText());
            texts.add(n.get("question").asText());
            Set<Integer> superseded = new HashSet<>();
            JsonNode s = n.get("superseded");
            if (s.isArray()) {
                s.forEach(i -> superseded.add(i.asInt()));
            } else {
                superseded.add(s.asInt());
            }
            List<Embedding> vectors = SharedEmbeddingModel.get()
                    .embedAll(texts.stream().map(TextSegment::from).toList()).content();
            float[] query = unit(vectors.get(update + 1).vector());
            List<UpdatePair.Side> sides = new ArrayList<>();
            double best = 0;
            for (int i = 0; i <= update; i++) {
                String text = texts.get(i);
                // as in the knowledge-update suite: the facts a minute apart, the update a day later
                Instant time = i == update ? T0.plus(Duration.ofDays(1)) : T0.plus(Duration.ofMinutes(i));
                sides.add(new UpdatePair.Side(text, unit(vectors.get(i).vector()), terms(text),
                        SupersessionDetector.states(text) ? StatementFrame.of(text) : StatementFrame.NONE, time));
                best = Math.max(best, Vectors.cosine(sides.get(i).vector(), query));
            }
            // statements are said in order: the update last
            for (int newer = 1; newer <= update; newer++) {
                for (int older = 0; older < newer; older++) {
                    UpdatePair pair = UpdatePair.of(sides.get(older), sides.get(newer), query, best,
                            UpdateModelFitTest::terms);
                    if (pair != null) {
                        out.add(new Example(pair.vector(), newer == update && superseded.contains(older)));
                    }
                }
            }
        }
        return out;
    }

    /** Weights (intercept first) of an L2-penalised logistic regression, by Newton's method. */
    static double[] fit(List<Example> examples) {
        int d = examples.get(0).x().length + 1;
        double[] w = new double[d];
        for (int iteration = 0; iteration < 100; iteration++) {
            double[] gradient = new double[d];
            double[][] hessian = new double[d][d];
            for (Example e : examples) {
                double[] x = withIntercept(e.x());
                double p = 1 / (1 + Math.exp(-dot(w, x)));
                double y = e.positive() ? 1 : 0;
                for (int i = 0; i < d; i++) {
                    gradient[i] += (p - y) * x[i];
                    for (int j = 0; j < d; j++) {
                        hessian[i][j] += p * (1 - p) * x[i] * x[j];
                    }
                }
            }
            for (int i = 1; i < d; i++) {
                gradient[i] += L2 * examples.size() * w[i];
                hessian[i][i] += L2 * examples.size();
            }
            double[] step = solve(hessian, gradient);
            double largest = 0;
            for (int i = 0; i < d; i++) {
                w[i] -= step[i];
                largest = Math.max(largest, Math.abs(step[i]));
            }
            if (largest < 1e-10) {
                break;
            }
        }
        return w;
    }

    @Test
    void should_give_the_weights_in_the_code_when_fitted_on_the_tune_half() throws Exception {
        Path file = Datasets.path("knowledge-update/knowledge-update-dev.jsonl");
        assumeThat(Files.isRegularFile(file)).as("knowledge-update data at %s", file).isTrue();

        List<Example> examples = tuneHalfPairs(file);
        double[] w = fit(examples);

        long positives = examples.stream().filter(Example::positive).count();
        int[] confusion = new int[4];
        for (Example e : examples) {
            boolean said = 1 / (1 + Math.exp(-dot(w, withIntercept(e.x())))) >= UpdateModel.SUPERSEDES;
            confusion[(e.positive() ? 2 : 0) + (said ? 1 : 0)]++;
        }
        System.out.printf("pairs %d, positives %d; weights %s; tp %d fp %d fn %d tn %d%n", examples.size(), positives,
                java.util.Arrays.toString(round(w)), confusion[3], confusion[1], confusion[2], confusion[0]);
        assertThat(round(w)).containsExactly(UpdateModel.WEIGHTS);
    }

    private static double[] round(double[] w) {
        double[] r = new double[w.length];
        for (int i = 0; i < w.length; i++) {
            r[i] = Math.round(w[i] * 1000) / 1000.0;
        }
        return r;
    }

    private static boolean isTuneHalf(String id) throws Exception {
        byte[] digest = MessageDigest.getInstance("SHA-256").digest(id.getBytes(StandardCharsets.UTF_8));
        return (digest[0] & 1) == 0;
    }

    private static Set<String> terms(String text) {
        return ANALYZER.terms(IndexSchema.F_TEXT, text);
    }

    private static float[] unit(float[] v) {
        return Vectors.unit(v, v.length, "vector");
    }

    private static double[] withIntercept(double[] x) {
        double[] out = new double[x.length + 1];
        out[0] = 1;
        System.arraycopy(x, 0, out, 1, x.length);
        return out;
    }

    private static double dot(double[] a, double[] b) {
        double s = 0;
        for (int i = 0; i < a.length; i++) {
            s += a[i] * b[i];
        }
        return s;
    }

    /** Solves {@code a x = b} by Gaussian elimination with partial pivoting. */
    private static double[] solve(double[][] a, double[] b) {
        int n = b.length;
        double[][] m = new double[n][];
        for (int i = 0; i < n; i++) {
            m[i] = java.util.Arrays.copyOf(a[i], n + 1);
            m[i][n] = b[i];
        }
        for (int c = 0; c < n; c++) {
            int pivot = c;
            for (int r = c + 1; r < n; r++) {
                if (Math.abs(m[r][c]) > Math.abs(m[pivot][c])) {
                    pivot = r;
                }
            }
            double[] t = m[c];
            m[c] = m[pivot];
            m[pivot] = t;
            for (int r = c + 1; r < n; r++) {
                double f = m[r][c] / m[c][c];
                for (int k = c; k <= n; k++) {
                    m[r][k] -= f * m[c][k];
                }
            }
        }
        double[] x = new double[n];
        for (int r = n - 1; r >= 0; r--) {
            double s = m[r][n];
            for (int k = r + 1; k < n; k++) {
                s -= m[r][k] * x[k];
            }
            x[r] = s / m[r][r];
        }
        return x;
    }
}

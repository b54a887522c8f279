package dev.agentmemory.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * How the recall index's shortlist was chosen (issue 27, item 4): the index compares a query with
 * every document by the Hamming distance of sign codes (bit j set when dimension j of the unit
 * vector is positive), scores the {@code C} nearest exactly on their floats and keeps the best
 * {@code k}. On a workload ({@link AnnTuning#data}: {@code synthetic:N}, {@code real-a:0} the tuning
 * half, {@code real-b:0} the held-out one, {@code real:0} all), for each k and C prints recall@k of
 * that against the exact top k, and the median CPU ms of the scan and re-rank. Run:
 * {@code java -cp benchmarks.jar dev.agentmemory.bench.CodeScanTuning real-a:0 10,40,80 200,400,800}.
 */
final class CodeScanTuning {

    private static final int WARMUP = 30;

    private CodeScanTuning() {
    }

    public static void main(String[] args) throws Exception {
        AnnTuning.Data data = AnnTuning.data(args[0]);
        int[] ks = Arrays.stream(args[1].split(",")).mapToInt(Integer::parseInt).toArray();
        int[] cs = Arrays.stream(args[2].split(",")).mapToInt(Integer::parseInt).toArray();
        int n = data.vectors().size();
        float[][] all = data.vectors().stream().map(AnnTuning::unit).toArray(float[][]::new);
        int d = all[0].length;
        int words = (d + 63) / 64;
        long[] codes = new long[n * words];
        for (int i = 0; i < n; i++) {
            encode(all[i], codes, i * words);
        }
        int maxK = Arrays.stream(ks).max().orElseThrow();
        int nq = data.queries().size();
        List<int[]> truth = new ArrayList<>();
        for (int q = 0; q < nq; q++) {
            truth.add(top(all, AnnTuning.unit(data.queries().get(q)), null, n, maxK));
        }
        System.out.printf("%,d vectors, %d queries (%d warm-up)%n", n, nq, WARMUP);
        short[] dist = new short[n];
        long[] qc = new long[words];
        for (int c : cs) {
            double[] recall = new double[ks.length];
            List<Double> ms = new ArrayList<>();
            for (int q = 0; q < nq; q++) {
                float[] v = AnnTuning.unit(data.queries().get(q));
                long a = cpu();
                encode(v, qc, 0);
                int[] hist = new int[words * 64 + 1];
                for (int i = 0, o = 0; i < n; i++, o += words) {
                    int h = 0;
                    for (int w = 0; w < words; w++) {
                        h += Long.bitCount(codes[o + w] ^ qc[w]);
                    }
                    dist[i] = (short) h;
                    hist[h]++;
                }
                int limit = 0;
                int count = 0;
                while (limit < hist.length && count + hist[limit] <= c) {
                    count += hist[limit];
                    limit++;
                }
                int[] cand = new int[Math.min(c, n)];
                int k = 0;
                int room = c - count;
                for (int i = 0; i < n; i++) {
                    int h = dist[i];
                    if (h < limit) {
                        cand[k++] = i;
                    } else if (h == limit && room > 0) {
                        cand[k++] = i;
                        room--;
                    }
                }
                int[] got = top(all, v, cand, k, maxK);
                long b = cpu();
                if (q < WARMUP) {
                    continue;
                }
                ms.add((b - a) / 1e6);
                for (int j = 0; j < ks.length; j++) {
                    Set<Integer> want = new HashSet<>();
                    for (int t = 0; t < ks[j]; t++) {
                        want.add(truth.get(q)[t]);
                    }
                    int hit = 0;
                    for (int t = 0; t < ks[j]; t++) {
                        hit += want.contains(got[t]) ? 1 : 0;
                    }
                    recall[j] += hit / (double) ks[j];
                }
            }
            StringBuilder sb = new StringBuilder(String.format("  C=%5d  %.3f CPU ms ", c,
                    Stats.percentile(ms.stream().mapToDouble(Double::doubleValue).toArray(), 50)));
            for (int j = 0; j < ks.length; j++) {
                sb.append(String.format("  recall@%d %.4f", ks[j], recall[j] / (nq - WARMUP)));
            }
            System.out.println(sb);
        }
    }

    static void encode(float[] v, long[] out, int off) {
        for (int w = 0; w < (v.length + 63) / 64; w++) {
            out[off + w] = 0;
        }
        for (int j = 0; j < v.length; j++) {
            if (v[j] > 0) {
                out[off + (j >> 6)] |= 1L << (j & 63);
            }
        }
    }

    /** The {@code k} nearest by dot product (of {@code ids}, or of all when null), nearest first. */
    static int[] top(float[][] all, float[] q, int @org.jspecify.annotations.Nullable [] ids, int count, int k) {
        int[] best = new int[k];
        Arrays.fill(best, -1);
        double[] score = new double[k];
        Arrays.fill(score, -Double.MAX_VALUE);
        for (int x = 0; x < count; x++) {
            int i = ids == null ? x : ids[x];
            double s = 0;
            float[] v = all[i];
            for (int j = 0; j < v.length; j++) {
                s += (double) v[j] * q[j];
            }
            if (s > score[k - 1]) {
                int at = k - 1;
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

    private static long cpu() {
        return java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
    }
}

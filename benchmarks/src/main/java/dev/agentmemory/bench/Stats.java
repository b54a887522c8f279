package dev.agentmemory.bench;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/** Small numeric helpers for the suites. */
final class Stats {

    private Stats() {
    }

    /** Share of {@code relevant} found in the first {@code k} of {@code ranked}. */
    static double recallAt(List<String> ranked, java.util.Set<String> relevant, int k) {
        if (relevant.isEmpty()) {
            throw new IllegalArgumentException("recall needs at least one relevant id");
        }
        int found = 0;
        for (int i = 0; i < Math.min(k, ranked.size()); i++) {
            if (relevant.contains(ranked.get(i))) {
                found++;
            }
        }
        return (double) found / relevant.size();
    }

    /** Percentile (0..100) of the samples, nearest-rank. */
    static double percentile(double[] samples, double p) {
        if (samples.length == 0) {
            throw new IllegalArgumentException("no samples");
        }
        double[] s = samples.clone();
        Arrays.sort(s);
        int rank = (int) Math.ceil(p / 100.0 * s.length);
        return s[Math.max(0, Math.min(s.length - 1, rank - 1))];
    }

    /** {@code {"median": .., "p99": ..}} of the samples, rounded. */
    static ObjectNode latency(double[] samples) {
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        o.put("median", round(percentile(samples, 50)));
        o.put("p99", round(percentile(samples, 99)));
        return o;
    }

    /** {@code a / b}, rounded. */
    static double ratio(double a, double b) {
        return round(a / b);
    }

    static double round(double x) {
        return Math.round(x * 10000.0) / 10000.0;
    }

    static String f3(double x) {
        return String.format(Locale.ROOT, "%.3f", x);
    }
}

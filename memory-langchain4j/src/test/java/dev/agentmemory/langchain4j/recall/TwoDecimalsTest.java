package dev.agentmemory.langchain4j.recall;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Locale;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The explanations' numbers are written exactly as {@code String.format("%.2f")} wrote them. */
class TwoDecimalsTest {

    private static void assertSameAsFormatter(double x) {
        assertThat(TwoDecimals.append(new StringBuilder("<"), x).toString())
                .as("%s", x).isEqualTo("<" + String.format(Locale.ROOT, "%.2f", x));
    }

    @Test
    void should_write_what_the_formatter_writes_at_its_edges() {
        double[] edges = {0, -0.0, 0.005, 0.015, 0.125, -0.125, 1.005, 2.675, 0.995, 9.995, 99.995, -0.001, -0.004999,
            -0.005, 1e-320, -1e-320, Double.MIN_VALUE, 0.1 + 0.2, 1 - 1e-17, 999_999.995, 999_999.999, 1e6, -1e6,
            123_456_789.125, Double.MAX_VALUE, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY};
        for (double x : edges) {
            assertSameAsFormatter(x);
        }
    }

    @Test
    void should_write_what_the_formatter_writes_for_scores_cosines_and_bm25() {
        Random random = new Random(4);
        for (int i = 0; i < 50_000; i++) {
            // the ranges of the explanations' parts: cosines in [-1, 1], weights, BM25 up to tens
            assertSameAsFormatter(2 * random.nextDouble() - 1);
            assertSameAsFormatter(40 * random.nextDouble());
            assertSameAsFormatter(Math.pow(10, 12 * random.nextDouble() - 6) * (random.nextBoolean() ? 1 : -1));
            // values at and next to the half-hundredths, where rounding is decided
            double half = (random.nextInt(200_000) - 100_000 + 0.5) / 100;
            assertSameAsFormatter(half);
            assertSameAsFormatter(Math.nextUp(half));
            assertSameAsFormatter(Math.nextDown(half));
            // and float scores widened to double, as Lucene's are
            assertSameAsFormatter((float) half);
        }
    }
}

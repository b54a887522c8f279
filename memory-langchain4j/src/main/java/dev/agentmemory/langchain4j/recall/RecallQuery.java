package dev.agentmemory.langchain4j.recall;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * A search of one partition.
 *
 * @param partition         the only partition searched (tenant + user key)
 * @param text              the query text scored lexically (BM25); may be empty for a dense-only search
 * @param vector            the query embedding, or null for a lexical-only search; at least one of
 *                          {@code text} (non-blank) and {@code vector} must be given
 * @param maxResults        at most this many hits, {@code >= 1}
 * @param now               the reader's clock, for the recency prior
 * @param includeSuperseded when true, superseded items are returned too (demoted and flagged);
 *                          by default they are left out
 * @param minScore          hits scoring below this are dropped ({@code 0} keeps everything)
 */
public record RecallQuery(String partition, String text, float @Nullable [] vector, int maxResults, Instant now,
                          boolean includeSuperseded, double minScore) {

    public RecallQuery {
        requireNonNull(partition, "partition");
        requireNonNull(text, "text");
        requireNonNull(now, "now");
        if (partition.isBlank()) {
            throw new IllegalArgumentException("partition must not be blank: '" + partition + "'");
        }
        if (maxResults < 1) {
            throw new IllegalArgumentException("maxResults must be >= 1: " + maxResults);
        }
        if (text.isBlank() && vector == null) {
            throw new IllegalArgumentException("a query needs a non-blank text or a vector (text was '" + text + "')");
        }
        if (Double.isNaN(minScore)) {
            throw new IllegalArgumentException("minScore must be a number: " + minScore);
        }
        vector = vector == null ? null : vector.clone();
    }

    /** Hybrid query leaving out superseded items, no minimum score. */
    public static RecallQuery of(String partition, String text, float @Nullable [] vector, int maxResults, Instant now) {
        return new RecallQuery(partition, text, vector, maxResults, now, false, 0.0);
    }

    /** The same query, with superseded items included (flagged and demoted) or not. */
    public RecallQuery withIncludeSuperseded(boolean include) {
        return new RecallQuery(partition, text, vector, maxResults, now, include, minScore);
    }

    /** The same query with a minimum score. */
    public RecallQuery withMinScore(double min) {
        return new RecallQuery(partition, text, vector, maxResults, now, includeSuperseded, min);
    }

    /** A copy of the query embedding, or null. */
    @Override
    public float @Nullable [] vector() {
        return vector == null ? null : vector.clone();
    }

    float @Nullable [] vectorNoCopy() {
        return vector;
    }
}

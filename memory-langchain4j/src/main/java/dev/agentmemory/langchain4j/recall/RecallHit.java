package dev.agentmemory.langchain4j.recall;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One result of {@link HybridIndex#search(RecallQuery)}.
 *
 * @param id           the item's id
 * @param score        fused score (higher is better); only comparable within one search
 * @param text         the item's text
 * @param time         the item's time
 * @param attributes   the item's attributes
 * @param why          how the score was made, e.g. {@code "dense 0.71 + lexical 0.42 + recency 0.03"}
 * @param superseded   true when a newer near-duplicate statement replaced this one; such hits
 *                     are only returned when {@link RecallQuery#includeSuperseded()} is set
 * @param supersededBy id of the item that replaced this one, or null when not superseded
 */
public record RecallHit(String id, double score, String text, Instant time, Map<String, String> attributes,
                        String why, boolean superseded, @Nullable String supersededBy) {

    public RecallHit {
        requireNonNull(id, "id");
        requireNonNull(text, "text");
        requireNonNull(time, "time");
        requireNonNull(why, "why");
        attributes = Map.copyOf(requireNonNull(attributes, "attributes"));
        if (superseded != (supersededBy != null)) {
            throw new IllegalArgumentException(
                    "superseded (" + superseded + ") must be true exactly when supersededBy is set: " + supersededBy);
        }
        if (Double.isNaN(score)) {
            throw new IllegalArgumentException("score of hit " + id + " is NaN");
        }
    }
}

package dev.agentmemory.langchain4j.recall;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.Arrays;
import java.util.Map;

/**
 * One item of episodic memory (a past message or a fact) as it is indexed.
 *
 * @param id         unique id of the item across all partitions; upserting the same id replaces it
 * @param partition  isolation key (tenant + user); no search ever returns an item of another partition
 * @param text       the text that is scored lexically and returned on a hit
 * @param vector     the embedding of {@code text}, computed once by the caller; copied on the way in and out
 * @param time       when the item was said or observed; newer wins when near-duplicates disagree
 * @param attributes free metadata returned with each hit (copied)
 */
public record IndexedItem(String id, String partition, String text, float[] vector, Instant time,
                          Map<String, String> attributes) {

    public IndexedItem {
        requireNonNull(id, "id");
        requireNonNull(partition, "partition");
        requireNonNull(text, "text");
        requireNonNull(vector, "vector");
        requireNonNull(time, "time");
        requireNonNull(attributes, "attributes");
        if (id.isBlank()) {
            throw new IllegalArgumentException("id must not be blank: '" + id + "'");
        }
        if (partition.isBlank()) {
            throw new IllegalArgumentException("partition must not be blank: '" + partition + "'");
        }
        if (vector.length == 0) {
            throw new IllegalArgumentException("vector of item " + id + " must not be empty");
        }
        for (float v : vector) {
            if (!Float.isFinite(v)) {
                throw new IllegalArgumentException("vector of item " + id + " has a non-finite component: " + v);
            }
        }
        vector = vector.clone();
        attributes = Map.copyOf(attributes);
    }

    /** Item without attributes. */
    public static IndexedItem of(String id, String partition, String text, float[] vector, Instant time) {
        return new IndexedItem(id, partition, text, vector, time, Map.of());
    }

    /** A copy of the embedding. */
    @Override
    public float[] vector() {
        return vector.clone();
    }

    float[] vectorNoCopy() {
        return vector;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof IndexedItem other
                && id.equals(other.id) && partition.equals(other.partition) && text.equals(other.text)
                && Arrays.equals(vector, other.vector) && time.equals(other.time)
                && attributes.equals(other.attributes);
    }

    @Override
    public int hashCode() {
        return 31 * id.hashCode() + Arrays.hashCode(vector);
    }

    @Override
    public String toString() {
        return "IndexedItem[id=" + id + ", partition=" + partition + ", time=" + time + ", text=" + text + "]";
    }
}

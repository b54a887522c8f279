package dev.agentmemory.core.spi;

import java.util.Arrays;
import java.util.Objects;

/**
 * The embedding of one text of a partition as a store keeps it, next to the event that holds
 * the text: derived data, computed once by the instance that wrote (or first indexed) the text,
 * so that other instances following the log and this one after a restart load it instead of
 * embedding the text again.
 *
 * @param item   what the vector embeds, in its deriver's terms (an index item id); unique in the
 *               partition for one {@link VectorModel}
 * @param seq    the sequence of the event whose text it embeds: a hard forget that rewrites that
 *               event removes the vector with it ({@link EventStore#rewrite})
 * @param vector the embedding; its length is the model's dimension
 */
public record StoredVector(String item, long seq, float[] vector) {
    public StoredVector {
        Objects.requireNonNull(item, "item");
        Objects.requireNonNull(vector, "vector");
        if (item.isEmpty()) {
            throw new IllegalArgumentException("a stored vector's item must not be empty");
        }
        if (seq < 1) {
            throw new IllegalArgumentException("a stored vector's seq must be at least 1, got " + seq + " for " + item);
        }
        if (vector.length == 0) {
            throw new IllegalArgumentException("a stored vector must not be empty: " + item);
        }
    }

    /** Equal by value, the vector's components included. */
    @Override
    public boolean equals(Object o) {
        return o instanceof StoredVector v && v.item.equals(item) && v.seq == seq && Arrays.equals(v.vector, vector);
    }

    @Override
    public int hashCode() {
        return Objects.hash(item, seq, Arrays.hashCode(vector));
    }

    @Override
    public String toString() {
        return "StoredVector[" + item + " @" + seq + ", " + vector.length + " dims]";
    }
}

package dev.agentmemory.core.spi;

import java.util.Objects;

/**
 * The identity of the embedding model that made a {@link StoredVector}: vectors are read back
 * only for the same name and dimension, so another model (or another version of it, when its name
 * says so) never reuses them.
 *
 * @param name      the model's identity, for example its class and model name
 * @param dimension the length of every vector it makes (at least 1)
 */
public record VectorModel(String name, int dimension) {
    public VectorModel {
        Objects.requireNonNull(name, "name");
        if (name.isBlank()) {
            throw new IllegalArgumentException("a vector model's name must not be blank");
        }
        if (name.length() > 200) {
            throw new IllegalArgumentException("a vector model's name must be at most 200 characters: " + name);
        }
        if (dimension < 1) {
            throw new IllegalArgumentException("a vector model's dimension must be at least 1, got " + dimension + " for " + name);
        }
    }

    @Override
    public String toString() {
        return name + " (" + dimension + " dims)";
    }
}

package dev.agentmemory.langchain4j;

import org.jspecify.annotations.Nullable;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The vectors of the last few texts embedded as recall queries, by exact text, so that a user
 * message embedded as its turn's query is not embedded again when it is indexed a moment later.
 * Bounded (least recently used out first); thread-safe. Vectors are shared, not copied: callers
 * never change them.
 */
final class RecentVectors {

    /** Enough for the queries of many concurrent turns between a recall and its commit. */
    static final int DEFAULT_SIZE = 256;

    private final Map<String, float[]> byText;

    RecentVectors(int size) {
        if (size < 1) {
            throw new IllegalArgumentException("size must be >= 1: " + size);
        }
        this.byText = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, float[]> eldest) {
                return size() > size;
            }
        };
    }

    synchronized float @Nullable [] get(String text) {
        return byText.get(text);
    }

    synchronized void put(String text, float[] vector) {
        byText.put(text, vector);
    }
}

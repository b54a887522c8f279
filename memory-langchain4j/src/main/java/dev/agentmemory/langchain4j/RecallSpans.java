package dev.agentmemory.langchain4j;

import dev.agentmemory.langchain4j.internal.MemorySpans;
import dev.langchain4j.rag.content.Content;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The attributes this module's spans share: who (the agent as the store id, the session id as
 * given, the tenant and user hashed), and what a recall found (items by layer, the top score).
 */
final class RecallSpans {

    /** Hash of tenant and user: spans can be grouped by user without naming them. */
    static final String USER_HASH = "agentmemory.user.hash";
    /** Prefix of the per-layer counts of a recall: {@code agentmemory.recall.items.<layer>}. */
    static final String ITEMS_PREFIX = "agentmemory.recall.items.";
    static final String TOP_SCORE = "agentmemory.recall.top_score";
    static final String FRAMED = "agentmemory.recall.framed";
    static final String CUT = "agentmemory.recall.cut";
    static final String LAYER = "agentmemory.layer";
    /** Prefix of the time a recall spent in each layer, in seconds: {@code agentmemory.recall.duration.<layer>}. */
    static final String DURATION_PREFIX = "agentmemory.recall.duration.";

    private RecallSpans() {
    }

    static void who(MemorySpans.Span span, String agent, @Nullable SessionRef session) {
        span.set(MemoryTracing.STORE_ID, agent);
        if (session != null) {
            span.set(MemoryTracing.CONVERSATION_ID, session.session());
            span.set(USER_HASH, MemorySpans.userHash(session.tenant(), session.user()));
        }
    }

    /** Runs {@code read}, one layer of a recall, and sets the time it took on {@code span}. */
    static <T> T timed(MemorySpans.Span span, String layer, java.util.function.Supplier<T> read) {
        long start = System.nanoTime();
        try {
            return read.get();
        } finally {
            span.set(DURATION_PREFIX + layer, (System.nanoTime() - start) / 1e9);
        }
    }

    /** Runs {@code read}, one layer of a recall that returns nothing, and sets the time it took on {@code span}. */
    static void timed(MemorySpans.Span span, String layer, Runnable read) {
        long start = System.nanoTime();
        try {
            read.run();
        } finally {
            span.set(DURATION_PREFIX + layer, (System.nanoTime() - start) / 1e9);
        }
    }

    static void query(MemorySpans spans, MemorySpans.Span span, String text) {
        if (spans.capturesContent()) {
            span.set(MemoryTracing.QUERY_TEXT, text);
        }
    }

    /** The count of items, the count per layer and the highest score among {@code contents}. */
    static void found(MemorySpans.Span span, List<Content> contents) {
        span.set(MemoryTracing.RECORD_COUNT, contents.size());
        Map<String, Integer> byLayer = new TreeMap<>();
        double top = Double.NaN;
        for (Content c : contents) {
            Map<?, ?> meta = c.textSegment().metadata().toMap();
            Object layer = meta.get(MemoryContent.LAYER);
            byLayer.merge(layer == null ? "other" : layer.toString(), 1, Integer::sum);
            Object score = meta.get(MemoryContent.SCORE);
            if (score != null) {
                try {
                    double s = Double.parseDouble(score.toString());
                    top = Double.isNaN(top) ? s : Math.max(top, s);
                } catch (NumberFormatException e) {
                    // a score that is not a number is not compared
                }
            }
        }
        byLayer.forEach((layer, n) -> span.set(ITEMS_PREFIX + layer, n));
        if (!Double.isNaN(top)) {
            span.set(TOP_SCORE, top);
        }
    }
}

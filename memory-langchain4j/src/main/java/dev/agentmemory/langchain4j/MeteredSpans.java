package dev.agentmemory.langchain4j;

import dev.agentmemory.langchain4j.internal.MemorySpans;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The memory's spans (tracing's, or none) with metrics taken from what each operation reports on
 * its span: a recall's time, its layers' times and its items framed and cut; a tool write the
 * engine refused. Everything is passed on to the tracing span unchanged.
 */
final class MeteredSpans implements MemorySpans {

    private final MemorySpans tracing;
    private final MicrometerMemoryMeters meters;

    MeteredSpans(MemorySpans tracing, MicrometerMemoryMeters meters) {
        this.tracing = tracing;
        this.meters = meters;
    }

    @Override
    public Span start(String operation) {
        Span span = tracing.start(operation);
        return switch (operation) {
            case "search_memory" -> new Recall(span);
            case "update_memory" -> new Write(span);
            default -> span;
        };
    }

    @Override
    public boolean capturesContent() {
        return tracing.capturesContent();
    }

    /** Passes every call on to the tracing span. */
    private abstract static class Passing implements Span {
        final Span inner;

        Passing(Span inner) {
            this.inner = inner;
        }

        @Override
        public Span set(String key, @Nullable String value) {
            inner.set(key, value);
            return this;
        }

        @Override
        public Span set(String key, long value) {
            inner.set(key, value);
            return this;
        }

        @Override
        public Span set(String key, double value) {
            inner.set(key, value);
            return this;
        }

        @Override
        public void failed(Throwable error) {
            inner.failed(error);
        }
    }

    /** A recall: timed as a whole and by layer; its items framed and cut counted. */
    private final class Recall extends Passing {
        private final long start = System.nanoTime();
        private final Map<String, Long> layers = new LinkedHashMap<>();
        private long framed = -1;
        private long cut = -1;

        Recall(Span inner) {
            super(inner);
        }

        @Override
        public Span set(String key, long value) {
            if (key.equals(RecallSpans.FRAMED)) {
                framed = value;
            } else if (key.equals(RecallSpans.CUT)) {
                cut = value;
            }
            return super.set(key, value);
        }

        @Override
        public Span set(String key, double value) {
            if (key.startsWith(RecallSpans.DURATION_PREFIX)) {
                layers.put(key.substring(RecallSpans.DURATION_PREFIX.length()), Math.round(value * 1e9));
            }
            return super.set(key, value);
        }

        @Override
        public void close() {
            long took = System.nanoTime() - start;
            inner.close();
            meters.recallTime("all", took);
            layers.forEach(meters::recallTime);
            if (framed >= 0) {
                meters.recallItems("framed", framed);
            }
            if (cut >= 0) {
                meters.recallItems("cut", cut);
            }
        }
    }

    /** A write: one the engine refused is counted here, since it committed nothing the listener could see. */
    private final class Write extends Passing {
        private boolean rejected;

        Write(Span inner) {
            super(inner);
        }

        @Override
        public Span set(String key, @Nullable String value) {
            if (key.equals(TurnAwareChatMemoryStore.WRITE_OUTCOME)) {
                rejected = "rejected".equals(value);
            }
            return super.set(key, value);
        }

        @Override
        public void close() {
            inner.close();
            if (rejected) {
                meters.write("rejected");
            }
        }
    }
}

package dev.agentmemory.langchain4j;

import dev.agentmemory.langchain4j.internal.MemorySpans;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import org.jspecify.annotations.Nullable;

/**
 * The only class of this module that touches OpenTelemetry: memory operations as spans of the
 * GenAI memory conventions ({@code gen_ai.memory.client}, development status), kind INTERNAL
 * (the memory runs in the application's process), named after the operation, child of the
 * current span. Created only when {@link MemoryTracing} configured it, so that without the
 * OpenTelemetry jar this class is never loaded.
 */
final class OtelMemorySpans implements MemorySpans {

    /** The instrumentation scope the spans are reported under. */
    static final String SCOPE = "dev.agentmemory.langchain4j";

    private final Tracer tracer;
    private final boolean content;

    OtelMemorySpans(OpenTelemetry openTelemetry, boolean content) {
        this.tracer = openTelemetry.getTracer(SCOPE);
        this.content = content;
    }

    @Override
    public MemorySpans.Span start(String operation) {
        io.opentelemetry.api.trace.Span span = tracer.spanBuilder(operation).setSpanKind(SpanKind.INTERNAL)
                .setAttribute(MemoryTracing.OPERATION, operation).startSpan();
        return new Open(span, span.makeCurrent());
    }

    @Override
    public boolean capturesContent() {
        return content;
    }

    private static final class Open implements MemorySpans.Span {

        private final io.opentelemetry.api.trace.Span span;
        private final Scope scope;

        Open(io.opentelemetry.api.trace.Span span, Scope scope) {
            this.span = span;
            this.scope = scope;
        }

        @Override
        public MemorySpans.Span set(String key, @Nullable String value) {
            if (value != null) {
                span.setAttribute(AttributeKey.stringKey(key), value);
            }
            return this;
        }

        @Override
        public MemorySpans.Span set(String key, long value) {
            span.setAttribute(AttributeKey.longKey(key), value);
            return this;
        }

        @Override
        public MemorySpans.Span set(String key, double value) {
            span.setAttribute(AttributeKey.doubleKey(key), value);
            return this;
        }

        @Override
        public void failed(Throwable error) {
            span.setAttribute(AttributeKey.stringKey(MemoryTracing.ERROR_TYPE), error.getClass().getName());
            span.setStatus(StatusCode.ERROR, String.valueOf(error.getMessage()));
            span.recordException(error);
        }

        @Override
        public void close() {
            try {
                scope.close();
            } finally {
                span.end();
            }
        }
    }
}

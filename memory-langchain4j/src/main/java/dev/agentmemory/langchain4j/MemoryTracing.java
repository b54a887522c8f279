package dev.agentmemory.langchain4j;

import dev.agentmemory.langchain4j.internal.MemorySpans;
import io.opentelemetry.api.OpenTelemetry;
import java.util.Objects;

/**
 * Tracing of the memory's operations with OpenTelemetry, following the GenAI memory conventions
 * ({@code gen_ai.memory.client} spans, development status): one {@code search_memory} span per
 * recall through {@link AgentMemory#contentRetriever()} or a retrieval augmentor, one
 * {@code update_memory} span per batch of chat messages written and per memory-tool write, one
 * {@code delete_memory} span per forget. Spans are INTERNAL, children of the current span (so they
 * nest under the application's and LangChain4j's), and carry ids, counts and outcomes; the query
 * text and written values only with {@link #captureContent}. Given to
 * {@link AgentMemory.Builder#tracing}; without it no span is made and no OpenTelemetry class is
 * loaded (OpenTelemetry is an optional dependency: add {@code io.opentelemetry:opentelemetry-api}).
 */
public final class MemoryTracing {

    /** {@code gen_ai.operation.name}: {@code search_memory}, {@code update_memory} or {@code delete_memory}. */
    public static final String OPERATION = "gen_ai.operation.name";
    /** {@code gen_ai.memory.store.id}: the memory's agent id (one store per agent). */
    public static final String STORE_ID = "gen_ai.memory.store.id";
    /** {@code gen_ai.memory.record.count}: items found, messages written, records forgotten. */
    public static final String RECORD_COUNT = "gen_ai.memory.record.count";
    /** {@code gen_ai.memory.record.id}: the id of the record a tool wrote. */
    public static final String RECORD_ID = "gen_ai.memory.record.id";
    /** {@code gen_ai.memory.query.text}: the recall's query, only with {@link #captureContent}. */
    public static final String QUERY_TEXT = "gen_ai.memory.query.text";
    /** {@code gen_ai.memory.records}: the written value as JSON records, only with {@link #captureContent}. */
    public static final String RECORDS = "gen_ai.memory.records";
    /** {@code gen_ai.conversation.id}: the session id as given. */
    public static final String CONVERSATION_ID = "gen_ai.conversation.id";
    /** {@code error.type}: the exception's class when the operation failed. */
    public static final String ERROR_TYPE = "error.type";

    private final OpenTelemetry openTelemetry;
    private final boolean content;

    private MemoryTracing(OpenTelemetry openTelemetry, boolean content) {
        this.openTelemetry = openTelemetry;
        this.content = content;
    }

    /** Spans through {@code openTelemetry}'s tracer provider, without content. */
    public static MemoryTracing openTelemetry(OpenTelemetry openTelemetry) {
        return new MemoryTracing(Objects.requireNonNull(openTelemetry, "openTelemetry"), false);
    }

    /**
     * With {@code capture} true, spans also carry the recall's query text
     * ({@code gen_ai.memory.query.text}) and the values tools write ({@code gen_ai.memory.records}):
     * user content, so off by default.
     */
    public MemoryTracing captureContent(boolean capture) {
        return new MemoryTracing(openTelemetry, capture);
    }

    MemorySpans spans() {
        return new OtelMemorySpans(openTelemetry, content);
    }
}

/**
 * Agent memory for LangChain4j: {@link dev.agentmemory.langchain4j.AgentMemory} (the chat memory
 * store, the retriever and the retrieval augmentor over a memory engine), the memory tools a model
 * calls ({@code dev.agentmemory.langchain4j.tools}), the episodic index
 * ({@code recall}: {@link dev.agentmemory.langchain4j.recall.HybridIndex}, tuned through
 * {@code AgentMemory.Builder#recallIndex} or used on its own) and the memory block's format
 * ({@code framing}: render and parse the fenced block a model receives). The plain-words rules
 * ({@code plainwords}) and the shared helpers ({@code internal}) are this module's own and are not
 * exported (no public signature of an exported package mentions them).
 */
module dev.agentmemory.langchain4j {
    // public signatures name the engine, LangChain4j's chat memory, RAG and model types
    requires transitive dev.agentmemory.core;
    // the builder opens the JDBC store (h2File, jdbc, dataSource); one dependency brings both
    requires transitive dev.agentmemory.store.jdbc;
    requires transitive langchain4j.core;
    requires transitive langchain4j;
    requires com.fasterxml.jackson.databind;
    requires com.fasterxml.jackson.dataformat.yaml;
    requires org.apache.lucene.core;
    requires org.apache.lucene.analysis.common;
    requires static org.jspecify;
    // tracing (MemoryTracing): optional; only OtelMemorySpans touches it, and only when configured
    requires static io.opentelemetry.api;
    requires static io.opentelemetry.context;
    // metrics (MemoryMetrics): optional; only the Micrometer* classes touch it, and only when configured
    requires static micrometer.core;

    exports dev.agentmemory.langchain4j;
    exports dev.agentmemory.langchain4j.tools;
    exports dev.agentmemory.langchain4j.recall;
    exports dev.agentmemory.langchain4j.framing;
}

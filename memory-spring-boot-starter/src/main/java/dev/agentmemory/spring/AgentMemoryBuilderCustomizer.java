package dev.agentmemory.spring;

import dev.agentmemory.langchain4j.AgentMemory;

/**
 * Adjusts the builder of the starter's {@link AgentMemory} bean after the {@code agentmemory.*}
 * properties and the store are applied and before it is built. The starter itself adds tracing
 * (from an {@code OpenTelemetry} bean) and metrics (from a {@code MeterRegistry} bean) this way;
 * an application adds a bean of this type for any other builder setting (a clock, a session
 * resolver, the summarizer). Applied in {@code @Order} order.
 */
@FunctionalInterface
public interface AgentMemoryBuilderCustomizer {

    /** Changes {@code builder} in place. */
    void customize(AgentMemory.Builder builder);
}

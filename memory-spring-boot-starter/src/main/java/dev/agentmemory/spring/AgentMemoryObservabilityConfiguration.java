package dev.agentmemory.spring;

import dev.agentmemory.langchain4j.MemoryMetrics;
import dev.agentmemory.langchain4j.MemoryTracing;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Turns the application's observability beans into the memory's: a {@code MeterRegistry} bean
 * into {@link MemoryMetrics} ({@code agentmemory.metrics.enabled=false} turns it off), an
 * {@code OpenTelemetry} bean into {@link MemoryTracing} ({@code agentmemory.tracing.enabled=false}
 * turns it off; {@code agentmemory.tracing.capture-content=true} adds query text and values).
 * Each part loads only when its library is on the class path, and the bean is looked up when the
 * memory is built, so nothing depends on the order of other auto-configurations.
 */
final class AgentMemoryObservabilityConfiguration {

    private AgentMemoryObservabilityConfiguration() {
    }

    /** Metrics in the application's one (or primary) {@code MeterRegistry}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.micrometer.core.instrument.MeterRegistry")
    @ConditionalOnProperty(name = MemoryProperties.METRICS_ENABLED, havingValue = "true", matchIfMissing = true)
    static class Metrics {

        @Bean
        AgentMemoryBuilderCustomizer agentMemoryMetrics(ObjectProvider<MeterRegistry> registry) {
            return builder -> {
                MeterRegistry r = registry.getIfUnique();
                if (r != null) {
                    builder.metrics(MemoryMetrics.micrometer(r));
                }
            };
        }
    }

    /** Spans through the application's one (or primary) {@code OpenTelemetry}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.opentelemetry.api.OpenTelemetry")
    @ConditionalOnProperty(name = MemoryProperties.TRACING_ENABLED, havingValue = "true", matchIfMissing = true)
    static class Tracing {

        @Bean
        AgentMemoryBuilderCustomizer agentMemoryTracing(ObjectProvider<OpenTelemetry> openTelemetry,
                                                        Environment environment) {
            return builder -> {
                OpenTelemetry otel = openTelemetry.getIfUnique();
                if (otel != null) {
                    boolean content = MemoryProperties.of(environment).captureContent;
                    builder.tracing(MemoryTracing.openTelemetry(otel).captureContent(content));
                }
            };
        }
    }
}

package dev.agentmemory.spring;

import dev.agentmemory.langchain4j.AgentMemory;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * The health indicator {@code agentMemory} when Actuator is on the class path (off with
 * {@code management.health.agentmemory.enabled=false}): see {@link MemoryHealth} for what it checks,
 * and the {@code agentmemory.health.*} properties for its bounds.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(name = "org.springframework.boot.actuate.health.HealthIndicator")
@ConditionalOnEnabledHealthIndicator("agentmemory")
class AgentMemoryHealthConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "agentMemoryHealthIndicator")
    HealthIndicator agentMemoryHealthIndicator(AgentMemory memory, Environment environment) {
        MemoryProperties props = MemoryProperties.of(environment);
        MemoryHealth health = new MemoryHealth(memory, props.healthTenants, props.healthAuditUsers,
                props.healthIndexLagLimit);
        return () -> {
            MemoryHealth.Result r = health.check();
            Health.Builder b = r.up() ? Health.up() : Health.down();
            if (r.reason() != null) {
                b.withDetail("reason", r.reason());
            }
            return b.withDetails(r.details()).build();
        };
    }
}

package dev.agentmemory.spring;

import dev.agentmemory.langchain4j.AgentMemory;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.FactoryBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.ClassUtils;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The health indicator {@code agentMemory} when Actuator's health support is on the class path
 * (off with {@code management.health.agentmemory.enabled=false}, or with
 * {@code management.health.defaults.enabled=false} unless turned on by name): see
 * {@link MemoryHealth} for what it checks, and the {@code agentmemory.health.*} properties for its
 * bounds.
 *
 * <p>Spring Boot 4 moved the health types ({@code org.springframework.boot.actuate.health} in
 * Boot 3, {@code org.springframework.boot.health.contributor} in Boot 4) but kept their shape, so
 * this class names them by string and makes the indicator for whichever generation is present:
 * one jar serves both.
 */
@Configuration(proxyBeanMethods = false)
@Conditional(AgentMemoryHealthConfiguration.HealthSupport.class)
class AgentMemoryHealthConfiguration {

    /** The health packages of Spring Boot 4 and 3, newest first. */
    static final List<String> HEALTH_PACKAGES = List.of("org.springframework.boot.health.contributor",
            "org.springframework.boot.actuate.health");

    @Bean
    @ConditionalOnMissingBean(name = "agentMemoryHealthIndicator")
    static IndicatorFactory agentMemoryHealthIndicator(AgentMemory memory, Environment environment) {
        MemoryProperties props = MemoryProperties.of(environment);
        return new IndicatorFactory(new MemoryHealth(memory, props.healthTenants, props.healthAuditUsers,
                props.healthIndexLagLimit), AgentMemoryHealthConfiguration.class.getClassLoader());
    }

    /** The package of the health types on the class path, if any. */
    static @Nullable String healthPackage(@Nullable ClassLoader loader) {
        for (String p : HEALTH_PACKAGES) {
            if (ClassUtils.isPresent(p + ".HealthIndicator", loader)) {
                return p;
            }
        }
        return null;
    }

    /** Health types present and the indicator not turned off. */
    static final class HealthSupport implements Condition {
        @Override
        public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
            if (healthPackage(context.getClassLoader()) == null) {
                return false;
            }
            Environment env = context.getEnvironment();
            Boolean byName = env.getProperty("management.health.agentmemory.enabled", Boolean.class);
            return byName != null ? byName : env.getProperty("management.health.defaults.enabled", Boolean.class, true);
        }
    }

    /**
     * Makes the {@code HealthIndicator} of the Boot generation present: its type is known to
     * Spring before the indicator exists ({@link #getObjectType}), so Actuator finds it by type.
     */
    static final class IndicatorFactory implements FactoryBean<Object> {
        private final MemoryHealth health;
        private final Class<?> indicatorType;
        private final Method status;
        private final Method withDetails;
        private final Method build;

        IndicatorFactory(MemoryHealth health, @Nullable ClassLoader loader) {
            this.health = health;
            String p = healthPackage(loader);
            if (p == null) {
                throw new IllegalStateException("no Spring Boot health types on the class path: " + HEALTH_PACKAGES);
            }
            try {
                this.indicatorType = ClassUtils.forName(p + ".HealthIndicator", loader);
                Class<?> healthType = ClassUtils.forName(p + ".Health", loader);
                this.status = healthType.getMethod("status", String.class);
                Class<?> builder = status.getReturnType();
                this.withDetails = builder.getMethod("withDetails", Map.class);
                this.build = builder.getMethod("build");
            } catch (ClassNotFoundException | NoSuchMethodException e) {
                throw new IllegalStateException("Spring Boot's health types in " + p + " are not as expected", e);
            }
        }

        @Override
        public Object getObject() {
            InvocationHandler handler = (proxy, method, args) -> switch (method.getName()) {
                case "health" -> health(args == null || args.length == 0 || Boolean.TRUE.equals(args[0]));
                case "toString" -> "agentMemory health indicator";
                case "hashCode" -> System.identityHashCode(proxy);
                case "equals" -> proxy == args[0];
                default -> InvocationHandler.invokeDefault(proxy, method, args);
            };
            return Proxy.newProxyInstance(indicatorType.getClassLoader(), new Class<?>[] {indicatorType}, handler);
        }

        @Override
        public Class<?> getObjectType() {
            return indicatorType;
        }

        /** One check as Boot's {@code Health}: up or down, the reason first among the details. */
        private Object health(boolean includeDetails) throws ReflectiveOperationException {
            MemoryHealth.Result r = health.check();
            Map<String, Object> details = new LinkedHashMap<>();
            if (includeDetails) {
                if (r.reason() != null) {
                    details.put("reason", r.reason());
                }
                details.putAll(r.details());
            }
            Object builder = status.invoke(null, r.up() ? "UP" : "DOWN");
            return build.invoke(withDetails.invoke(builder, details));
        }
    }
}

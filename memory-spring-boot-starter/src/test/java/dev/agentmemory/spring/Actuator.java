package dev.agentmemory.spring;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.util.ClassUtils;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Actuator's metrics and health endpoints as the tests read them, on Spring Boot 3 and 4 alike:
 * Boot 4 moved the endpoints and their auto-configurations to other packages without changing
 * their methods, so the tests name them by string (the one place that knows both) and call the
 * endpoints' own methods.
 */
final class Actuator {

    /** The auto-configurations of an application with Actuator and Micrometer, in Boot 3's packages and Boot 4's. */
    private static final List<String> AUTO_CONFIGURATIONS = List.of(
            "org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration",
            // Spring Boot 3
            "org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.metrics.MetricsEndpointAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.health.HealthContributorAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.health.HealthEndpointAutoConfiguration",
            // Spring Boot 4
            "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsEndpointAutoConfiguration",
            "org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration",
            "org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration",
            "org.springframework.boot.health.autoconfigure.actuate.endpoint.HealthEndpointAutoConfiguration");
    private static final List<String> METRICS_ENDPOINT = List.of(
            "org.springframework.boot.micrometer.metrics.actuate.endpoint.MetricsEndpoint",
            "org.springframework.boot.actuate.metrics.MetricsEndpoint");
    private static final List<String> HEALTH_ENDPOINT = List.of(
            "org.springframework.boot.health.actuate.endpoint.HealthEndpoint",
            "org.springframework.boot.actuate.health.HealthEndpoint");

    private Actuator() {
    }

    /**
     * The starter in a context with Actuator and Micrometer, endpoints reachable over JMX (no web
     * server), health details shown.
     */
    static ApplicationContextRunner runner() {
        List<Class<?>> classes = new ArrayList<>();
        classes.add(AgentMemoryAutoConfiguration.class);
        for (String name : AUTO_CONFIGURATIONS) {
            if (ClassUtils.isPresent(name, null)) {
                classes.add(load(name));
            }
        }
        assertThat(classes).as("Actuator's auto-configurations on the class path").hasSizeGreaterThan(6);
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(classes.toArray(Class<?>[]::new)))
                .withPropertyValues("spring.jmx.enabled=true", "management.endpoints.jmx.exposure.include=health,metrics",
                        "management.endpoint.health.show-details=always");
    }

    /** A meter's measurements through the metrics endpoint, by statistic ({@code COUNT}, ...); empty when there is no such meter. */
    static Map<String, Double> metric(ApplicationContext context, String name, String... tags) {
        Object endpoint = context.getBean(present(METRICS_ENDPOINT));
        Object descriptor = call(endpoint, "metric", new Class<?>[] {String.class, List.class}, name, List.of(tags));
        Map<String, Double> out = new LinkedHashMap<>();
        if (descriptor != null) {
            for (Object sample : (List<?>) call(descriptor, "getMeasurements", new Class<?>[0])) {
                out.put(String.valueOf((Object) call(sample, "getStatistic", new Class<?>[0])),
                        (Double) call(sample, "getValue", new Class<?>[0]));
            }
        }
        return out;
    }

    /** Every meter name the metrics endpoint lists. */
    static List<String> metricNames(ApplicationContext context) {
        Object endpoint = context.getBean(present(METRICS_ENDPOINT));
        Object names = call(endpoint, "listNames", new Class<?>[0]);
        return new ArrayList<>((java.util.Collection<String>) call(names, "getNames", new Class<?>[0]));
    }

    /** The memory's health as the health endpoint reports it at {@code agentMemory}. */
    record Health(String status, Map<String, Object> details) {
    }

    static Health memoryHealth(ApplicationContext context) {
        Object endpoint = context.getBean(present(HEALTH_ENDPOINT));
        Object health = call(endpoint, "healthForPath", new Class<?>[] {String[].class}, (Object) new String[] {"agentMemory"});
        assertThat(health).as("the agentMemory health contributor").isNotNull();
        Object status = call(health, "getStatus", new Class<?>[0]);
        @SuppressWarnings("unchecked")
        Map<String, Object> details = (Map<String, Object>) call(health, "getDetails", new Class<?>[0]);
        return new Health(String.valueOf((Object) call(status, "getCode", new Class<?>[0])), details);
    }

    private static Class<?> present(List<String> names) {
        return names.stream().filter(n -> ClassUtils.isPresent(n, null)).findFirst().map(Actuator::load)
                .orElseThrow(() -> new AssertionError("none of " + names + " on the class path"));
    }

    private static Class<?> load(String name) {
        try {
            return ClassUtils.forName(name, null);
        } catch (ClassNotFoundException e) {
            throw new AssertionError(name, e);
        }
    }

    @SuppressWarnings("unchecked")
    private static <T> T call(Object target, String method, Class<?>[] types, Object... args) {
        try {
            Method m = findMethod(target.getClass(), method, types);
            m.setAccessible(true);
            return (T) m.invoke(target, args);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(target.getClass().getName() + "." + method, e);
        }
    }

    private static Method findMethod(Class<?> type, String name, Class<?>[] types) throws NoSuchMethodException {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            for (Class<?> i : c.getInterfaces()) {
                try {
                    return i.getMethod(name, types);
                } catch (NoSuchMethodException ignored) {
                    // not declared here
                }
            }
            try {
                return c.getMethod(name, types);
            } catch (NoSuchMethodException ignored) {
                // look further up
            }
        }
        throw new NoSuchMethodException(type.getName() + "." + name);
    }
}

package dev.agentmemory.spring;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.PropertySourcesPlaceholdersResolver;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import org.springframework.boot.convert.DurationStyle;

import java.nio.file.InvalidPathException;
import java.time.Duration;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * The {@code agentmemory.*} properties of a Spring {@link Environment}, split into the keys
 * {@code AgentMemory.Builder#config(Properties)} reads (validated there, as for a configuration file)
 * and the keys only the starter knows (where the H2 file is).
 */
final class MemoryProperties {

    static final String PREFIX = "agentmemory";
    /** The starter's own key: the H2 file (path without {@code .mv.db}). */
    static final String H2_FILE = PREFIX + ".h2-file";
    static final String JDBC_URL = PREFIX + ".jdbc.url";
    static final String METRICS_ENABLED = PREFIX + ".metrics.enabled";
    static final String TRACING_ENABLED = PREFIX + ".tracing.enabled";
    static final String CAPTURE_CONTENT = PREFIX + ".tracing.capture-content";
    static final String HEALTH_TENANTS = PREFIX + ".health.tenants";
    static final String HEALTH_AUDIT_USERS = PREFIX + ".health.audit-users";
    static final String HEALTH_INDEX_LAG_LIMIT = PREFIX + ".health.index-lag-limit";
    /** The keys only the starter reads (observability and health), with their defaults. */
    static final Map<String, String> STARTER_KEYS = Map.of(METRICS_ENABLED, "true", TRACING_ENABLED, "true",
            CAPTURE_CONTENT, "false", HEALTH_TENANTS, "default", HEALTH_AUDIT_USERS, "5", HEALTH_INDEX_LAG_LIMIT, "30s");
    /** Where the H2 file is when no store is configured: {@code agentmemory/memory.mv.db} under the working directory. */
    static final Path DEFAULT_H2_FILE = Path.of("agentmemory", "memory");

    /** The keys for {@code AgentMemory.Builder#config}, with their {@code agentmemory.} prefix. */
    final Properties settings = new Properties();
    final @Nullable Path h2File;
    final boolean jdbcUrl;
    final boolean metrics;
    final boolean tracing;
    final boolean captureContent;
    /** The tenants whose users the health check lists and audits. */
    final List<String> healthTenants;
    /** How many users one health check audits (0: none). */
    final int healthAuditUsers;
    /** The episodic index's lag at which the health check reports down. */
    final Duration healthIndexLagLimit;

    private MemoryProperties(Map<String, String> keys) {
        Path file = null;
        Map<String, String> starter = new java.util.HashMap<>(STARTER_KEYS);
        for (Map.Entry<String, String> e : keys.entrySet()) {
            String key = PREFIX + "." + e.getKey();
            if (STARTER_KEYS.containsKey(key)) {
                starter.put(key, e.getValue().trim());
            } else if (key.equals(H2_FILE)) {
                if (e.getValue().isBlank()) {
                    throw new InvalidMemoryPropertyException(H2_FILE + " must be a file path, not blank");
                }
                try {
                    file = Path.of(e.getValue().trim());
                } catch (InvalidPathException ex) {
                    throw new InvalidMemoryPropertyException(H2_FILE + " must be a file path: " + ex.getMessage());
                }
            } else {
                settings.setProperty(key, e.getValue());
            }
        }
        this.h2File = file;
        this.metrics = bool(starter, METRICS_ENABLED);
        this.tracing = bool(starter, TRACING_ENABLED);
        this.captureContent = bool(starter, CAPTURE_CONTENT);
        this.healthTenants = tenants(value(starter, HEALTH_TENANTS));
        this.healthAuditUsers = auditUsers(value(starter, HEALTH_AUDIT_USERS));
        this.healthIndexLagLimit = lagLimit(value(starter, HEALTH_INDEX_LAG_LIMIT));
        this.jdbcUrl = settings.containsKey(JDBC_URL);
        if (file != null && jdbcUrl) {
            throw new InvalidMemoryPropertyException(H2_FILE + " and " + JDBC_URL
                    + " both choose where memory is kept: set one of them");
        }
    }

    /** A starter key's value: the property's, else its default. */
    private static String value(Map<String, String> starter, String key) {
        return java.util.Objects.requireNonNull(starter.get(key), key);
    }

    private static boolean bool(Map<String, String> starter, String key) {
        String v = value(starter, key);
        if (!"true".equalsIgnoreCase(v) && !"false".equalsIgnoreCase(v)) {
            throw new InvalidMemoryPropertyException(key + " must be true or false: " + v);
        }
        return Boolean.parseBoolean(v);
    }

    private static List<String> tenants(String value) {
        List<String> out = new ArrayList<>();
        for (String t : value.split(",")) {
            if (!t.isBlank()) {
                out.add(t.trim());
            }
        }
        if (out.isEmpty()) {
            throw new InvalidMemoryPropertyException(HEALTH_TENANTS + " must name at least one tenant: " + value);
        }
        return List.copyOf(out);
    }

    private static int auditUsers(String value) {
        int n;
        try {
            n = Integer.parseInt(value);
        } catch (NumberFormatException e) {
            n = -1;
        }
        if (n < 0 || n > 1000) {
            throw new InvalidMemoryPropertyException(HEALTH_AUDIT_USERS + " must be a number from 0 to 1000: " + value);
        }
        return n;
    }

    private static Duration lagLimit(String value) {
        Duration d;
        try {
            d = DurationStyle.detectAndParse(value);
        } catch (IllegalArgumentException e) {
            d = null;
        }
        if (d == null || d.isNegative() || d.isZero()) {
            throw new InvalidMemoryPropertyException(HEALTH_INDEX_LAG_LIMIT
                    + " must be a positive duration such as 30s or PT30S: " + value);
        }
        return d;
    }

    /**
     * Reads every {@code agentmemory.*} property of {@code environment} (properties, YAML, command
     * line, system properties, ...); nested keys such as {@code agentmemory.ttl.observation} keep
     * their dotted names and placeholders are resolved. Environment variables are not read as keys:
     * other tools set {@code AGENTMEMORY_*} variables of their own (which Spring would read as
     * unknown keys and fail the start), and a variable cannot spell a dashed key; a property refers
     * to one instead ({@code agentmemory.jdbc.password=${DB_PASSWORD}}).
     */
    static MemoryProperties of(Environment environment) {
        Binder binder = Binder.get(environment);
        if (environment instanceof ConfigurableEnvironment configurable) {
            List<PropertySource<?>> sources = new ArrayList<>();
            for (PropertySource<?> source : configurable.getPropertySources()) {
                if (!(source instanceof SystemEnvironmentPropertySource)) {
                    sources.add(source);
                }
            }
            binder = new Binder(ConfigurationPropertySources.from(sources),
                    new PropertySourcesPlaceholdersResolver(environment));
        }
        Map<String, String> keys = binder.bind(PREFIX, Bindable.mapOf(String.class, String.class)).orElse(Map.of());
        return new MemoryProperties(keys);
    }
}

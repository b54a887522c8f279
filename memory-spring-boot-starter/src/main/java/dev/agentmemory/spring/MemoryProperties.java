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

import java.nio.file.InvalidPathException;
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
    /** Where the H2 file is when no store is configured: {@code agentmemory/memory.mv.db} under the working directory. */
    static final Path DEFAULT_H2_FILE = Path.of("agentmemory", "memory");

    /** The keys for {@code AgentMemory.Builder#config}, with their {@code agentmemory.} prefix. */
    final Properties settings = new Properties();
    final @Nullable Path h2File;
    final boolean jdbcUrl;

    private MemoryProperties(Map<String, String> keys) {
        Path file = null;
        for (Map.Entry<String, String> e : keys.entrySet()) {
            String key = PREFIX + "." + e.getKey();
            if (key.equals(H2_FILE)) {
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
        this.jdbcUrl = settings.containsKey(JDBC_URL);
        if (file != null && jdbcUrl) {
            throw new InvalidMemoryPropertyException(H2_FILE + " and " + JDBC_URL
                    + " both choose where memory is kept: set one of them");
        }
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

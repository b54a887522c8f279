package dev.agentmemory.spring;

import dev.agentmemory.langchain4j.AgentMemory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every {@code agentmemory.*} key reaches the memory through Spring's Environment: the context
 * starts with all of them set to good values, and a bad value of any one fails startup with an
 * error naming that key (Spring Boot's failure report, not a bare stack trace).
 */
class MemoryPropertiesTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(AgentMemoryAutoConfiguration.class));

    @TempDir
    Path dir;

    @Test
    void should_start_with_every_key_set() {
        runner.withPropertyValues("agentmemory.h2-file=" + dir.resolve("memory"),
                "agentmemory.h2.accept-missing-high-water-mark=true",
                "agentmemory.ttl.observation=P7D", "agentmemory.ttl.task-fact=PT12H",
                "agentmemory.max-records-per-user=500", "agentmemory.at-limit=forget-oldest",
                "agentmemory.window-size=30", "agentmemory.results.state=5", "agentmemory.results.persistent=4",
                "agentmemory.results.episodic=0", "agentmemory.min-score=0.25", "agentmemory.block.max-chars=4000",
                "agentmemory.block.max-tokens=1000", "agentmemory.strict-conflicts=true", "agentmemory.delete-mode=hard",
                "agentmemory.encryption-key=AAECAwQFBgcICQoLDA0ODw==", "agentmemory.agent=concierge",
                "agentmemory.max-message-chars=4096", "agentmemory.metrics.enabled=false",
                "agentmemory.tracing.enabled=false", "agentmemory.tracing.capture-content=true",
                "agentmemory.health.tenants=acme,globex", "agentmemory.health.audit-users=3",
                "agentmemory.health.index-lag-limit=PT10S").run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(AgentMemory.class).agent()).isEqualTo("concierge");
                });
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
            "ttl.observation | 30 days",
            "ttl.forever | P1D",
            "max-records-per-user | many",
            "max-records-per-user | 0",
            "at-limit | drop",
            "window-size | 0",
            "results.state | -1",
            "results.persistent | x",
            "results.episodic | -2",
            "min-score | -1",
            "block.max-chars | 10",
            "block.max-tokens | 1",
            "strict-conflicts | maybe",
            "delete-mode | shred",
            "encryption-key | !!!",
            "encryption-key | AAEC",
            "max-message-chars | 5",
            "jdbc.pool-size | 0",
            "h2.accept-missing-high-water-mark | yes",
            "windowsize | 3",
            "h2-file | ''",
            "h2-file | bad\u0000name",
            "metrics.enabled | sometimes",
            "tracing.enabled | on",
            "tracing.capture-content | yes",
            "health.tenants | ' , '",
            "health.audit-users | many",
            "health.audit-users | 1001",
            "health.index-lag-limit | soon",
            "health.index-lag-limit | -5s",
    })
    void should_fail_startup_naming_the_key_with_a_bad_value(String key, String value) {
        String h2File = key.equals("h2-file") ? value : dir.resolve("memory").toString();
        runner.withPropertyValues("agentmemory.h2-file=" + h2File, "agentmemory." + key + "=" + value)
                .run(context -> {
                    assertThat(context).hasFailed();
                    Throwable failure = context.getStartupFailure();
                    FailureAnalysis analysis = new InvalidMemoryPropertyFailureAnalyzer().analyze(failure);
                    assertThat(analysis).as("Spring Boot's report of %s", failure).isNotNull();
                    assertThat(analysis.getDescription()).contains("agentmemory." + key).doesNotContain("\n\tat ");
                    assertThat(analysis.getAction()).contains("agentmemory.");
                });
    }

    /**
     * Environment variables of other tools (CI's {@code AGENTMEMORY_TEST_PG_URL}, ...) are not
     * read as {@code agentmemory.*} keys; the application's properties reach them through
     * placeholders.
     */
    @Test
    void should_ignore_environment_variables_unless_a_property_refers_to_one() {
        runner.withInitializer(context -> context.getEnvironment().getPropertySources().addFirst(
                        new SystemEnvironmentPropertySource("test-systemEnvironment", Map.of(
                                "AGENTMEMORY_PG_PORT", "25631", "AGENTMEMORY_TEST_PG_URL", "jdbc:postgresql://x/y",
                                "MEMORY_AGENT", "from-env"))))
                .withPropertyValues("agentmemory.h2-file=" + dir.resolve("memory"), "agentmemory.agent=${MEMORY_AGENT}")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(AgentMemory.class).agent()).isEqualTo("from-env");
                });
    }

    /** application.yaml's nested maps spell the same keys, and a bad one is named in full. */
    @Test
    void should_read_nested_yaml_keys() {
        String yaml = "agentmemory:\n  h2-file: " + dir.resolve("memory") + "\n  window-size: 7\n  agent: yaml-agent\n"
                + "  ttl:\n    observation: P7D\n    decision: 30 days\n";
        runner.withInitializer(context -> {
            try {
                new YamlPropertySourceLoader().load("application.yaml", new ByteArrayResource(yaml.getBytes(StandardCharsets.UTF_8)))
                        .forEach(source -> context.getEnvironment().getPropertySources().addLast(source));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }).run(context -> {
            FailureAnalysis analysis = new InvalidMemoryPropertyFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis).isNotNull();
            assertThat(analysis.getDescription()).contains("agentmemory.ttl.decision").contains("30 days");
        });
    }

    @Test
    void should_refuse_both_an_h2_file_and_a_jdbc_url() {
        runner.withPropertyValues("agentmemory.h2-file=" + dir.resolve("memory"),
                "agentmemory.jdbc.url=jdbc:postgresql://localhost:1/none").run(context -> {
                    FailureAnalysis analysis = new InvalidMemoryPropertyFailureAnalyzer().analyze(context.getStartupFailure());
                    assertThat(analysis).isNotNull();
                    assertThat(analysis.getDescription()).contains("agentmemory.h2-file").contains("agentmemory.jdbc.url");
                });
    }

    @Test
    void should_register_the_failure_report_with_spring_boot() throws IOException {
        List<String> analyzers = new ArrayList<>();
        for (URL url : Collections.list(getClass().getClassLoader().getResources("META-INF/spring.factories"))) {
            Properties p = new Properties();
            try (InputStream in = url.openStream()) {
                p.load(in);
            }
            analyzers.add(p.getProperty("org.springframework.boot.diagnostics.FailureAnalyzer", ""));
        }
        assertThat(String.join(",", analyzers)).contains(InvalidMemoryPropertyFailureAnalyzer.class.getName());
    }
}

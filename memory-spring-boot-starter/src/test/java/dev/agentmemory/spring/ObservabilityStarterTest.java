package dev.agentmemory.spring;

import dev.agentmemory.langchain4j.AgentMemory;
import dev.agentmemory.langchain4j.SessionRef;
import dev.agentmemory.testing.langchain4j.ScriptedChatModel;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import javax.sql.DataSource;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

import static dev.agentmemory.testing.langchain4j.ScriptedChatModel.call;
import static dev.agentmemory.testing.langchain4j.ScriptedChatModel.text;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The starter with Actuator, Micrometer and an OpenTelemetry SDK in the application, as an
 * operator meets it: an assistant from the context's beans takes a turn, and the memory's meters
 * are read through Actuator's metrics endpoint, its health through the health endpoint (down with
 * the reason once the database cannot be reached) and its spans from the SDK's in-memory exporter.
 */
class ObservabilityStarterTest {

    static final SessionRef ALICE = new SessionRef("default", "alice", "s1");
    static final String GREEN = "My favourite colour is green";

    /** The context an application with Actuator and Micrometer has (Boot 3 or 4). */
    static final ApplicationContextRunner RUNNER = Actuator.runner();

    @TempDir
    Path dir;

    private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
    private final List<SpanData> captured = new java.util.ArrayList<>();

    private OpenTelemetrySdk sdk() {
        return sdk(exporter);
    }

    /** An SDK exporting to {@code to}; closing it (the context does) shuts the exporter down for good. */
    private static OpenTelemetrySdk sdk(InMemorySpanExporter to) {
        return OpenTelemetrySdk.builder().setTracerProvider(SdkTracerProvider.builder()
                .addSpanProcessor(SimpleSpanProcessor.create(to)).build()).build();
    }

    /** One turn: the user states a preference, the model saves it with the memory tool and answers. */
    static void rememberTurn(ApplicationContext context) {
        ScriptedChatModel model = new ScriptedChatModel("scripted", false,
                call("remember", "{\"key\":\"favourite.colour\",\"value\":\"green\",\"kind\":\"preference\","
                        + "\"userQuote\":\"" + GREEN + "\"}"),
                text("Noted."));
        assertThat(AgentMemoryAutoConfigurationTest.assistant(context, model).chat(ALICE, GREEN)).isEqualTo("Noted.");
    }

    static Map<String, Double> metric(ApplicationContext context, String name, String... tags) {
        Map<String, Double> m = Actuator.metric(context, name, tags);
        assertThat(m).as("%s %s through the metrics endpoint", name, List.of(tags)).isNotEmpty();
        return m;
    }

    static Actuator.Health memoryHealth(ApplicationContext context) {
        return Actuator.memoryHealth(context);
    }

    /** Checks what one remembered turn leaves in the meters and the health, on any store. */
    static void assertTurnObserved(ApplicationContext context) {
        rememberTurn(context);
        assertThat(metric(context, "agentmemory.writes", "outcome:accepted", "memory:assistant"))
                .containsEntry("COUNT", 1.0);
        assertThat(metric(context, "agentmemory.recall.duration", "layer:all")).containsEntry("COUNT", 1.0);
        assertThat(metric(context, "agentmemory.recall.duration", "layer:persistent")).containsEntry("COUNT", 1.0);
        assertThat(metric(context, "agentmemory.recall.items", "outcome:framed")).containsEntry("COUNT", 0.0);
        assertThat(Actuator.metric(context, "agentmemory.store.errors")).as("no store error").isEmpty();

        Actuator.Health health = memoryHealth(context);
        assertThat(health.status()).as("%s", health.details()).isEqualTo("UP");
        assertThat(health.details()).containsEntry("store", "reachable").containsEntry("users", 1)
                .containsEntry("audited", 1).containsEntry("agent", "assistant");
    }

    @Test
    void should_show_meters_health_and_spans_of_a_turn_on_an_h2_file() {
        try (OpenTelemetrySdk otel = sdk()) {
            RUNNER.withPropertyValues("agentmemory.h2-file=" + dir.resolve("memory"))
                    .withBean(OpenTelemetry.class, () -> otel)
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        underAppSpan(otel, "turn", () -> assertTurnObserved(context));
                        // a second turn in another session: the saved colour is framed
                        ScriptedChatModel model = new ScriptedChatModel(r -> dev.langchain4j.data.message.AiMessage.from("Green."));
                        underAppSpan(otel, "next turn", () -> AgentMemoryAutoConfigurationTest.assistant(context, model)
                                .chat(new SessionRef("default", "alice", "s2"), "Which colour do I like?"));
                        assertThat(metric(context, "agentmemory.recall.items", "outcome:framed"))
                                .containsEntry("COUNT", 1.0);
                        captured.addAll(exporter.getFinishedSpanItems()); // closing the context shuts the SDK down
                    });
            List<SpanData> spans = captured;
            String tree = tree(spans);
            System.out.println("spans of the first two turns (Spring Boot " + org.springframework.boot.SpringBootVersion.getVersion()
                    + "):\n" + tree);
            assertThat(tree).as(tree).startsWith("turn {}\n  search_memory {").contains("\nnext turn {}\n  search_memory {");
            assertThat(spans.stream().filter(s -> s.getName().equals("update_memory")).count()).as(tree).isEqualTo(7);
            SpanData toolWrite = spans.stream().filter(s -> "remember".equals(attr(s, "agentmemory.tool")))
                    .findFirst().orElseThrow(() -> new AssertionError(tree));
            assertThat(attr(toolWrite, "agentmemory.write.outcome")).isEqualTo("applied");
            assertThat(attr(toolWrite, "agentmemory.key")).isEqualTo("favourite.colour");
            assertThat(spans).as("no content without capture-content")
                    .noneMatch(s -> s.getAttributes().asMap().keySet().stream()
                            .anyMatch(k -> k.getKey().equals("gen_ai.memory.query.text")));
        }
    }

    @Test
    void should_make_no_meters_or_spans_when_turned_off_and_capture_content_when_asked() {
        try (OpenTelemetrySdk otel = sdk()) {
            RUNNER.withPropertyValues("agentmemory.h2-file=" + dir.resolve("off"), "agentmemory.metrics.enabled=false",
                            "agentmemory.tracing.enabled=false")
                    .withBean(OpenTelemetry.class, () -> otel)
                    .run(context -> {
                        rememberTurn(context);
                        assertThat(Actuator.metricNames(context))
                                .noneMatch(n -> n.startsWith("agentmemory."));
                        assertThat(exporter.getFinishedSpanItems()).isEmpty();
                    });
        }
        InMemorySpanExporter second = InMemorySpanExporter.create();
        try (OpenTelemetrySdk otel = sdk(second)) {
            RUNNER.withPropertyValues("agentmemory.h2-file=" + dir.resolve("content"),
                            "agentmemory.tracing.capture-content=true")
                    .withBean(OpenTelemetry.class, () -> otel)
                    .run(context -> {
                        rememberTurn(context);
                        assertThat(second.getFinishedSpanItems())
                                .anyMatch(s -> GREEN.equals(attr(s, "gen_ai.memory.query.text")));
                    });
        }
    }

    /**
     * The application's DataSource (H2 here) stops answering: the health endpoint reports the
     * memory down, naming the store as the reason; once it answers again the memory is up.
     */
    @Test
    void should_report_down_with_the_reason_while_the_database_cannot_be_reached() {
        JdbcDataSource dataSource = new JdbcDataSource();
        String url = "jdbc:h2:file:" + dir.resolve("app") + ";DB_CLOSE_DELAY=-1";
        dataSource.setURL(url);
        RUNNER.withBean(DataSource.class, () -> dataSource).run(context -> {
            rememberTurn(context);
            assertThat(memoryHealth(context).status()).isEqualTo("UP");

            dataSource.setURL("jdbc:h2:file:" + dir.resolve("moved-away") + ";IFEXISTS=TRUE");
            Actuator.Health down = memoryHealth(context);
            assertThat(down.status()).isEqualTo("DOWN");
            assertThat(down.details()).containsEntry("store", "unreachable");
            assertThat((String) down.details().get("reason")).startsWith("store unreachable: ")
                    .contains("not found");
            assertThat(metric(context, "agentmemory.store.errors", "operation:read")).containsEntry("COUNT", 1.0);

            dataSource.setURL(url);
            assertThat(memoryHealth(context).status()).isEqualTo("UP");
        });
    }

    /** Runs {@code work} under an application span, as a web request's handler would. */
    static void underAppSpan(OpenTelemetry otel, String name, Runnable work) {
        io.opentelemetry.api.trace.Span app = otel.getTracer("app").spanBuilder(name).startSpan();
        try (io.opentelemetry.context.Scope ignored = app.makeCurrent()) {
            work.run();
        } finally {
            app.end();
        }
    }

    /** One check audits at most agentmemory.health.audit-users of the users held, and loads no other user. */
    @Test
    void should_audit_at_most_the_configured_number_of_held_users() {
        RUNNER.withPropertyValues("agentmemory.h2-file=" + dir.resolve("bounded"), "agentmemory.health.audit-users=1")
                .run(context -> {
                    ScriptedChatModel model = new ScriptedChatModel(r -> dev.langchain4j.data.message.AiMessage.from("Hi."));
                    Assistant assistant = AgentMemoryAutoConfigurationTest.assistant(context, model);
                    assistant.chat(new SessionRef("default", "alice", "s1"), "Hello");
                    assistant.chat(new SessionRef("default", "bob", "s1"), "Hello");
                    assistant.chat(new SessionRef("other", "carol", "s1"), "Hello");
                    for (int check = 0; check < 2; check++) {
                        Actuator.Health health = memoryHealth(context);
                        assertThat(health.status()).isEqualTo("UP");
                        assertThat(health.details()).as("carol's tenant is not checked").containsEntry("users", 2)
                                .containsEntry("audited", 1);
                    }
                    assertThat(memory(context).engine().admin().heldUsers()).as("the probe user is not loaded")
                            .extracting(p -> p.user()).containsExactlyInAnyOrder("alice", "bob", "carol");
                });
    }

    static String attr(SpanData span, String key) {
        return span.getAttributes().asMap().entrySet().stream().filter(e -> e.getKey().getKey().equals(key))
                .map(e -> String.valueOf(e.getValue())).findFirst().orElse(null);
    }

    /** The spans as an indented tree of names and attributes. */
    static String tree(List<SpanData> spans) {
        StringBuilder b = new StringBuilder();
        spans.stream().filter(s -> spans.stream().noneMatch(p -> p.getSpanId().equals(s.getParentSpanId())))
                .forEach(root -> print(root, spans, 0, b));
        return b.toString();
    }

    private static void print(SpanData span, List<SpanData> all, int depth, StringBuilder b) {
        Map<String, Object> attrs = new TreeMap<>();
        span.getAttributes().forEach((k, v) -> attrs.put(k.getKey(), v));
        b.append("  ".repeat(depth)).append(span.getName()).append(' ').append(attrs).append('\n');
        all.stream().filter(c -> c.getParentSpanId().equals(span.getSpanId()))
                .forEach(c -> print(c, all, depth + 1, b));
    }

    static AgentMemory memory(ApplicationContext context) {
        return context.getBean(AgentMemory.class);
    }
}

package dev.agentmemory.langchain4j;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.ReadOptions;
import dev.agentmemory.core.store.InMemoryEventStore;
import dev.agentmemory.core.testing.FaultyEventStore;
import dev.agentmemory.testing.langchain4j.ScriptedChatModel;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.rag.query.Metadata;
import dev.langchain4j.rag.query.Query;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The memory's spans as an application's OpenTelemetry SDK receives them: real AiServices turns
 * with a scripted model, the memory's augmentor, chat memory and tools, spans captured by the
 * SDK's in-memory exporter.
 */
class MemoryTracingTest {

    interface Assistant {
        String chat(@MemoryId SessionRef session, @dev.langchain4j.service.UserMessage String text);
    }

    private static final SessionRef ALICE = new SessionRef("acme", "alice", "s1");
    private static final String STATED = "My favourite colour is green";

    private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
    private final SdkTracerProvider provider = SdkTracerProvider.builder()
            .addSpanProcessor(SimpleSpanProcessor.create(exporter)).build();
    private final OpenTelemetrySdk otel = OpenTelemetrySdk.builder().setTracerProvider(provider).build();

    @TempDir
    Path dir;

    @AfterEach
    void closeSdk() {
        otel.close();
    }

    private static Assistant assistant(AgentMemory memory, ScriptedChatModel model) {
        return AiServices.builder(Assistant.class)
                .chatModel(model)
                .chatMemoryProvider(memory.chatMemoryProvider())
                .retrievalAugmentor(memory.retrievalAugmentor())
                .tools(memory.tools())
                .build();
    }

    private static ScriptedChatModel rememberThenAnswer() {
        return new ScriptedChatModel("scripted", false,
                ScriptedChatModel.call("remember", "{\"key\":\"favourite.colour\",\"value\":\"green\","
                        + "\"kind\":\"preference\",\"userQuote\":\"" + STATED + "\"}"),
                ScriptedChatModel.text("Noted."));
    }

    /** Runs {@code turn} under an application span named {@code turn}, as a web request would. */
    private void underAppSpan(Runnable turn) {
        Span app = otel.getTracer("app").spanBuilder("turn").startSpan();
        try (Scope ignored = app.makeCurrent()) {
            turn.run();
        } finally {
            app.end();
        }
    }

    private List<SpanData> memorySpans() {
        return exporter.getFinishedSpanItems().stream()
                .filter(s -> s.getInstrumentationScopeInfo().getName().equals("dev.agentmemory.langchain4j")).toList();
    }

    private static String attr(SpanData span, String key) {
        Object v = span.getAttributes().asMap().entrySet().stream().filter(e -> e.getKey().getKey().equals(key))
                .map(Map.Entry::getValue).findFirst().orElse(null);
        return String.valueOf(v);
    }

    private static boolean hasAttr(SpanData span, String key) {
        return span.getAttributes().asMap().keySet().stream().anyMatch(k -> k.getKey().equals(key));
    }

    /** The spans as an indented tree, names and attributes, for failure messages and the closing note. */
    static String tree(List<SpanData> spans) {
        StringBuilder b = new StringBuilder();
        spans.stream().filter(s -> spans.stream().noneMatch(p -> p.getSpanId().equals(s.getParentSpanId())))
                .forEach(root -> print(root, spans, 0, b));
        return b.toString();
    }

    private static void print(SpanData span, List<SpanData> all, int depth, StringBuilder b) {
        Map<String, Object> attrs = new TreeMap<>();
        span.getAttributes().forEach((k, v) -> attrs.put(k.getKey(), v));
        b.append("  ".repeat(depth)).append(span.getName()).append(' ').append(attrs)
                .append(span.getStatus().getStatusCode() == StatusCode.ERROR ? " ERROR" : "").append('\n');
        all.stream().filter(c -> c.getParentSpanId().equals(span.getSpanId()))
                .sorted((x, y) -> Long.compare(x.getStartEpochNanos(), y.getStartEpochNanos()))
                .forEach(c -> print(c, all, depth + 1, b));
    }

    @Test
    void should_trace_a_turn_as_recall_message_writes_and_a_tool_write_under_the_application_span() {
        try (AgentMemory memory = AgentMemory.builder().h2File(dir.resolve("m"))
                .tracing(MemoryTracing.openTelemetry(otel)).build()) {
            Assistant assistant = assistant(memory, rememberThenAnswer());

            underAppSpan(() -> assistant.chat(ALICE, STATED));

            List<SpanData> all = exporter.getFinishedSpanItems();
            String tree = tree(all);
            SpanData app = all.stream().filter(s -> s.getName().equals("turn")).findFirst().orElseThrow();
            List<SpanData> memory1 = memorySpans();
            assertThat(memory1).as(tree).isNotEmpty()
                    .allSatisfy(s -> {
                        assertThat(s.getKind()).isEqualTo(SpanKind.INTERNAL);
                        assertThat(s.getTraceId()).isEqualTo(app.getTraceId());
                        assertThat(attr(s, "gen_ai.operation.name")).isEqualTo(s.getName());
                        assertThat(attr(s, "gen_ai.memory.store.id")).isEqualTo(memory.agent());
                        assertThat(attr(s, "gen_ai.conversation.id")).isEqualTo("s1");
                        assertThat(s.getStatus().getStatusCode()).isNotEqualTo(StatusCode.ERROR);
                    });
            assertThat(memory1).extracting(SpanData::getName).as(tree).first().isEqualTo("search_memory");
            SpanData recall = memory1.get(0);
            assertThat(recall.getParentSpanId()).as(tree).isEqualTo(app.getSpanId());
            assertThat(attr(recall, "gen_ai.memory.record.count")).isEqualTo("0");
            assertThat(attr(recall, "agentmemory.recall.framed")).isEqualTo("0");
            assertThat(attr(recall, "agentmemory.user.hash")).hasSize(16).doesNotContain("alice");
            // one span per batch of chat messages: the user message, the tool call, its result, the answer
            List<SpanData> messageWrites = memory1.stream()
                    .filter(s -> s.getName().equals("update_memory") && attr(s, "agentmemory.layer").equals("messages"))
                    .toList();
            assertThat(messageWrites).as(tree).hasSize(4)
                    .allSatisfy(s -> assertThat(attr(s, "agentmemory.write.outcome")).isEqualTo("applied"));
            SpanData toolWrite = memory1.stream().filter(s -> attr(s, "agentmemory.tool").equals("remember"))
                    .findFirst().orElseThrow(() -> new AssertionError(tree));
            assertThat(toolWrite.getName()).isEqualTo("update_memory");
            assertThat(attr(toolWrite, "agentmemory.write.outcome")).isEqualTo("applied");
            assertThat(attr(toolWrite, "agentmemory.key")).isEqualTo("favourite.colour");
            assertThat(attr(toolWrite, "agentmemory.layer")).isEqualTo("persistent");
            assertThat(hasAttr(toolWrite, "gen_ai.memory.record.id")).as(tree).isTrue();
            assertThat(attr(toolWrite, "agentmemory.user.hash")).isEqualTo(attr(recall, "agentmemory.user.hash"));
            // no user content without the opt-in
            assertThat(memory1).as(tree).noneMatch(s -> hasAttr(s, "gen_ai.memory.query.text")
                    || hasAttr(s, "gen_ai.memory.records"));
            assertThat(tree).doesNotContain("green").doesNotContain("alice");

            // the next turn recalls the preference: counted per layer, framed, with its score
            exporter.reset();
            Assistant echo = AiServices.builder(Assistant.class)
                    .chatModel(ScriptedChatModel.echo(text -> memory.framer().stripFrames(text)))
                    .chatMemoryProvider(memory.chatMemoryProvider())
                    .retrievalAugmentor(memory.retrievalAugmentor()).build();
            underAppSpan(() -> echo.chat(ALICE, "Which colour do I like?"));
            SpanData second = memorySpans().get(0);
            String tree2 = tree(exporter.getFinishedSpanItems());
            assertThat(second.getName()).as(tree2).isEqualTo("search_memory");
            assertThat(attr(second, "agentmemory.recall.items.persistent")).as(tree2).isEqualTo("1");
            assertThat(attr(second, "agentmemory.recall.framed")).as(tree2)
                    .isEqualTo(String.valueOf(memory.lastRecall(ALICE).orElseThrow().used().size()));
            assertThat(hasAttr(second, "agentmemory.recall.top_score")).as(tree2).isTrue();
            System.out.println("span tree of one turn:\n" + tree + "\nnext turn:\n" + tree2);
        }
    }

    @Test
    void should_record_the_query_and_the_written_value_only_when_content_capture_is_on() {
        OpenTelemetry openTelemetry = otel;
        // tag::tracing[]
        AgentMemory memory = AgentMemory.builder()
                .h2File(dir.resolve("memory"))
                .tracing(MemoryTracing.openTelemetry(openTelemetry)   // the application's OpenTelemetry
                        .captureContent(true))                        // query text and values: opt-in
                .build();
        // end::tracing[]
        try (memory) {
            assistant(memory, rememberThenAnswer()).chat(ALICE, STATED);

            List<SpanData> spans = memorySpans();
            String tree = tree(spans);
            assertThat(attr(spans.get(0), "gen_ai.memory.query.text")).as(tree).isEqualTo(STATED);
            SpanData toolWrite = spans.stream().filter(s -> attr(s, "agentmemory.tool").equals("remember"))
                    .findFirst().orElseThrow(() -> new AssertionError(tree));
            assertThat(attr(toolWrite, "gen_ai.memory.records"))
                    .isEqualTo("[{\"id\":\"favourite.colour\",\"content\":\"green\"}]");
        }
    }

    @Test
    void should_trace_a_forget_through_the_tool_with_target_mode_and_count() {
        try (AgentMemory memory = AgentMemory.builder().h2File(dir.resolve("m"))
                .tracing(MemoryTracing.openTelemetry(otel)).build()) {
            assistant(memory, rememberThenAnswer()).chat(ALICE, STATED);
            exporter.reset();
            String ask = "Please forget my favourite colour";
            ScriptedChatModel forget = new ScriptedChatModel("scripted", false,
                    ScriptedChatModel.call("forget", "{\"key\":\"favourite.colour\",\"scope\":\"persistent\","
                            + "\"userQuote\":\"" + ask + "\"}"),
                    ScriptedChatModel.echoToolResults());

            String answer = assistant(memory, forget).chat(ALICE, ask);

            List<SpanData> spans = memorySpans();
            String tree = tree(spans);
            SpanData deletion = spans.stream().filter(s -> s.getName().equals("delete_memory"))
                    .findFirst().orElseThrow(() -> new AssertionError(tree));
            assertThat(answer).contains("Forgot favourite.colour in persistent memory: 1 version(s)");
            assertThat(attr(deletion, "gen_ai.operation.name")).isEqualTo("delete_memory");
            assertThat(attr(deletion, "agentmemory.forget.target")).isEqualTo("key");
            assertThat(attr(deletion, "agentmemory.forget.mode")).isEqualTo("soft");
            assertThat(attr(deletion, "agentmemory.key")).isEqualTo("favourite.colour");
            assertThat(attr(deletion, "agentmemory.layer")).isEqualTo("persistent");
            assertThat(attr(deletion, "gen_ai.memory.record.count")).isEqualTo("1");
            assertThat(attr(deletion, "agentmemory.write.outcome")).isEqualTo("forgotten");

            // deleting the chat memory forgets the session: one delete_memory span, target session
            exporter.reset();
            memory.chatMemoryStore().deleteMessages(ALICE);
            assertThat(memorySpans()).singleElement().satisfies(s -> {
                assertThat(s.getName()).isEqualTo("delete_memory");
                assertThat(attr(s, "agentmemory.forget.target")).isEqualTo("session");
            });
        }
    }

    @Test
    void should_trace_a_direct_retriever_call_and_fail_its_span_on_a_query_without_a_user() {
        try (AgentMemory memory = AgentMemory.builder().h2File(dir.resolve("m"))
                .tracing(MemoryTracing.openTelemetry(otel)).build()) {
            assistant(memory, rememberThenAnswer()).chat(ALICE, STATED);
            exporter.reset();
            Metadata md = Metadata.builder().chatMessage(UserMessage.from("colour"))
                    .invocationContext(InvocationContext.builder().chatMemoryId(ALICE).build()).build();

            memory.contentRetriever().retrieve(Query.from("Which colour do I like?", md));
            assertThatThrownBy(() -> memory.contentRetriever().retrieve(Query.from("no user")))
                    .isInstanceOf(IllegalArgumentException.class);

            List<SpanData> spans = memorySpans();
            String tree = tree(spans);
            assertThat(spans).extracting(SpanData::getName).as(tree).containsExactly("search_memory", "search_memory");
            assertThat(attr(spans.get(0), "agentmemory.recall.items.persistent")).as(tree).isEqualTo("1");
            assertThat(spans.get(0).getStatus().getStatusCode()).isNotEqualTo(StatusCode.ERROR);
            assertThat(spans.get(1).getStatus().getStatusCode()).as(tree).isEqualTo(StatusCode.ERROR);
            assertThat(attr(spans.get(1), "error.type")).isEqualTo(IllegalArgumentException.class.getName());
        }
    }

    @Test
    void should_end_the_span_with_status_error_when_the_store_fails() {
        FaultyEventStore store = new FaultyEventStore(new InMemoryEventStore()).alone();
        try (AgentMemory memory = AgentMemory.builder().store(store)
                .tracing(MemoryTracing.openTelemetry(otel)).build()) {
            Assistant assistant = assistant(memory, new ScriptedChatModel(ScriptedChatModel.text("Hi.")));
            store.refuseNextAppends(1);

            assertThatThrownBy(() -> assistant.chat(ALICE, "Hello")).isNotNull();

            List<SpanData> spans = memorySpans();
            String tree = tree(spans);
            SpanData failed = spans.stream().filter(s -> s.getStatus().getStatusCode() == StatusCode.ERROR)
                    .findFirst().orElseThrow(() -> new AssertionError("no span with status ERROR:\n" + tree));
            assertThat(failed.getName()).as(tree).isEqualTo("update_memory");
            assertThat(attr(failed, "error.type")).as(tree).isNotEqualTo("null");
            assertThat(failed.getEvents()).as(tree).anyMatch(e -> e.getName().equals("exception"));
        }
    }

    @Test
    void should_make_no_span_without_tracing_even_under_an_application_span() {
        try (AgentMemory memory = AgentMemory.builder().h2File(dir.resolve("m")).build()) {
            Assistant assistant = assistant(memory, rememberThenAnswer());

            underAppSpan(() -> assertThat(assistant.chat(ALICE, STATED)).isEqualTo("Noted."));

            assertThat(exporter.getFinishedSpanItems()).extracting(SpanData::getName).containsExactly("turn");
            Caller alice = memory.caller(ALICE);
            assertThat(memory.engine().keyState(alice, alice.persistent(), MemoryKey.of("favourite.colour"),
                    ReadOptions.DEFAULT).current()).as("the tool still wrote").isNotNull();
        }
    }

    @Test
    void should_run_a_turn_without_the_opentelemetry_and_micrometer_jars_on_the_class_path() throws Exception {
        String path = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<URL> urls = new ArrayList<>();
        for (String entry : path.split(File.pathSeparator)) {
            if (!entry.contains("opentelemetry") && !entry.contains("micrometer")) {
                urls.add(Path.of(entry).toUri().toURL());
            }
        }
        assertThat(urls.size()).as("class path entries kept").isGreaterThan(5);
        try (URLClassLoader loader = new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader())) {
            assertThatThrownBy(() -> loader.loadClass(OpenTelemetry.class.getName()))
                    .isInstanceOf(ClassNotFoundException.class);
            assertThatThrownBy(() -> loader.loadClass("io.micrometer.core.instrument.MeterRegistry"))
                    .isInstanceOf(ClassNotFoundException.class);
            Class<?> turn = loader.loadClass(TurnWithoutOpenTelemetry.class.getName());
            var run = turn.getDeclaredMethod("run");
            run.setAccessible(true);
            Thread thread = Thread.currentThread();
            ClassLoader before = thread.getContextClassLoader();
            thread.setContextClassLoader(loader); // service lookups (Jackson modules, JDBC drivers) use it
            Object answer;
            try {
                answer = run.invoke(null);
            } finally {
                thread.setContextClassLoader(before);
            }
            assertThat(answer).isEqualTo("Noted.");
        }
    }
}

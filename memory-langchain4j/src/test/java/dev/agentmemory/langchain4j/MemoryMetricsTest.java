package dev.agentmemory.langchain4j;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.store.InMemoryEventStore;
import dev.agentmemory.core.testing.FaultyEventStore;
import dev.agentmemory.testing.TestClock;
import dev.agentmemory.testing.langchain4j.ScriptedChatModel;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.search.RequiredSearch;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The memory's meters as an application's Micrometer registry holds them after real AiServices
 * turns with a scripted model: recall time by layer, items framed and cut, writes by outcome,
 * forgets, store errors, the episodic index's backlog by the engine's clock, and the events one
 * instance catches up from another over a shared store.
 */
class MemoryMetricsTest {

    interface Assistant {
        String chat(@MemoryId SessionRef session, @dev.langchain4j.service.UserMessage String text);
    }

    private static final SessionRef ALICE = new SessionRef("acme", "alice", "s1");
    private static final String GREEN = "My favourite colour is green";
    private static final String BLUE = "Actually my favourite colour is blue now";

    private final MeterRegistry registry = new SimpleMeterRegistry();

    @TempDir
    Path dir;

    private static Assistant assistant(AgentMemory memory, ScriptedChatModel model) {
        return AiServices.builder(Assistant.class)
                .chatModel(model)
                .chatMemoryProvider(memory.chatMemoryProvider())
                .retrievalAugmentor(memory.retrievalAugmentor())
                .tools(memory.tools())
                .build();
    }

    private static ScriptedChatModel remember(String value, String quote) {
        return new ScriptedChatModel("scripted", false,
                ScriptedChatModel.call("remember", "{\"key\":\"favourite.colour\",\"value\":\"" + value + "\","
                        + "\"kind\":\"preference\",\"userQuote\":\"" + quote + "\"}"),
                ScriptedChatModel.echoToolResults());
    }

    private RequiredSearch meter(String name, String... tags) {
        return registry.get(name).tag("memory", "assistant").tags(tags);
    }

    private double count(String name, String... tags) {
        return meter(name, tags).counter().count();
    }

    /** Every meter in the registry, one line each, for failure messages and the closing note. */
    static String dump(MeterRegistry registry) {
        return registry.getMeters().stream().map(MemoryMetricsTest::line).sorted().collect(Collectors.joining("\n"));
    }

    private static String line(Meter m) {
        StringBuilder b = new StringBuilder(m.getId().getName()).append(' ');
        m.getId().getTags().forEach(t -> b.append(t.getKey()).append('=').append(t.getValue()).append(' '));
        m.measure().forEach(x -> b.append(x.getStatistic().name().toLowerCase(java.util.Locale.ROOT))
                .append(':').append(x.getValue()).append(' '));
        return b.toString().trim();
    }

    @Test
    void should_count_recalls_by_layer_and_writes_and_forgets_by_outcome_through_aiservices_turns() {
        // tag::metrics[]
        AgentMemory memory = AgentMemory.builder()
                .h2File(dir.resolve("m"))
                .metrics(MemoryMetrics.micrometer(registry))   // the application's MeterRegistry
                .build();
        // end::metrics[]
        try (memory) {
            assertThat(assistant(memory, remember("green", GREEN)).chat(ALICE, GREEN)).startsWith("Saved ");
            assertThat(assistant(memory, remember("blue", BLUE)).chat(ALICE, BLUE)).startsWith("Saved ");
            String notSaid = "I never said this";
            assertThat(assistant(memory, remember("red", notSaid)).chat(ALICE, "What is my favourite colour?"))
                    .as("a quote the user did not write is refused").contains("Not saved: the quote was not found");
            // what the three turns framed and cut, as the memory kept it (a forget drops these records)
            int framed = memory.recentRecalls(ALICE).stream().mapToInt(r -> r.used().size()).sum();
            int cut = memory.recentRecalls(ALICE).stream().mapToInt(r -> r.cut().size()).sum();
            assertThat(framed).as("the later turns framed the colour").isGreaterThan(0);
            assertThat(count(MemoryMetrics.RECALL_ITEMS, "outcome", "framed")).as(dump(registry)).isEqualTo(framed);
            assertThat(count(MemoryMetrics.RECALL_ITEMS, "outcome", "cut")).as(dump(registry)).isEqualTo(cut);
            Caller alice = memory.caller(ALICE);
            assertThat(memory.engine().propose(alice, Proposal.set(alice.persistent(), "favourite.colour", "red")
                    .kind(Kind.INFERENCE).source(Source.MODEL).build()).result()).isEqualTo(Proposal.Outcome.Result.CONFLICT);
            String ask = "Please forget my favourite colour";
            String forgot = assistant(memory, new ScriptedChatModel("scripted", false,
                    ScriptedChatModel.call("forget", "{\"key\":\"favourite.colour\",\"scope\":\"persistent\","
                            + "\"userQuote\":\"" + ask + "\"}"),
                    ScriptedChatModel.echoToolResults())).chat(ALICE, ask);
            assertThat(forgot).contains("Forgot favourite.colour");

            String all = dump(registry);
            assertThat(meter(MemoryMetrics.RECALL_DURATION, "layer", "all").timer().count()).as(all).isEqualTo(4);
            assertThat(meter(MemoryMetrics.RECALL_DURATION, "layer", "state").timer().count()).as(all).isEqualTo(4);
            assertThat(meter(MemoryMetrics.RECALL_DURATION, "layer", "persistent").timer().count()).as(all).isEqualTo(4);
            assertThat(registry.find(MemoryMetrics.RECALL_DURATION).tag("layer", "episodic").timer())
                    .as("no embedding model, no episodic layer").isNull();
            assertThat(count(MemoryMetrics.WRITES, "outcome", "accepted")).as(all).isEqualTo(1);
            assertThat(count(MemoryMetrics.WRITES, "outcome", "superseded")).as(all).isEqualTo(1);
            assertThat(count(MemoryMetrics.WRITES, "outcome", "rejected")).as(all).isEqualTo(1);
            assertThat(count(MemoryMetrics.WRITES, "outcome", "conflict")).as(all).isEqualTo(1);
            assertThat(count(MemoryMetrics.FORGETS, "target", "records", "mode", "soft")).as(all).isEqualTo(1);
            assertThat(registry.find(MemoryMetrics.CATCH_UP_EVENTS).counter()).as("one instance catches up nothing")
                    .isNull();
            assertThat(registry.find(MemoryMetrics.STORE_ERRORS).counter()).as(all).isNull();

            memory.chatMemoryStore().deleteMessages(ALICE);
            assertThat(count(MemoryMetrics.FORGETS, "target", "messages", "mode", "soft")).as(dump(registry))
                    .isEqualTo(1);
        }
    }

    /** README.md's meters table names every meter of {@link MemoryMetrics} and no other. */
    @Test
    void should_list_every_meter_in_the_readme_table() throws Exception {
        String readme = java.nio.file.Files.readString(Path.of("..", "README.md"));
        String section = readme.substring(readme.indexOf("### Metrics and health"), readme.indexOf("### Spring Boot"));
        java.util.Set<String> listed = new java.util.TreeSet<>();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?m)^\\| `(agentmemory\\.[a-z.]+)` \\|").matcher(section);
        while (m.find()) {
            listed.add(m.group(1));
        }
        java.util.Set<String> meters = new java.util.TreeSet<>();
        for (java.lang.reflect.Field f : MemoryMetrics.class.getFields()) {
            meters.add((String) f.get(null));
        }
        assertThat(meters).hasSize(8);
        assertThat(listed).isEqualTo(meters);
    }

    @Test
    void should_count_store_errors_by_operation_and_not_the_turns_that_did_not_happen() {
        FaultyEventStore store = new FaultyEventStore(new InMemoryEventStore()).alone();
        try (AgentMemory memory = AgentMemory.builder().store(store)
                .metrics(MemoryMetrics.micrometer(registry)).build()) {
            Assistant assistant = assistant(memory, new ScriptedChatModel(ScriptedChatModel.text("Hi.")));
            store.refuseNextAppends(1);

            assertThatThrownBy(() -> assistant.chat(ALICE, "Hello")).isNotNull();

            String all = dump(registry);
            assertThat(count(MemoryMetrics.STORE_ERRORS, "operation", "append", "exception", "MemoryException"))
                    .as(all).isEqualTo(1);
            assertThat(registry.find(MemoryMetrics.WRITES).counters()).as(all).isEmpty();
        }
    }

    @Test
    void should_gauge_the_index_backlog_and_its_age_by_the_engine_clock() {
        TestClock clock = TestClock.start();
        dev.agentmemory.testing.langchain4j.StuckIndexerEmbeddingModel model = new dev.agentmemory.testing.langchain4j.StuckIndexerEmbeddingModel(60);
        try (AgentMemory memory = AgentMemory.builder().h2File(dir.resolve("m")).embeddingModel(model)
                .engineSettings(e -> e.clock(clock)).metrics(MemoryMetrics.micrometer(registry)).build()) {
            assertThat(meter(MemoryMetrics.INDEX_PENDING).gauge().value()).isZero();
            assertThat(meter(MemoryMetrics.INDEX_LAG).timeGauge().value(TimeUnit.SECONDS)).isZero();

            memory.chatMemoryStore().updateMessages(ALICE, List.of(UserMessage.from("Hello there"),
                    AiMessage.from("Hi.")));
            clock.advance(Duration.ofSeconds(7));

            assertThat(meter(MemoryMetrics.INDEX_PENDING).gauge().value()).as("two messages wait").isEqualTo(2);
            assertThat(meter(MemoryMetrics.INDEX_LAG).timeGauge().value(TimeUnit.SECONDS)).isEqualTo(7);

            model.release();
            memory.awaitIndexed();
            assertThat(meter(MemoryMetrics.INDEX_PENDING).gauge().value()).isZero();
            assertThat(meter(MemoryMetrics.INDEX_LAG).timeGauge().value(TimeUnit.SECONDS)).isZero();
        } finally {
            model.release();
        }
        assertThat(registry.find(MemoryMetrics.INDEX_PENDING).gauge()).as("removed on close").isNull();
    }

    @Test
    void should_count_what_one_instance_catches_up_from_another_and_not_as_its_own_writes() {
        InMemoryEventStore shared = new InMemoryEventStore();
        MeterRegistry other = new SimpleMeterRegistry();
        try (AgentMemory first = AgentMemory.builder().store(shared).metrics(MemoryMetrics.micrometer(registry)).build();
             AgentMemory second = AgentMemory.builder().store(shared).metrics(MemoryMetrics.micrometer(other)).build()) {
            second.engine().admin().sync(second.caller(ALICE)); // the second instance serves alice too
            assistant(first, remember("green", GREEN)).chat(ALICE, GREEN);
            int written = first.engine().admin().log(first.caller(ALICE)).size();

            second.engine().admin().sync(second.caller(ALICE));

            assertThat(other.get(MemoryMetrics.CATCH_UP_EVENTS).counter().count()).as(dump(other)).isEqualTo(written);
            assertThat(other.find(MemoryMetrics.WRITES).counters()).as("the first instance's write, not this one's")
                    .isEmpty();
            assertThat(count(MemoryMetrics.WRITES, "outcome", "accepted")).isEqualTo(1);
            assertThat(registry.find(MemoryMetrics.CATCH_UP_EVENTS).counter()).isNull();

            second.chatMemoryStore().updateMessages(new SessionRef("acme", "alice", "s2"), List.of(UserMessage.from("Hello again")));
            first.engine().admin().sync(first.caller(ALICE));
            assertThat(count(MemoryMetrics.CATCH_UP_EVENTS)).as(dump(registry)).isEqualTo(1);
            assertThat(other.get(MemoryMetrics.CATCH_UP_EVENTS).counter().count()).as("its own append is not caught up")
                    .isEqualTo(written);
        }
    }
}

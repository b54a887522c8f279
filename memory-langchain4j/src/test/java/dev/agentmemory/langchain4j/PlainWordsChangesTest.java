package dev.agentmemory.langchain4j;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.core.MemoryRecord.Status;
import dev.agentmemory.langchain4j.framing.FramedItem;
import dev.agentmemory.testing.TestClock;
import dev.agentmemory.testing.langchain4j.ScriptedChatModel;
import dev.agentmemory.testing.langchain4j.SharedEmbeddingModel;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 23, item 3: a change said in plain words, with no tool call and no key written by the
 * model ("I work at Acme." on day 1, "I started at Globex in March." on day 30), becomes a new
 * version of {@code user.employer}; the request of a later question shows Globex current and the
 * Acme message {@code superseded} with {@code superseded-by}, before and after a restart, in
 * English and Chinese. Before the rules, both messages were framed {@code past} and no record
 * existed.
 */
class PlainWordsChangesTest {

    interface Assistant {
        String chat(@MemoryId SessionRef session, @dev.langchain4j.service.UserMessage String text);
    }

    private static final Instant DAY_1 = Instant.parse("2025-01-06T09:00:00Z");

    @TempDir
    Path dir;

    private static SessionRef session(String name) {
        return new SessionRef("acme", "carla", name);
    }

    private static AgentMemory open(Path db, TestClock clock) {
        return AgentMemory.builder().h2File(db).engineSettings(e -> e.clock(clock)).embeddingModel(SharedEmbeddingModel.get())
                .resultsPerLayer(20, 10, 10).build();
    }

    private static FramedItem only(List<FramedItem> items, String layer, String text) {
        List<FramedItem> found = items.stream().filter(i -> layer.equals(i.extra().get(FramedItem.LAYER))
                && i.text().contains(text)).toList();
        assertThat(found).as("%s items saying %s in %s", layer, text, items).hasSize(1);
        return found.get(0);
    }

    /** The request of the question shows the new employer current and the old statement superseded by it. */
    private static void assertFramedAsChanged(AgentMemory memory, ChatRequest request, String key, String oldSaid,
                                              String newSaid, String oldValue, String newValue, boolean oldShown) {
        List<FramedItem> items = FramedRequests.items(memory, request);
        FramedItem current = only(items, "persistent", key);
        assertThat(current.text()).isEqualTo(key + " = " + newValue);
        assertThat(current.status()).isEqualTo("current");
        assertThat(current.trust()).isEqualTo(dev.agentmemory.core.MemoryRecord.Trust.TRUSTED);
        List<FramedItem> olds = items.stream().filter(i -> i.text().contains(oldSaid)).toList();
        if (oldShown) {
            assertThat(olds).as("the older statement in %s", items).hasSize(1);
        }
        assertThat(olds).allSatisfy(old -> {
            assertThat(old.status()).isEqualTo("superseded");
            assertThat(old.extra()).containsEntry(FramedItem.SUPERSEDED_BY, key + "@v2");
        });
        assertThat(only(items, "episodic", newSaid).status()).isEqualTo("past");
        // nothing framed says the old value holds (a message naming both, "not Priya", states the new one)
        assertThat(items).filteredOn(i -> i.text().contains(oldValue) && !i.text().contains(newValue))
                .allSatisfy(i -> assertThat(i.status()).isEqualTo("superseded"));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "English|user.employer|I work at Acme.|I started at Globex in March.|Where do I work now?|Acme|Globex|true",
            "Chinese|user.employer|我在阿里巴巴工作。|我跳槽到腾讯了。|我现在在哪里工作？|阿里巴巴|腾讯|true",
            // the recall leaves the older statement out of these blocks (not read further here);
            // whenever it is shown it must be superseded
            "English billing|org.billing.contact|Our billing contact is Priya.|Send invoices to Tom from now on, not Priya."
                    + "|Who is our billing contact?|Priya|Tom|false",
            "Chinese billing|org.billing.contact|我们的账单联系人是张三。|以后发票寄给李四，不要寄给张三。|我们的账单联系人是谁？|张三|李四|false"})
    void should_frame_the_older_statement_superseded_by_the_newer_across_days_and_a_restart(String language,
            String keyPath, String day1, String day30, String question, String oldValue, String newValue, boolean oldShown) {
        MemoryKey key = MemoryKey.of(keyPath);
        Path db = dir.resolve("memory-" + language.replace(' ', '-'));
        TestClock clock = new TestClock(DAY_1);
        Caller caller = session("s1").caller("assistant");
        try (AssistantProcess first = new AssistantProcess(open(db, clock))) {
            // given: day 1 and day 30, each said in a session of its own, no tool, no key from the model
            first.turn(session("s1"), day1);
            clock.advance(Duration.ofDays(29));
            first.turn(session("s2"), day30);

            // when: day 31, a question in a third session
            clock.advance(Duration.ofDays(1));
            ChatRequest request = first.turn(session("s3"), question);

            // then: the whole request shows the new value current, the old statement superseded by it
            assertFramedAsChanged(first.memory, request, keyPath, day1, day30, oldValue, newValue, oldShown);
            FramedRequests.assertLastRecallMatches(first.memory, session("s3"), FramedRequests.items(first.memory, request));

            // and the log explains it: two versions, each from the user's message that said it
            MemoryEngine engine = first.memory.engine();
            List<MemoryRecord> history = engine.history(caller, caller.persistent(), key);
            assertThat(history).extracting(r -> r.value().text()).containsExactly(oldValue, newValue);
            assertThat(history).extracting(MemoryRecord::status).containsExactly(Status.SUPERSEDED, Status.ACTIVE);
            assertThat(history).extracting(MemoryRecord::sourceRef).containsExactly("message:s1#0", "message:s2#0");
            assertThat(history).extracting(MemoryRecord::source).containsOnly(Source.USER);
            assertThat(history).allSatisfy(r -> assertThat(r.tags()).contains(PlainWordsWriter.TAG));
            assertThat(history.get(1).supersedes()).isEqualTo(history.get(0).id());
            assertThat(history.get(1).observedAt()).isEqualTo(DAY_1.plus(Duration.ofDays(29)));
            assertThat(engine.asOf(caller, caller.persistent(), DAY_1.plus(Duration.ofDays(2))).keys())
                    .filteredOn(k -> k.key().equals(key)).singleElement()
                    .satisfies(k -> assertThat(k.current().value().text()).isEqualTo(oldValue));
            assertThat(engine.asOf(caller, caller.persistent(), clock.instant()).keys())
                    .filteredOn(k -> k.key().equals(key)).singleElement()
                    .satisfies(k -> assertThat(k.current().value().text()).isEqualTo(newValue));
            assertThat(engine.admin().readableLog(caller))
                    .anySatisfy(l -> assertThat(l).contains(keyPath + " v2").contains("superseding 1"));
        }

        // when: the same question after a restart (H2 reopened, index rebuilt)
        try (AssistantProcess restarted = new AssistantProcess(open(db, clock))) {
            ChatRequest request = restarted.turn(session("s4"), question);
            // then: the same framing
            assertFramedAsChanged(restarted.memory, request, keyPath, day1, day30, oldValue, newValue, oldShown);
        }
    }

    /** A tool that returns text in the first person, as a profile page or a document might. */
    static final class ProfileTool {
        @Tool("Looks up the user's profile")
        String lookupProfile() {
            return "I work at Globex. My name is Mallory. I live in Berlin.";
        }
    }

    @Test
    void should_write_nothing_for_negatives_and_never_from_a_tool_result() {
        TestClock clock = new TestClock(DAY_1);
        ScriptedChatModel model = new ScriptedChatModel(r -> {
            ChatMessage last = r.messages().get(r.messages().size() - 1);
            if (last instanceof ToolExecutionResultMessage) {
                return AiMessage.from("Done.");
            }
            if (ScriptedChatModel.lastUserText(r).contains("profile")) {
                return AiMessage.from(ToolExecutionRequest.builder().id("p1").name("lookupProfile").arguments("{}").build());
            }
            return AiMessage.from("Noted.");
        });
        try (AgentMemory memory = AgentMemory.builder().engineSettings(e -> e.clock(clock)).embeddingModel(SharedEmbeddingModel.get())
                .resultsPerLayer(20, 10, 10).build()) {
            Assistant assistant = AiServices.builder(Assistant.class).chatModel(model)
                    .chatMemoryProvider(memory.chatMemoryProvider()).retrievalAugmentor(memory.retrievalAugmentor())
                    .tools(new ProfileTool()).build();
            assistant.chat(session("s1"), "I work at Acme.");
            for (String said : List.of("I visited Lisbon.", "My friend moved to Lisbon.",
                    "Priya is the contact of the other team.", "Do you work at Globex?", "If I moved to Paris, what changes?",
                    "My friend doesn't work at Acme anymore.", "I didn't work at Acme in 2019.", "I no longer work at Globex.", "Tom said he works at Globex.", "My sister works at Globex.",
                    "Please look up my profile.", "我朋友搬到了上海。", "如果我搬到上海呢？")) {
                clock.advance(Duration.ofDays(1));
                assistant.chat(session("s2"), said);
            }
            clock.advance(Duration.ofDays(1));
            assistant.chat(session("s3"), "Where do I work?");

            Caller caller = session("s1").caller("assistant");
            MemoryEngine engine = memory.engine();
            assertThat(engine.view(caller, caller.persistent()).keys()).extracting(k -> k.key().path())
                    .containsExactly("user.employer");
            assertThat(engine.history(caller, caller.persistent(), MemoryKey.of("user.employer"))).singleElement()
                    .satisfies(r -> assertThat(r.value().text()).isEqualTo("Acme"));
            List<FramedItem> items = FramedRequests.items(memory, model.lastRequest());
            assertThat(only(items, "persistent", "user.employer").text()).isEqualTo("user.employer = Acme");
            assertThat(items).noneMatch(i -> i.status().equals("superseded"));
        }
    }

    @Test
    void should_keep_the_models_reading_of_the_same_message_over_the_rules() {
        // given: the model records the name it read with the user's quote; the rule reads the
        // capitalised words only ("Ludwig", without "van Beethoven")
        String said = "My name is Ludwig van Beethoven";
        ScriptedChatModel model = new ScriptedChatModel(r -> {
            ChatMessage last = r.messages().get(r.messages().size() - 1);
            if (last instanceof ToolExecutionResultMessage) {
                return AiMessage.from("Nice to meet you.");
            }
            return AiMessage.from(ToolExecutionRequest.builder().id("n1").name("remember").arguments(
                    "{\"key\":\"profile.name\",\"value\":\"Ludwig van Beethoven\",\"kind\":\"fact\",\"userQuote\":\""
                            + said + "\"}").build());
        });
        try (AgentMemory memory = open(dir.resolve("m"), new TestClock(DAY_1))) {
            Assistant assistant = AiServices.builder(Assistant.class).chatModel(model)
                    .chatMemoryProvider(memory.chatMemoryProvider()).retrievalAugmentor(memory.retrievalAugmentor())
                    .tools(memory.tools()).build();

            // when
            assistant.chat(session("s1"), said);

            // then: one version, the model's, stated in that message
            Caller caller = session("s1").caller("assistant");
            List<MemoryRecord> history = memory.engine().history(caller, caller.persistent(), MemoryKey.of("profile.name"));
            assertThat(history).singleElement().satisfies(r -> {
                assertThat(r.value().text()).isEqualTo("Ludwig van Beethoven");
                assertThat(r.sourceRef()).isEqualTo("message:s1#0");
            });
            assertThat(memory.engine().view(caller, caller.persistent()).keys()).extracting(k -> k.key().path())
                    .containsExactly("profile.name");
        }
    }
}

package dev.agentmemory.langchain4j;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.core.event.StoredMessage;
import dev.agentmemory.testing.langchain4j.ScriptedChatModel;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Real AiServices over AgentMemory with a scripted offline model and H2 files. */
class AiServicesMemoryTest {

    interface Assistant {
        String chat(@MemoryId SessionRef session, @dev.langchain4j.service.UserMessage String text);
    }

    private static final SessionRef ALICE = new SessionRef("acme", "alice", "s1");
    private static final SessionRef BOB = new SessionRef("acme", "bob", "s1");

    @TempDir
    Path dir;

    private static Assistant assistant(AgentMemory memory, ScriptedChatModel model, Object... tools) {
        AiServices<Assistant> b = AiServices.builder(Assistant.class)
                .chatModel(model)
                .chatMemoryProvider(memory.chatMemoryProvider())
                .retrievalAugmentor(memory.retrievalAugmentor());
        if (tools.length > 0) {
            b.tools(tools);
        }
        return b.build();
    }

    private static void prefer(AgentMemory memory, SessionRef who, String key, String value) {
        Caller caller = memory.caller(who);
        memory.engine().write(caller, Proposal.set(caller.persistent(), key, value)
                .kind(Kind.PREFERENCE).source(Source.USER, "msg-1").build());
    }

    @Test
    void should_show_the_model_framed_memories_and_store_the_user_text_without_them() {
        try (AgentMemory memory = AgentMemory.builder().h2File(dir.resolve("m")).build()) {
            // given
            prefer(memory, ALICE, "reply.language", "Chinese");
            ScriptedChatModel model = ScriptedChatModel.echo(text -> memory.framer().stripFrames(text));
            Assistant assistant = assistant(memory, model);

            // when
            String answer = assistant.chat(ALICE, "What colour was my order?");

            // then: the model saw one framed block holding the preference, in front of the question
            String prompt = ScriptedChatModel.lastUserText(model.lastRequest());
            assertThat(memory.framer().parse(prompt)).hasSize(1);
            assertThat(memory.framer().parse(prompt).get(0).items()).extracting(i -> i.text())
                    .containsExactly("reply.language = Chinese");
            assertThat(memory.framer().stripFrames(prompt)).isEqualTo("What colour was my order?");
            assertThat(answer).isEqualTo("echo: What colour was my order?");
            // and the chat memory holds the question without the block (storeRetrievedContentInChatMemory is true)
            assertThat(memory.chatMemoryStore().getMessages(ALICE)).containsExactly(
                    UserMessage.from("What colour was my order?"), AiMessage.from("echo: What colour was my order?"));
            // and we can ask which memories that answer used
            Recall recall = memory.lastRecall(ALICE).orElseThrow();
            assertThat(recall.used()).hasSize(1);
            assertThat(recall.used().get(0).textSegment().metadata().toMap())
                    .containsEntry(MemoryContent.KEY, "reply.language")
                    .containsEntry(MemoryContent.KIND, "preference")
                    .containsEntry(MemoryContent.SOURCE, "user:msg-1")
                    .containsEntry(MemoryContent.TRUST, "trusted")
                    .containsEntry(MemoryContent.STATUS, "current")
                    .containsEntry(MemoryContent.LAYER, "persistent")
                    .containsEntry(MemoryContent.VERSION, 1L)
                    .containsKeys(MemoryContent.OBSERVED_AT, MemoryContent.WHY, MemoryContent.SCORE, MemoryContent.ID);
        }
    }

    @Test
    void should_continue_the_conversation_when_restarted_on_the_same_file() {
        Path db = dir.resolve("m");
        try (AgentMemory memory = AgentMemory.builder().h2File(db).build()) {
            assistant(memory, ScriptedChatModel.echo(text -> memory.framer().stripFrames(text))).chat(ALICE, "my name is Alice");
        }
        try (AgentMemory memory = AgentMemory.builder().h2File(db).build()) {
            ScriptedChatModel model = ScriptedChatModel.echo(text -> memory.framer().stripFrames(text));
            assistant(memory, model).chat(ALICE, "what is my name?");

            List<ChatMessage> seen = model.lastRequest().messages();
            assertThat(seen).hasSize(3);
            assertThat(seen.subList(0, 2)).containsExactly(UserMessage.from("my name is Alice"),
                    AiMessage.from("echo: my name is Alice"));
        }
    }

    @Test
    void should_never_show_one_user_the_memories_of_another() {
        try (AgentMemory memory = AgentMemory.builder().h2File(dir.resolve("m")).build()) {
            prefer(memory, ALICE, "reply.language", "Chinese");
            prefer(memory, BOB, "reply.language", "French");
            ScriptedChatModel model = ScriptedChatModel.echo(text -> memory.framer().stripFrames(text));
            Assistant assistant = assistant(memory, model);

            assistant.chat(ALICE, "my secret is 1234, reply language?");
            assistant.chat(BOB, "reply language?");

            String bobPrompt = ScriptedChatModel.lastUserText(model.lastRequest());
            assertThat(bobPrompt).contains("French").doesNotContain("Chinese").doesNotContain("secret is 1234");
            assertThat(model.lastRequest().messages()).hasSize(1);
            assertThat(memory.lastRecall(BOB).orElseThrow().used()).allSatisfy(c ->
                    assertThat(c.textSegment().metadata().getString(MemoryContent.SCOPE)).startsWith("acme/bob/"));
        }
    }

    static final class OrderTools {
        final List<String> calls = new ArrayList<>();

        @Tool("Looks up the status of an order")
        String orderStatus(String orderId) {
            calls.add(orderId);
            return "order " + orderId + " shipped on Tuesday";
        }
    }

    @Test
    void should_persist_a_tool_round_trip_and_reload_it() {
        Path db = dir.resolve("m");
        ToolExecutionRequest call = ToolExecutionRequest.builder().id("call-1").name("orderStatus")
                .arguments("{\"orderId\":\"20241015\"}").build();
        List<ChatMessage> afterTurn;
        try (AgentMemory memory = AgentMemory.builder().h2File(db).build()) {
            ScriptedChatModel model = new ScriptedChatModel((ChatRequest r) -> {
                ChatMessage last = r.messages().get(r.messages().size() - 1);
                return last instanceof ToolExecutionResultMessage result
                        ? AiMessage.from("Your order: " + result.text())
                        : AiMessage.from(List.of(call));
            });
            OrderTools tools = new OrderTools();
            String answer = assistant(memory, model, tools).chat(ALICE, "where is order 20241015?");

            assertThat(tools.calls).containsExactly("20241015");
            assertThat(answer).isEqualTo("Your order: order 20241015 shipped on Tuesday");
            afterTurn = memory.chatMemoryStore().getMessages(ALICE);
        }
        try (AgentMemory memory = AgentMemory.builder().h2File(db).build()) {
            List<ChatMessage> reloaded = memory.chatMemoryStore().getMessages(ALICE);

            assertThat(reloaded).isEqualTo(afterTurn);
            assertThat(reloaded).hasSize(4);
            assertThat(reloaded.subList(0, 2)).containsExactly(UserMessage.from("where is order 20241015?"),
                    AiMessage.from(List.of(call)));
            ToolExecutionResultMessage result = (ToolExecutionResultMessage) reloaded.get(2);
            assertThat(result.id()).isEqualTo("call-1");
            assertThat(result.text()).isEqualTo("order 20241015 shipped on Tuesday");
            assertThat(reloaded.get(3)).isEqualTo(AiMessage.from("Your order: order 20241015 shipped on Tuesday"));
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void should_keep_every_message_when_turns_on_one_memory_id_run_concurrently() throws Exception {
        try (AgentMemory memory = AgentMemory.builder().h2File(dir.resolve("m")).windowSize(6).build()) {
            Assistant assistant = assistant(memory, ScriptedChatModel.echo(text -> memory.framer().stripFrames(text)));
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                List<Future<String>> answers = new ArrayList<>();
                for (int i = 0; i < 24; i++) {
                    String text = "message " + i;
                    answers.add(pool.submit(() -> assistant.chat(ALICE, text)));
                }
                for (int i = 0; i < answers.size(); i++) {
                    assertThat(answers.get(i).get(30, TimeUnit.SECONDS)).isEqualTo("echo: message " + i);
                }
            } finally {
                pool.shutdown();
            }

            List<String> history = memory.engine().messages().history(memory.caller(ALICE), "s1").values().stream()
                    .map(StoredMessage::text).toList();
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < 24; i++) {
                expected.add("message " + i);
                expected.add("echo: message " + i);
            }
            assertThat(history).containsAll(expected);
            assertThat(memory.chatMemoryStore().getMessages(ALICE)).hasSizeLessThanOrEqualTo(6);
            assertThat(memory.engine().admin().audit(memory.caller(ALICE), java.time.Duration.ofDays(1)).consistent()).isTrue();
        }
    }
}

package dev.agentmemory.langchain4j;

import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.langchain4j.ReadmeServices.Assistant;
import dev.agentmemory.langchain4j.ReadmeServices.Chat;
import dev.agentmemory.testing.langchain4j.ScriptedChatModel;
import dev.agentmemory.testing.langchain4j.SharedEmbeddingModel;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.tool.ToolErrorHandlerResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The code of README.md, compiled and run: each README block is a tagged region here (see
 * {@link ReadmeSnippetsTest}, which fails when the README differs).
 */
class ReadmeExamplesTest {

    @TempDir
    Path dir;

    @Test
    void use_1_register_it_in_an_ai_services_builder() {
        Path dataDir = dir;
        EmbeddingModel embeddingModel = SharedEmbeddingModel.get(); // README: new AllMiniLmL6V2EmbeddingModel()
        ScriptedChatModel scripted = new ScriptedChatModel(r -> AiMessage.from("echo: "
                + dev.agentmemory.langchain4j.framing.MemoryFrameParser.stripFrames(ScriptedChatModel.lastUserText(r))));
        ChatModel chatModel = scripted; // README: any ChatModel, e.g. OpenAiChatModel

        // tag::register[]
        AgentMemory memory = AgentMemory.builder()
                .h2File(dataDir.resolve("memory"))          // or .store(EventStore) / .engine(MemoryEngine)
                .embeddingModel(embeddingModel)              // episodic recall; embeddings made once, at write time
                .build();

        Assistant assistant = AiServices.builder(Assistant.class)
                .chatModel(chatModel)
                .chatMemoryProvider(memory.chatMemoryProvider())   // window over the full, persisted history
                .retrievalAugmentor(memory.retrievalAugmentor())   // state, persistent, episodic; framed as data
                .tools(memory.tools())                             // remember, update state, forget, tasks
                .build();

        SessionRef session = new SessionRef("acme", "alice", "chat-1");   // tenant / user / session
        String answer = assistant.chat(session, "Hi, I'm Alice.");
        // end::register[]

        assertThat(answer).isEqualTo("echo: Hi, I'm Alice.");
        assertThat(memory.chatMemoryStore().getMessages(session)).first().isEqualTo(UserMessage.from("Hi, I'm Alice."));
        memory.close();
    }

    @Test
    void use_2_swap_it_in_for_the_default_chat_memory() {
        try (AgentMemory memory = AgentMemory.builder().h2File(dir.resolve("memory")).build()) {
            // tag::chat-memory-store[]
            ChatMemory chatMemory = MessageWindowChatMemory.builder()
                    .id("acme/alice/chat-1")                        // "tenant/user/session", a SessionRef, or any id
                    .maxMessages(20)
                    .chatMemoryStore(memory.chatMemoryStore())      // instead of InMemoryChatMemoryStore
                    .build();
            chatMemory.add(UserMessage.from("Where is my order?"));
            // end::chat-memory-store[]

            assertThat(chatMemory.messages()).containsExactly(UserMessage.from("Where is my order?"));
        }
    }

    @Test
    void use_2_migrating_from_in_memory_chat_memory_store() {
        Path dataDir = dir;
        ScriptedChatModel scripted = new ScriptedChatModel(r -> AiMessage.from("echo: " + ScriptedChatModel.lastUserText(r)));
        ChatModel chatModel = scripted;

        // tag::migrating[]
        AgentMemory memory = AgentMemory.builder().h2File(dataDir.resolve("memory")).build();
        Chat chat = AiServices.builder(Chat.class)
                .chatModel(chatModel)
                .chatMemoryProvider(id -> MessageWindowChatMemory.builder()
                        .id(id)
                        .maxMessages(20)
                        .chatMemoryStore(memory.chatMemoryStore())     // was: new InMemoryChatMemoryStore()
                        .build())
                .build();
        chat.chat(42, "Hello");
        // end::migrating[]

        assertThat(chat.chat(42, "again")).isEqualTo("echo: again");
        assertThat(scripted.lastRequest().messages()).containsExactly(
                UserMessage.from("Hello"), AiMessage.from("echo: Hello"),
                UserMessage.from("again"));
        assertThat(memory.session(42)).isEqualTo(new SessionRef("default", "i-42", "i-42"));
        memory.close();
    }

    @Test
    void use_3_ask_which_memories_an_answer_used() {
        try (AgentMemory memory = AgentMemory.builder().build()) {
            SessionRef session = new SessionRef("acme", "alice", "chat-1");
            var caller = memory.caller(session);
            memory.engine().write(caller, Proposal.set(caller.persistent(), "reply.language", "Chinese")
                    .kind(Kind.PREFERENCE).source(Source.USER).build());
            ScriptedChatModel model = ScriptedChatModel.echo(text -> memory.framer().stripFrames(text));
            Assistant assistant = AiServices.builder(Assistant.class).chatModel(model)
                    .chatMemoryProvider(memory.chatMemoryProvider())
                    .retrievalAugmentor(memory.retrievalAugmentor()).build();
            assistant.chat(session, "Which language do I like?");

            // tag::last-recall[]
            Recall recall = memory.lastRecall(session).orElseThrow();
            for (var content : recall.used()) {
                var md = content.textSegment().metadata();
                System.out.println(md.getString(MemoryContent.KEY) + " v" + md.getLong(MemoryContent.VERSION)
                        + " (" + md.getString(MemoryContent.KIND) + ", " + md.getString(MemoryContent.TRUST) + "): "
                        + md.getString(MemoryContent.WHY));
            }
            // end::last-recall[]

            assertThat(recall.used()).extracting(c -> c.textSegment().metadata().getString(MemoryContent.KEY))
                    .containsExactly("reply.language");
        }
    }

    @Test
    void use_4_configure_it_from_a_file() throws Exception {
        Path configFile = Path.of(ReadmeExamplesTest.class.getResource("/readme/agent-memory.properties").toURI());
        // tag::config-builder[]
        AgentMemory memory = AgentMemory.builder()
                .h2File(dir.resolve("memory"))
                .configFile(configFile)          // a bad value fails here, naming the setting
                .build();
        // end::config-builder[]
        try (memory) {
            assertThat(memory.agent()).isEqualTo("assistant");
        }
    }

    @Test
    void use_2_tool_errors_the_model_can_correct() {
        try (AgentMemory memory = AgentMemory.builder().build()) {
            SessionRef session = new SessionRef("acme", "alice", "chat-1");
            ScriptedChatModel chatModel = new ScriptedChatModel("scripted", false,
                    ScriptedChatModel.call("noSuchTool", "{}"), ScriptedChatModel.echoToolResults());
            Assistant assistant = AiServices.builder(Assistant.class)
                    .chatModel(chatModel)
                    .chatMemoryProvider(memory.chatMemoryProvider())
                    .tools(memory.tools())
                    // tag::tool-errors[]
                    .toolArgumentsErrorHandler((error, ctx) -> ToolErrorHandlerResult.text(
                            "Error: invalid arguments for " + ctx.toolExecutionRequest().name() + ": " + error.getMessage()))
                    .hallucinatedToolNameStrategy(request -> ToolExecutionResultMessage.from(request,
                            "Error: there is no tool named " + request.name()))
                    .toolExecutionErrorHandler((error, ctx) -> ToolErrorHandlerResult.text("Error: " + error.getMessage()))
                    // end::tool-errors[]
                    .build();

            assertThat(assistant.chat(session, "Do something")).isEqualTo("Error: there is no tool named noSuchTool");
        }
    }
}

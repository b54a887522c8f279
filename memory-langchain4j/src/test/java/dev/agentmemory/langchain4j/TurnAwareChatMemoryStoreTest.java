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
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

class TurnAwareChatMemoryStoreTest {

    interface Assistant {
        String chat(@MemoryId SessionRef session, @dev.langchain4j.service.UserMessage String text);
    }

    static class Clock {
        @Tool("the time")
        String now() {
            return "10:00";
        }
    }

    private static final SessionRef ALICE = new SessionRef("acme", "alice", "s1");

    @TempDir
    Path dir;

    @Test
    void should_keep_the_memory_block_in_every_round_of_a_tool_loop_without_persisting_it() {
        try (AgentMemory memory = AgentMemory.builder().h2File(dir.resolve("m")).build()) {
            // given a preference and a model that calls a tool before answering
            Caller caller = memory.caller(ALICE);
            memory.engine().write(caller, Proposal.set(caller.persistent(), "reply.language", "Chinese")
                    .kind(Kind.PREFERENCE).source(Source.USER, "msg-1").build());
            List<String> userTextPerRound = new ArrayList<>();
            AtomicInteger round = new AtomicInteger();
            ScriptedChatModel model = new ScriptedChatModel(r -> {
                userTextPerRound.add(ScriptedChatModel.lastUserText(r));
                return round.getAndIncrement() == 0
                        ? AiMessage.from(ToolExecutionRequest.builder().id("c1").name("now").arguments("{}").build())
                        : AiMessage.from("it is 10:00");
            });
            Assistant assistant = AiServices.builder(Assistant.class).chatModel(model)
                    .chatMemoryProvider(memory.chatMemoryProvider())
                    .retrievalAugmentor(memory.retrievalAugmentor())
                    .tools(new Clock()).build();

            // when
            assistant.chat(ALICE, "what time is it?");

            // then both rounds saw the framed preference
            assertThat(userTextPerRound).hasSize(2);
            assertThat(userTextPerRound).allSatisfy(text -> {
                assertThat(memory.framer().parse(text)).hasSize(1);
                assertThat(memory.framer().stripFrames(text)).isEqualTo("what time is it?");
            });
            // and nothing framed was stored, nor is served once the turn is over
            List<StoredMessage> stored = memory.engine().messages().window(caller, "s1");
            assertThat(stored).extracting(StoredMessage::text).noneMatch(t -> t != null && t.contains("reply.language"));
            List<ChatMessage> after = memory.chatMemoryStore().getMessages(ALICE);
            assertThat(after.get(0)).isEqualTo(UserMessage.from("what time is it?"));
            assertThat(after).hasSize(4);
        }
    }

    @Test
    void should_summarize_messages_that_left_the_window_when_a_summarizer_is_configured() {
        ScriptedChatModel summaryModel = new ScriptedChatModel(r -> AiMessage.from("Alice asked about earbuds."));
        try (AgentMemory memory = AgentMemory.builder().h2File(dir.resolve("m")).windowSize(2)
                .summarizer(summaryModel, 2).build()) {
            ScriptedChatModel model = ScriptedChatModel.echo(text -> memory.framer().stripFrames(text));
            Assistant assistant = AiServices.builder(Assistant.class).chatModel(model)
                    .chatMemoryProvider(memory.chatMemoryProvider()).build();

            assistant.chat(ALICE, "my earbuds are broken");
            assistant.chat(ALICE, "the right one is silent");

            assertThat(memory.summarizer().orElseThrow().summaries(ALICE)).isNotEmpty();
        }
    }
}

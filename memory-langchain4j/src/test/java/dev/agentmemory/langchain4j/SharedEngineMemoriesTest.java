package dev.agentmemory.langchain4j;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ForgetMode;
import dev.agentmemory.core.ForgetTarget;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.testing.langchain4j.ScriptedChatModel;
import dev.agentmemory.testing.langchain4j.SharedEmbeddingModel;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolMemoryId;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 12, item 2: any number of {@link AgentMemory} objects over one engine behave as one store,
 * and closing one leaves the others and the engine working.
 */
class SharedEngineMemoriesTest {

    interface Assistant {
        String chat(@MemoryId Object session, @dev.langchain4j.service.UserMessage String text);
    }

    /** A tool that, while its call is pending in the chat memory, runs something else. */
    public static final class Peek {
        private final Consumer<Object> during;

        Peek(Consumer<Object> during) {
            this.during = during;
        }

        @Tool("peeks")
        public String peek(@ToolMemoryId Object session) {
            during.accept(session);
            return "peeked";
        }
    }

    private static final AtomicInteger CALLS = new AtomicInteger();

    /** Asks for the peek tool once per turn, then answers with the tool's result. */
    private static ScriptedChatModel toolLoop() {
        return new ScriptedChatModel(r -> {
            ChatMessage last = r.messages().get(r.messages().size() - 1);
            if (last instanceof ToolExecutionResultMessage result) {
                return AiMessage.from("done: " + result.text());
            }
            return AiMessage.from(List.of(ToolExecutionRequest.builder().id("call-" + CALLS.incrementAndGet())
                    .name("peek").arguments("{}").build()));
        });
    }

    private static Assistant assistant(AgentMemory memory, ScriptedChatModel model, Consumer<Object> during) {
        return AiServices.builder(Assistant.class).chatModel(model)
                .chatMemoryProvider(memory.chatMemoryProvider())
                .retrievalAugmentor(memory.retrievalAugmentor())
                .tools(new Peek(during), memory.tools())
                .build();
    }

    private static long count(List<String> names, String name) {
        return names.stream().filter(name::equals).count();
    }

    private static List<ChatMessage> plain(AgentMemory memory, List<ChatMessage> messages) {
        List<ChatMessage> out = new ArrayList<>();
        for (ChatMessage m : messages) {
            out.add(m instanceof UserMessage u && u.hasSingleText()
                    ? UserMessage.from(memory.framer().stripFrames(u.singleText())) : m);
        }
        return out;
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void should_keep_a_pending_tool_call_and_keep_working_when_other_memories_on_the_engine_read_and_close() {
        MemoryEngine engine = MemoryEngine.builder().build();
        SessionRef alice = new SessionRef("acme", "alice", "s1");
        SessionRef bob = new SessionRef("acme", "bob", "t1");
        try (AgentMemory m1 = AgentMemory.builder().engine(engine).build();
             AgentMemory m2 = AgentMemory.builder().engine(engine).embeddingModel(SharedEmbeddingModel.get()).build();
             AgentMemory m3 = AgentMemory.builder().engine(engine).build()) {
            assertThat(count(engine.admin().derivedDataNames(), "chat-cache")).isEqualTo(3);
            assertThat(count(engine.admin().derivedDataNames(), "embeddings")).isEqualTo(1);

            List<List<ChatMessage>> seenDuringCall = Collections.synchronizedList(new ArrayList<>());
            ScriptedChatModel model3 = toolLoop();
            Assistant a3 = assistant(m3, model3, session -> seenDuringCall.add(m1.chatMemoryStore().getMessages(alice)));
            ScriptedChatModel model1 = toolLoop();
            AtomicBoolean once = new AtomicBoolean();
            Assistant a1 = assistant(m1, model1, session -> {
                if (once.getAndSet(true)) {
                    return;
                }
                // alice's call is pending in the shared engine: another memory reads it, runs a whole
                // tool loop of its own for bob, and a third memory closes
                seenDuringCall.add(m2.chatMemoryStore().getMessages(alice));
                assertThat(a3.chat(bob, "hi")).isEqualTo("done: peeked");
                m2.close();
                seenDuringCall.add(m3.chatMemoryStore().getMessages(alice));
            });

            // when
            String answer = a1.chat(alice, "hello");

            // then: the memory running alice's loop showed her call, waiting for its result, as it
            // was added; the other memories left it out (the loop is not theirs); no read removed it
            assertThat(answer).isEqualTo("done: peeked");
            assertThat(seenDuringCall).hasSize(3);
            assertThat(plain(m1, seenDuringCall.get(0))).containsExactly(UserMessage.from("hello"));
            assertThat(plain(m1, seenDuringCall.get(1))).hasSize(2).first().isEqualTo(UserMessage.from("hello"));
            assertThat(((AiMessage) seenDuringCall.get(1).get(1)).toolExecutionRequests()).hasSize(1);
            assertThat(plain(m1, seenDuringCall.get(2))).containsExactly(UserMessage.from("hello"));
            ChatRequest second = model1.lastRequest();
            List<ChatMessage> shown = plain(m1, second.messages());
            assertThat(shown).hasSize(3);
            assertThat(shown.get(0)).isEqualTo(UserMessage.from("hello"));
            assertThat(shown.get(1)).isInstanceOf(AiMessage.class);
            assertThat(((AiMessage) shown.get(1)).hasToolExecutionRequests()).isTrue();
            assertThat(shown.get(2)).isInstanceOf(ToolExecutionResultMessage.class);
            List<ChatMessage> stored = m1.chatMemoryStore().getMessages(alice);
            assertThat(stored).hasSize(4).last().isEqualTo(AiMessage.from("done: peeked"));
            assertThat(m3.chatMemoryStore().getMessages(alice)).isEqualTo(stored);
            assertThat(m1.chatMemoryStore().getMessages(bob)).isEqualTo(m3.chatMemoryStore().getMessages(bob))
                    .hasSize(4);

            // closing m2 removed what it registered; the engine and the other memories keep working
            assertThat(count(engine.admin().derivedDataNames(), "chat-cache")).isEqualTo(2);
            assertThat(count(engine.admin().derivedDataNames(), "embeddings")).isZero();
            assertThat(count(engine.admin().derivedDataNames(), "persistent-terms")).isEqualTo(2);

            // a turn through m3 continues alice's conversation that m1 wrote
            ScriptedChatModel plainModel = new ScriptedChatModel(r -> AiMessage.from("ok"));
            Assistant a3plain = AiServices.builder(Assistant.class).chatModel(plainModel)
                    .chatMemoryProvider(m3.chatMemoryProvider()).retrievalAugmentor(m3.retrievalAugmentor()).build();
            assertThat(a3plain.chat(alice, "still there?")).isEqualTo("ok");
            assertThat(plain(m3, plainModel.lastRequest().messages())).startsWith(stored.toArray(ChatMessage[]::new));

            // a fact written and forgotten through the engine reaches both remaining memories
            Caller caller = m1.caller(alice);
            engine.write(caller, Proposal.set(caller.persistent(), "drink", "tea").kind(Kind.PREFERENCE)
                    .source(Source.USER, "msg-1").build());
            assertThat(a1.chat(alice, "what do I drink?")).isEqualTo("done: peeked");
            String block = ((UserMessage) model1.requests().get(model1.requests().size() - 2).messages()
                    .get(model1.requests().get(model1.requests().size() - 2).messages().size() - 1)).singleText();
            assertThat(block).contains("tea");
            engine.forget(caller, ForgetTarget.key(caller.persistent(), MemoryKey.of("drink")), ForgetMode.SOFT);
            a3plain.chat(alice, "and now?");
            assertThat(ScriptedChatModel.lastUserText(plainModel.lastRequest())).doesNotContain("tea");

            m1.close();
            assertThat(count(engine.admin().derivedDataNames(), "chat-cache")).isEqualTo(1);
            assertThat(a3plain.chat(bob, "bye")).isEqualTo("ok");
            assertThat(m3.chatMemoryStore().getMessages(bob)).hasSize(6);
        }
        engine.close();
    }
}

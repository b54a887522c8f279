package dev.agentmemory.langchain4j;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.store.memory.chat.InMemoryChatMemoryStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Drives MessageWindowChatMemory over our store and over LangChain4j's InMemoryChatMemoryStore
 * with the same random sequences, and compares messages() after every step; every few steps a
 * fresh AgentMemory on the same H2 file must load the same window (with an unanswered trailing
 * tool call dropped, as documented).
 */
class ChatMemoryStoreDifferentialTest {

    @TempDir
    Path dir;

    @Test
    void should_match_the_in_memory_store_when_driven_by_random_sequences() {
        for (long seed = 1; seed <= 10; seed++) {
            run(seed, 100, seed % 3 == 0);
        }
    }

    private void run(long seed, int steps, boolean keepSystemFirst) {
        Random random = new Random(seed);
        int window = 2 + random.nextInt(9);
        Path db = dir.resolve("diff-" + seed);
        SessionRef id = new SessionRef("acme", "u" + seed, "s1");
        AgentMemory memory = AgentMemory.builder().h2File(db).build();
        try {
            ChatMemory ours = memory(id, window, keepSystemFirst, memory);
            ChatMemory reference = MessageWindowChatMemory.builder().id(id).maxMessages(window)
                    .alwaysKeepSystemMessageFirst(keepSystemFirst).chatMemoryStore(new InMemoryChatMemoryStore()).build();
            List<ToolExecutionRequest> pending = new ArrayList<>();
            int call = 0;
            for (int step = 0; step < steps; step++) {
                List<ChatMessage> next = new ArrayList<>();
                int r = random.nextInt(100);
                if (!pending.isEmpty()) {
                    next.add(ToolExecutionResultMessage.from(pending.remove(0), "result " + step + " " + random.nextInt(3)));
                } else if (r < 35) {
                    next.add(UserMessage.from("user " + random.nextInt(6)));
                } else if (r < 65) {
                    next.add(AiMessage.from("ai " + random.nextInt(6)));
                } else if (r < 75) {
                    int n = 1 + random.nextInt(2);
                    for (int t = 0; t < n; t++) {
                        pending.add(ToolExecutionRequest.builder().id("call-" + call++).name("tool" + t)
                                .arguments("{\"n\":" + random.nextInt(4) + "}").build());
                    }
                    next.add(AiMessage.from(random.nextBoolean() ? "let me check" : null, List.copyOf(pending)));
                } else if (r < 87) {
                    next.add(SystemMessage.from("system " + random.nextInt(3)));
                } else if (r < 93) {
                    ours.clear();
                    reference.clear();
                    pending.clear();
                } else {
                    next.add(UserMessage.from("user " + step, "caller-" + random.nextInt(2)));
                }
                for (ChatMessage m : next) {
                    ours.add(m);
                    reference.add(m);
                }
                assertThat(ours.messages()).as("seed %d step %d", seed, step).isEqualTo(reference.messages());
                if (step % 25 == 24) {
                    memory.close();
                    memory = AgentMemory.builder().h2File(db).build();
                    List<ChatMessage> expected = new ArrayList<>(reference.messages());
                    List<Integer> dangling = EngineChatMemoryStore.danglingToolMessages(expected);
                    for (int p = dangling.size() - 1; p >= 0; p--) {
                        expected.remove((int) dangling.get(p));
                    }
                    assertThat(memory.chatMemoryStore().getMessages(id)).as("reloaded, seed %d step %d", seed, step)
                            .isEqualTo(expected);
                    // after a restart the application starts again from what was loaded
                    reference = MessageWindowChatMemory.builder().id(id).maxMessages(window)
                            .alwaysKeepSystemMessageFirst(keepSystemFirst).chatMemoryStore(new InMemoryChatMemoryStore()).build();
                    reference.set(expected);
                    ours = memory(id, window, keepSystemFirst, memory);
                    pending.clear();
                }
            }
        } finally {
            memory.close();
        }
    }

    private static ChatMemory memory(SessionRef id, int window, boolean keepSystemFirst, AgentMemory memory) {
        return MessageWindowChatMemory.builder().id(id).maxMessages(window).alwaysKeepSystemMessageFirst(keepSystemFirst)
                .chatMemoryStore(memory.chatMemoryStore()).build();
    }
}

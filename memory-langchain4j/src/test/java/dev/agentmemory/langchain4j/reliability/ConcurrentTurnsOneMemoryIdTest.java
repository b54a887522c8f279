package dev.agentmemory.langchain4j.reliability;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.event.StoredMessage;
import dev.agentmemory.langchain4j.AgentMemory;
import dev.agentmemory.langchain4j.SessionRef;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.store.memory.chat.ChatMemoryStore;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Issue 15, item 5: LangChain4j does not serialise calls per memory id, so turns of one
 * conversation can reach the store at the same time. Eight threads each run turns on the same
 * memory id through the public {@link ChatMemoryStore} API (read the window, add a user message,
 * write; read again, add the reply, write), the way {@code MessageWindowChatMemory} does, on an H2
 * file. The window a thread reads may be another thread's, but every message any thread wrote
 * must be in the session's history exactly once: none stored twice, none lost.
 */
class ConcurrentTurnsOneMemoryIdTest {

    private static final SessionRef ID = new SessionRef("acme", "alice", "s1");
    private static final int THREADS = 8;
    private static final int TURNS = 15;

    @TempDir
    Path dir;

    @RepeatedTest(3)
    void should_store_every_message_exactly_once_when_eight_threads_update_one_memory_id() throws Exception {
        try (AgentMemory memory = AgentMemory.builder().h2File(dir.resolve("memory")).build()) {
            ChatMemoryStore store = memory.chatMemoryStore();
            store.updateMessages(ID, List.of(UserMessage.from("opening")));
            ExecutorService pool = Executors.newFixedThreadPool(THREADS);
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> futures = new ArrayList<>();
            try {
                for (int t = 0; t < THREADS; t++) {
                    int thread = t;
                    futures.add(pool.submit(() -> {
                        start.await();
                        for (int turn = 0; turn < TURNS; turn++) {
                            add(store, UserMessage.from("question " + thread + "." + turn));
                            add(store, AiMessage.from("answer " + thread + "." + turn));
                        }
                        return null;
                    }));
                }
                start.countDown();
                assertTimeoutPreemptively(Duration.ofMinutes(2), () -> {
                    for (Future<?> f : futures) {
                        f.get();
                    }
                });
            } finally {
                pool.shutdownNow();
                pool.awaitTermination(30, TimeUnit.SECONDS);
            }

            Caller caller = memory.caller(ID);
            Map<String, Integer> copies = new TreeMap<>();
            for (StoredMessage m : memory.engine().messages().history(caller, ID.session()).values()) {
                if (m.json() != null) {
                    copies.merge(m.text(), 1, Integer::sum);
                }
            }
            List<String> expected = new ArrayList<>();
            expected.add("opening");
            for (int t = 0; t < THREADS; t++) {
                for (int turn = 0; turn < TURNS; turn++) {
                    expected.add("question " + t + "." + turn);
                    expected.add("answer " + t + "." + turn);
                }
            }
            List<String> duplicated = copies.entrySet().stream().filter(e -> e.getValue() > 1)
                    .map(e -> e.getKey() + " x" + e.getValue()).toList();
            assertThat(duplicated).as("messages stored more than once").isEmpty();
            assertThat(copies.keySet()).as("messages in the history").containsExactlyInAnyOrderElementsOf(expected);
        }
    }

    /** One {@code MessageWindowChatMemory.add}: read the window, append, write the whole list back. */
    private static void add(ChatMemoryStore store, ChatMessage message) {
        List<ChatMessage> messages = new ArrayList<>(store.getMessages(ID));
        messages.add(message);
        store.updateMessages(ID, messages);
    }
}

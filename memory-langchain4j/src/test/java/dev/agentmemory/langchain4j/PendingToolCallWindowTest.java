package dev.agentmemory.langchain4j;

import dev.agentmemory.core.engine.MemoryEngine;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.memory.chat.TokenWindowChatMemory;
import dev.langchain4j.model.TokenCountEstimator;
import dev.langchain4j.store.memory.chat.ChatMemoryStore;
import dev.langchain4j.store.memory.chat.InMemoryChatMemoryStore;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 22, item 1: a tool call still waiting for its results is returned by {@code messages()}
 * exactly as it was added, as with LangChain4j's {@link InMemoryChatMemoryStore}; a call whose
 * results did not all arrive is left out once anything else follows it, and by a store opened
 * later (a restart, or another memory over the same engine). Every case runs on
 * {@code InMemoryChatMemoryStore} (the reference) and on ours over an in-memory engine and over an
 * H2 file, each under {@link MessageWindowChatMemory} and {@link TokenWindowChatMemory}. Where the
 * reference keeps an orphan call (it has no pairing rule), the test says what it shows too, so the
 * difference is a stated one.
 */
class PendingToolCallWindowTest {

    enum Store { LANGCHAIN4J, ENGINE_IN_MEMORY, H2_FILE }

    enum Window { MESSAGES, TOKENS }

    private static final SessionRef ID = new SessionRef("acme", "alice", "s1");

    @TempDir
    Path dir;

    private @Nullable Backend backend;

    @AfterEach
    void close() {
        if (backend != null) {
            backend.close();
        }
    }

    static Stream<Arguments> storesAndWindows() {
        return Arrays.stream(Store.values()).flatMap(s -> Arrays.stream(Window.values()).map(w -> Arguments.of(s, w)));
    }

    /**
     * One token per word of a message's text (a tool call without text, a result without text:
     * one token), so that the single-word messages of these cases cost one token each and a token
     * window of n keeps what a message window of n keeps.
     */
    static final class WordTokens implements TokenCountEstimator {
        @Override
        public int estimateTokenCountInText(String text) {
            return Math.max(1, text.isBlank() ? 0 : text.trim().split("\\s+").length);
        }

        @Override
        public int estimateTokenCountInMessage(ChatMessage message) {
            String text = "";
            if (message instanceof UserMessage u) {
                text = u.singleText();
            } else if (message instanceof AiMessage a && a.text() != null) {
                text = a.text();
            } else if (message instanceof SystemMessage s) {
                text = s.text();
            } else if (message instanceof ToolExecutionResultMessage r) {
                text = r.text();
            }
            return estimateTokenCountInText(text);
        }

        @Override
        public int estimateTokenCountInMessages(Iterable<ChatMessage> messages) {
            int n = 0;
            for (ChatMessage m : messages) {
                n += estimateTokenCountInMessage(m);
            }
            return n;
        }
    }

    /** A store under test that can be opened again: ours on the same engine or H2 file, the reference unchanged. */
    final class Backend implements AutoCloseable {
        private final Store kind;
        private final @Nullable MemoryEngine engine;
        private @Nullable AgentMemory memory;
        private ChatMemoryStore store;

        Backend(Store kind) {
            this.kind = kind;
            this.engine = kind == Store.ENGINE_IN_MEMORY ? MemoryEngine.builder().build() : null;
            this.store = open();
        }

        private ChatMemoryStore open() {
            switch (kind) {
                case LANGCHAIN4J:
                    return store == null ? new InMemoryChatMemoryStore() : store;
                case ENGINE_IN_MEMORY:
                    memory = AgentMemory.builder().engine(engine).build();
                    return memory.chatMemoryStore();
                default:
                    memory = AgentMemory.builder().h2File(dir.resolve("memory")).build();
                    return memory.chatMemoryStore();
            }
        }

        boolean reference() {
            return kind == Store.LANGCHAIN4J;
        }

        /** Closes ours and opens a new one on the same engine or file (a restart); the reference stays as it is. */
        void reopen() {
            if (memory != null) {
                memory.close();
            }
            store = open();
        }

        ChatMemory window(Window window, int size) {
            return window == Window.MESSAGES
                    ? MessageWindowChatMemory.builder().id(ID).maxMessages(size).chatMemoryStore(store).build()
                    : TokenWindowChatMemory.builder().id(ID).maxTokens(size, new WordTokens()).chatMemoryStore(store).build();
        }

        @Override
        public void close() {
            if (memory != null) {
                memory.close();
            }
            if (engine != null) {
                engine.close();
            }
        }
    }

    private Backend backend(Store kind) {
        backend = new Backend(kind);
        return backend;
    }

    private static ToolExecutionRequest request(String id, String tool) {
        return ToolExecutionRequest.builder().id(id).name(tool).arguments("{\"city\":\"Paris\"}").build();
    }

    private static AiMessage call(ToolExecutionRequest... requests) {
        return AiMessage.from(List.of(requests));
    }

    private static ToolExecutionResultMessage result(ToolExecutionRequest request, String text) {
        return ToolExecutionResultMessage.from(request, text);
    }

    /** What both stores show; on ours, what a store opened anew on the same data shows too, unless the list ends with a waiting call. */
    private static void shows(ChatMemory memory, ChatMessage... expected) {
        List<ChatMessage> messages = memory.messages();
        assertThat(messages).containsExactly(expected);
        assertThat(memory.messages()).as("a second read").isEqualTo(messages);
        assertNoOrphanBeforeTheTail(messages);
    }

    /** What ours shows, and what the reference (which keeps orphans) shows. */
    private static void shows(Backend backend, ChatMemory memory, List<ChatMessage> ours, List<ChatMessage> reference) {
        List<ChatMessage> messages = memory.messages();
        assertThat(messages).isEqualTo(backend.reference() ? reference : ours);
        if (!backend.reference()) {
            assertNoOrphanBeforeTheTail(messages);
        }
    }

    /** Every tool call answered and every result after its call, except for a call at the end still waiting for its results. */
    private static void assertNoOrphanBeforeTheTail(List<ChatMessage> messages) {
        List<Integer> dangling = ToolCallPairing.danglingToolMessages(messages);
        int waiting = ToolCallPairing.pendingCall(messages, dangling);
        assertThat(dangling).as("unpaired tool messages in %s", messages)
                .allMatch(p -> waiting >= 0 && p >= waiting);
        assertThat(messages.isEmpty() || !(messages.get(0) instanceof ToolExecutionResultMessage))
                .as("a window starting with a result: %s", messages).isTrue();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("storesAndWindows")
    void should_return_a_call_waiting_for_its_result_exactly_as_it_was_added(Store store, Window window) {
        ChatMemory memory = backend(store).window(window, 10);
        UserMessage user = UserMessage.from("weather?");
        ToolExecutionRequest weather = request("c1", "weather");
        AiMessage call = AiMessage.from("checking", List.of(weather));

        // when
        memory.add(user);
        memory.add(call);

        // then
        shows(memory, user, call);
        AiMessage returned = (AiMessage) memory.messages().get(1);
        assertThat(returned.text()).isEqualTo("checking");
        assertThat(returned.toolExecutionRequests()).containsExactly(weather);

        memory.add(result(weather, "sunny"));
        shows(memory, user, call, result(weather, "sunny"));
        memory.add(AiMessage.from("sunny"));
        shows(memory, user, call, result(weather, "sunny"), AiMessage.from("sunny"));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("storesAndWindows")
    void should_return_the_results_that_came_while_the_others_of_the_call_are_still_waiting(Store store, Window window) {
        ChatMemory memory = backend(store).window(window, 10);
        UserMessage user = UserMessage.from("weather?");
        ToolExecutionRequest paris = request("c1", "weather");
        ToolExecutionRequest rome = request("c2", "weather");
        AiMessage call = call(paris, rome);

        memory.add(user);
        memory.add(call);
        shows(memory, user, call);
        memory.add(result(paris, "sunny"));
        shows(memory, user, call, result(paris, "sunny"));
        memory.add(result(rome, "rainy"));
        shows(memory, user, call, result(paris, "sunny"), result(rome, "rainy"));
        memory.add(AiMessage.from("mixed"));
        shows(memory, user, call, result(paris, "sunny"), result(rome, "rainy"), AiMessage.from("mixed"));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("storesAndWindows")
    void should_leave_out_a_call_without_its_result_once_a_user_message_follows(Store store, Window window) {
        Backend backend = backend(store);
        ChatMemory memory = backend.window(window, 10);
        UserMessage user = UserMessage.from("weather?");
        ToolExecutionRequest weather = request("c1", "weather");
        AiMessage call = call(weather);
        memory.add(user);
        memory.add(call);

        // when: the loop ended without the result (the tool failed) and the user writes again
        memory.add(UserMessage.from("hello?"));

        // then
        shows(backend, memory, List.of(user, UserMessage.from("hello?")), List.of(user, call, UserMessage.from("hello?")));
        memory.add(AiMessage.from("hi"));
        shows(backend, memory, List.of(user, UserMessage.from("hello?"), AiMessage.from("hi")),
                List.of(user, call, UserMessage.from("hello?"), AiMessage.from("hi")));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("storesAndWindows")
    void should_leave_out_a_call_and_the_results_that_came_once_a_user_message_follows(Store store, Window window) {
        Backend backend = backend(store);
        ChatMemory memory = backend.window(window, 10);
        UserMessage user = UserMessage.from("weather?");
        ToolExecutionRequest paris = request("c1", "weather");
        ToolExecutionRequest rome = request("c2", "weather");
        AiMessage call = call(paris, rome);
        memory.add(user);
        memory.add(call);
        memory.add(result(paris, "sunny"));

        memory.add(UserMessage.from("hello?"));

        shows(backend, memory, List.of(user, UserMessage.from("hello?")),
                List.of(user, call, result(paris, "sunny"), UserMessage.from("hello?")));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("storesAndWindows")
    void should_leave_out_a_call_without_all_its_results_once_another_ai_message_follows(Store store, Window window) {
        Backend backend = backend(store);
        ChatMemory memory = backend.window(window, 10);
        UserMessage user = UserMessage.from("weather?");
        ToolExecutionRequest paris = request("c1", "weather");
        ToolExecutionRequest rome = request("c2", "weather");
        AiMessage call = call(paris, rome);
        memory.add(user);
        memory.add(call);
        memory.add(result(paris, "sunny"));

        memory.add(AiMessage.from("sorry"));

        shows(backend, memory, List.of(user, AiMessage.from("sorry")),
                List.of(user, call, result(paris, "sunny"), AiMessage.from("sorry")));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("storesAndWindows")
    void should_leave_out_a_waiting_call_in_a_store_opened_again_and_keep_an_answered_one(Store store, Window window) {
        Backend backend = backend(store);
        ChatMemory memory = backend.window(window, 10);
        ToolExecutionRequest first = request("c1", "weather");
        List<ChatMessage> answered = List.of(UserMessage.from("weather?"), call(first), result(first, "sunny"),
                AiMessage.from("sunny"));
        answered.forEach(memory::add);
        ToolExecutionRequest paris = request("c2", "weather");
        ToolExecutionRequest rome = request("c3", "weather");
        AiMessage call = call(paris, rome);
        memory.add(UserMessage.from("tomorrow?"));
        memory.add(call);
        memory.add(result(paris, "rainy"));

        // when: the process stops while the call waits for its second result, and starts again
        backend.reopen();
        memory = backend.window(window, 10);

        // then: the loop that waited is gone; its call is left out, the answered one is kept
        List<ChatMessage> kept = Stream.concat(answered.stream(), Stream.of(UserMessage.from("tomorrow?"))).toList();
        List<ChatMessage> all = Stream.concat(kept.stream(), Stream.of(call, result(paris, "rainy"))).toList();
        shows(backend, memory, kept, all);
        memory.add(UserMessage.from("hello?"));
        shows(backend, memory, Stream.concat(kept.stream(), Stream.of(UserMessage.from("hello?"))).toList(),
                Stream.concat(all.stream(), Stream.of(UserMessage.from("hello?"))).toList());
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("storesAndWindows")
    void should_evict_a_call_with_its_results_so_that_the_window_never_starts_with_a_result(Store store, Window window) {
        ChatMemory memory = backend(store).window(window, 3);
        UserMessage user = UserMessage.from("weather?");
        ToolExecutionRequest paris = request("c1", "weather");
        ToolExecutionRequest rome = request("c2", "weather");
        AiMessage call = call(paris, rome);

        memory.add(user);
        memory.add(call);
        memory.add(result(paris, "sunny"));
        shows(memory, user, call, result(paris, "sunny"));
        memory.add(result(rome, "rainy"));
        shows(memory, call, result(paris, "sunny"), result(rome, "rainy"));

        // when: the answer does not fit; the call leaves the window with both its results
        memory.add(AiMessage.from("mixed"));

        shows(memory, AiMessage.from("mixed"));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("storesAndWindows")
    void should_evict_a_waiting_call_with_the_results_that_came(Store store, Window window) {
        ChatMemory memory = backend(store).window(window, 2);
        UserMessage user = UserMessage.from("weather?");
        ToolExecutionRequest paris = request("c1", "weather");
        ToolExecutionRequest rome = request("c2", "weather");
        AiMessage call = call(paris, rome);

        memory.add(user);
        memory.add(call);
        shows(memory, user, call);
        memory.add(result(paris, "sunny"));
        shows(memory, call, result(paris, "sunny"));

        // when: the second result does not fit; the call leaves with every result after it
        memory.add(result(rome, "rainy"));

        shows(memory);
        memory.add(AiMessage.from("mixed"));
        shows(memory, AiMessage.from("mixed"));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("storesAndWindows")
    void should_not_start_the_window_with_a_call_whose_result_never_came(Store store, Window window) {
        Backend backend = backend(store);
        ChatMemory memory = backend.window(window, 2);
        UserMessage user = UserMessage.from("weather?");
        AiMessage call = call(request("c1", "weather"));
        memory.add(user);
        memory.add(call);

        // when: the user writes again; the window drops the first message, the call is at its front
        memory.add(UserMessage.from("hello?"));

        // then: ours leaves the call out; LangChain4j's store starts the window with it
        shows(backend, memory, List.of(UserMessage.from("hello?")), List.of(call, UserMessage.from("hello?")));
        memory.add(AiMessage.from("hi"));
        shows(backend, memory, List.of(UserMessage.from("hello?"), AiMessage.from("hi")),
                List.of(UserMessage.from("hello?"), AiMessage.from("hi")));
    }
}

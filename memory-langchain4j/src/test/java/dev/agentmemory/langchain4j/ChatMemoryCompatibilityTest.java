package dev.agentmemory.langchain4j;

import dev.agentmemory.testing.langchain4j.ScriptedChatModel;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ImageContent;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.guardrail.OutputGuardrail;
import dev.langchain4j.guardrail.OutputGuardrailResult;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.memory.chat.TokenWindowChatMemory;
import dev.langchain4j.model.TokenCountEstimator;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.guardrail.OutputGuardrails;
import dev.langchain4j.store.memory.chat.ChatMemoryStore;
import dev.langchain4j.store.memory.chat.InMemoryChatMemoryStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * LangChain4j's chat memory contract, as its javadoc and tests state it, checked with the same
 * assertions against LangChain4j's {@link InMemoryChatMemoryStore} and against
 * {@link AgentMemory#chatMemoryStore()}, for every kind of memory id an application uses: a
 * plain string, {@code "default"} (AiServices without {@code @MemoryId}), an {@code int}, a
 * {@code long}, a {@code UUID}, a {@link SessionRef} and a {@code tenant/user/session} string.
 * Swapping one store for the other must change nothing an application or a model can see.
 */
class ChatMemoryCompatibilityTest {

    /** A store under test, and what closes it. */
    record Backend(String name, ChatMemoryStore store, AutoCloseable closer) {
        @Override
        public String toString() {
            return name;
        }
    }

    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
    }

    static final UUID A_UUID = UUID.fromString("2f1e0c9a-5b7d-4e36-9a51-0c8b9d7e6f10");

    static Stream<Object> ids() {
        return Stream.of("user-1", "default", 7, 7L, A_UUID, new SessionRef("acme", "alice", "s1"), "acme/bob/s1",
                "user 1 / with spaces, ünïcode and a very long tail ".repeat(5));
    }

    static Stream<Arguments> backendsAndIds() {
        return Stream.of("langchain4j", "agent-memory").flatMap(b -> ids().map(id -> Arguments.of(b, id)));
    }

    private Backend backend(String name) {
        if (name.equals("langchain4j")) {
            return new Backend(name, new InMemoryChatMemoryStore(), () -> { });
        }
        AgentMemory memory = AgentMemory.builder().build();
        open.add(memory);
        return new Backend(name, memory.chatMemoryStore(), memory);
    }

    /** An id of another type (or value) that must not share messages with {@code id}. */
    private static Object neighbour(Object id) {
        if (id instanceof Integer i) {
            return (long) i; // 7 and 7L are different ids for InMemoryChatMemoryStore too
        }
        if (id instanceof Long l) {
            return l.toString();
        }
        if (id instanceof String s && !s.contains("/")) {
            return s + "x";
        }
        return "7";
    }

    private static MessageWindowChatMemory window(ChatMemoryStore store, Object id, int max) {
        return MessageWindowChatMemory.builder().id(id).maxMessages(max).chatMemoryStore(store).build();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("backendsAndIds")
    void store_returns_empty_then_what_was_written_and_nothing_after_delete(String name, Object id) {
        ChatMemoryStore store = backend(name).store();
        assertThat(store.getMessages(id)).isEmpty();

        List<ChatMessage> first = List.of(UserMessage.from("hi"), AiMessage.from("hello"));
        store.updateMessages(id, first);
        assertThat(store.getMessages(id)).isEqualTo(first);

        List<ChatMessage> second = List.of(AiMessage.from("hello"), UserMessage.from("again"), AiMessage.from("yes"));
        store.updateMessages(id, second);
        assertThat(store.getMessages(id)).isEqualTo(second);

        Object other = neighbour(id);
        assertThat(store.getMessages(other)).isEmpty();
        store.updateMessages(other, List.of(UserMessage.from("other")));
        assertThat(store.getMessages(id)).isEqualTo(second);

        store.deleteMessages(id);
        assertThat(store.getMessages(id)).isEmpty();
        assertThat(store.getMessages(other)).containsExactly(UserMessage.from("other"));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("backendsAndIds")
    void message_window_keeps_the_system_message_and_evicts_the_oldest(String name, Object id) {
        ChatMemoryStore store = backend(name).store();
        ChatMemory memory = window(store, id, 3);
        SystemMessage system = SystemMessage.from("be brief");
        memory.add(system);
        memory.add(UserMessage.from("u1"));
        memory.add(AiMessage.from("a1"));
        memory.add(UserMessage.from("u2"));
        assertThat(memory.messages()).containsExactly(system, AiMessage.from("a1"), UserMessage.from("u2"));
        memory.add(AiMessage.from("a2"));
        assertThat(memory.messages()).containsExactly(system, UserMessage.from("u2"), AiMessage.from("a2"));

        // the same system message again is ignored; another one replaces it
        memory.add(SystemMessage.from("be brief"));
        assertThat(memory.messages()).containsExactly(system, UserMessage.from("u2"), AiMessage.from("a2"));
        memory.add(SystemMessage.from("be verbose"));
        assertThat(memory.messages()).containsExactly(UserMessage.from("u2"), AiMessage.from("a2"),
                SystemMessage.from("be verbose"));

        // a new ChatMemory over the same store and id sees the same messages
        assertThat(window(store, id, 3).messages()).isEqualTo(memory.messages());
        assertThat(store.getMessages(id)).isEqualTo(memory.messages());

        memory.clear();
        assertThat(memory.messages()).isEmpty();
        assertThat(store.getMessages(id)).isEmpty();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("backendsAndIds")
    void system_message_stays_first_when_asked_to(String name, Object id) {
        ChatMemoryStore store = backend(name).store();
        ChatMemory memory = MessageWindowChatMemory.builder().id(id).maxMessages(3).chatMemoryStore(store)
                .alwaysKeepSystemMessageFirst(true).build();
        memory.add(UserMessage.from("u1"));
        memory.add(SystemMessage.from("s1"));
        memory.add(AiMessage.from("a1"));
        memory.add(SystemMessage.from("s2"));
        assertThat(memory.messages()).containsExactly(SystemMessage.from("s2"), UserMessage.from("u1"),
                AiMessage.from("a1"));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("backendsAndIds")
    void evicting_a_tool_call_evicts_its_results(String name, Object id) {
        ChatMemoryStore store = backend(name).store();
        ChatMemory memory = window(store, id, 3);
        ToolExecutionRequest call = ToolExecutionRequest.builder().id("c1").name("weather").arguments("{}").build();
        memory.add(UserMessage.from("weather?"));
        memory.add(AiMessage.from(List.of(call)));
        memory.add(ToolExecutionResultMessage.from(call, "sunny"));
        assertThat(memory.messages()).containsExactly(UserMessage.from("weather?"), AiMessage.from(List.of(call)),
                ToolExecutionResultMessage.from(call, "sunny"));
        memory.add(AiMessage.from("it is sunny"));
        assertThat(memory.messages()).containsExactly(AiMessage.from(List.of(call)),
                ToolExecutionResultMessage.from(call, "sunny"), AiMessage.from("it is sunny"));
        memory.add(UserMessage.from("thanks"));
        assertThat(memory.messages()).containsExactly(AiMessage.from("it is sunny"), UserMessage.from("thanks"));
        assertThat(store.getMessages(id)).isEqualTo(memory.messages());
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("backendsAndIds")
    void dynamic_window_size_is_read_on_every_add(String name, Object id) {
        ChatMemoryStore store = backend(name).store();
        AtomicInteger size = new AtomicInteger(4);
        ChatMemory memory = MessageWindowChatMemory.builder().id(id).dynamicMaxMessages(i -> size.get())
                .chatMemoryStore(store).build();
        for (int i = 1; i <= 4; i++) {
            memory.add(UserMessage.from("m" + i));
        }
        assertThat(memory.messages()).hasSize(4);
        size.set(2);
        memory.add(UserMessage.from("m5"));
        assertThat(memory.messages()).containsExactly(UserMessage.from("m4"), UserMessage.from("m5"));
        size.set(3);
        memory.add(UserMessage.from("m6"));
        assertThat(memory.messages()).containsExactly(UserMessage.from("m4"), UserMessage.from("m5"),
                UserMessage.from("m6"));
        assertThat(store.getMessages(id)).isEqualTo(memory.messages());
    }

    /** One token per word of a message's text, so that expectations can be counted by hand. */
    static final class WordCount implements TokenCountEstimator {
        @Override
        public int estimateTokenCountInText(String text) {
            return text.isBlank() ? 0 : text.trim().split("\\s+").length;
        }

        @Override
        public int estimateTokenCountInMessage(ChatMessage message) {
            String text = message instanceof UserMessage u ? u.singleText()
                    : message instanceof AiMessage a ? (a.text() == null ? "" : a.text())
                    : message instanceof SystemMessage s ? s.text() : "";
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

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("backendsAndIds")
    void token_window_evicts_the_oldest_until_the_tokens_fit(String name, Object id) {
        ChatMemoryStore store = backend(name).store();
        ChatMemory memory = TokenWindowChatMemory.builder().id(id).maxTokens(6, new WordCount())
                .chatMemoryStore(store).build();
        memory.add(SystemMessage.from("be brief"));         // 2
        memory.add(UserMessage.from("one two three"));     // 3
        memory.add(AiMessage.from("four"));                // 1 -> 6
        assertThat(memory.messages()).hasSize(3);
        memory.add(UserMessage.from("five six"));          // 8 -> evict "one two three" -> 5
        assertThat(memory.messages()).containsExactly(SystemMessage.from("be brief"), AiMessage.from("four"),
                UserMessage.from("five six"));
        assertThat(store.getMessages(id)).isEqualTo(memory.messages());
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("backendsAndIds")
    void images_and_several_contents_round_trip(String name, Object id) {
        ChatMemoryStore store = backend(name).store();
        String base64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
        UserMessage user = UserMessage.from(List.of(TextContent.from("what is this?"),
                ImageContent.from(base64, "image/png"), ImageContent.from("https://example.com/cat.png")));
        List<ChatMessage> messages = List.of(user, AiMessage.from("a pixel and a cat"));
        store.updateMessages(id, messages);
        assertThat(store.getMessages(id)).isEqualTo(messages);
    }

    // ------------------------------------------------------------------ AiServices

    interface NoId {
        String chat(String message);
    }

    interface IntId {
        String chat(@MemoryId int id, @dev.langchain4j.service.UserMessage String message);
    }

    interface UuidId {
        String chat(@MemoryId UUID id, @dev.langchain4j.service.UserMessage String message);
    }

    interface RefId {
        String chat(@MemoryId SessionRef id, @dev.langchain4j.service.UserMessage String message);
    }

    /** Runs {@code conversation} with each store; the model must be shown exactly the same requests. */
    private void sameRequests(Function<ChatMemoryStore, List<ChatRequest>> conversation) {
        List<ChatRequest> reference = conversation.apply(backend("langchain4j").store());
        List<ChatRequest> ours = conversation.apply(backend("agent-memory").store());
        assertThat(ours).isEqualTo(reference);
        assertThat(reference).isNotEmpty();
    }

    private static ScriptedChatModel echo() {
        return new ScriptedChatModel(r -> AiMessage.from("echo: " + ScriptedChatModel.lastUserText(r)));
    }

    private static MessageWindowChatMemory provided(ChatMemoryStore store, Object id) {
        return window(store, id, 10);
    }

    @org.junit.jupiter.api.Test
    void ai_service_without_memory_id_remembers_the_conversation_with_either_store() {
        sameRequests(store -> {
            ScriptedChatModel model = echo();
            NoId assistant = AiServices.builder(NoId.class).chatModel(model)
                    .chatMemoryProvider(id -> provided(store, id)).build();
            assertThat(assistant.chat("first")).isEqualTo("echo: first");
            assertThat(assistant.chat("second")).isEqualTo("echo: second");
            assertThat(model.lastRequest().messages()).containsExactly(UserMessage.from("first"),
                    AiMessage.from("echo: first"), UserMessage.from("second"));
            assertThat(store.getMessages("default")).hasSize(4);
            return model.requests();
        });
    }

    @org.junit.jupiter.api.Test
    void ai_service_with_int_ids_keeps_each_id_apart_with_either_store() {
        sameRequests(store -> {
            ScriptedChatModel model = echo();
            IntId assistant = AiServices.builder(IntId.class).chatModel(model)
                    .chatMemoryProvider(id -> provided(store, id)).build();
            assistant.chat(1, "one");
            assistant.chat(2, "two");
            assistant.chat(1, "one again");
            assertThat(model.lastRequest().messages()).containsExactly(UserMessage.from("one"),
                    AiMessage.from("echo: one"), UserMessage.from("one again"));
            assertThat(store.getMessages(2)).containsExactly(UserMessage.from("two"), AiMessage.from("echo: two"));
            assertThat(store.getMessages(1L)).isEmpty();
            return model.requests();
        });
    }

    @org.junit.jupiter.api.Test
    void ai_service_with_uuid_and_session_ref_ids_with_either_store() {
        sameRequests(store -> {
            ScriptedChatModel model = echo();
            UuidId byUuid = AiServices.builder(UuidId.class).chatModel(model)
                    .chatMemoryProvider(id -> provided(store, id)).build();
            RefId byRef = AiServices.builder(RefId.class).chatModel(model)
                    .chatMemoryProvider(id -> provided(store, id)).build();
            SessionRef ref = new SessionRef("acme", "alice", "s1");
            byUuid.chat(A_UUID, "by uuid");
            byRef.chat(ref, "by ref");
            byUuid.chat(A_UUID, "uuid again");
            assertThat(model.lastRequest().messages()).containsExactly(UserMessage.from("by uuid"),
                    AiMessage.from("echo: by uuid"), UserMessage.from("uuid again"));
            assertThat(store.getMessages(ref)).containsExactly(UserMessage.from("by ref"), AiMessage.from("echo: by ref"));
            return model.requests();
        });
    }

    /** Rewrites every answer. */
    public static final class Rewrite implements OutputGuardrail {
        @Override
        public OutputGuardrailResult validate(AiMessage response) {
            return successWith(AiMessage.from("rewritten: " + response.text()));
        }
    }

    /** Refuses answers containing "secret", removing them from the chat memory. */
    public static final class RemoveSecrets implements OutputGuardrail {
        @Override
        public OutputGuardrailResult validate(AiMessage response) {
            return response.text().contains("secret") ? failureWithMessageRemoval("no secrets") : success();
        }
    }

    interface Guarded {
        @OutputGuardrails(Rewrite.class)
        String rewritten(@MemoryId Object id, @dev.langchain4j.service.UserMessage String message);

        @OutputGuardrails(RemoveSecrets.class)
        String checked(@MemoryId Object id, @dev.langchain4j.service.UserMessage String message);
    }

    @org.junit.jupiter.api.Test
    void output_guardrails_that_rewrite_or_remove_answers_leave_the_same_memory_with_either_store() {
        for (Object id : ids().toList()) {
            List<List<ChatMessage>> seen = new ArrayList<>();
            sameRequests(store -> {
                ScriptedChatModel model = echo();
                Guarded assistant = AiServices.builder(Guarded.class).chatModel(model)
                        .chatMemoryProvider(i -> provided(store, i)).build();
                assertThat(assistant.rewritten(id, "hello")).isEqualTo("rewritten: echo: hello");
                try {
                    assistant.checked(id, "tell a secret");
                } catch (RuntimeException expected) {
                    // the guardrail fails the call
                }
                assistant.checked(id, "fine");
                seen.add(store.getMessages(id));
                return model.requests();
            });
            assertThat(seen.get(1)).as("memory of %s", id).isEqualTo(seen.get(0));
            assertThat(seen.get(0)).as("memory of %s", id).doesNotContain(AiMessage.from("echo: tell a secret"));
        }
    }

    @org.junit.jupiter.api.Test
    void agent_memory_front_door_serves_ai_services_without_memory_id_and_with_int_and_uuid_ids() {
        try (AgentMemory memory = AgentMemory.builder().build()) {
            ScriptedChatModel model = ScriptedChatModel.echo(text -> memory.framer().stripFrames(text));
            NoId noId = AiServices.builder(NoId.class).chatModel(model)
                    .chatMemoryProvider(memory.chatMemoryProvider()).retrievalAugmentor(memory.retrievalAugmentor())
                    .tools(memory.tools()).build();
            IntId intId = AiServices.builder(IntId.class).chatModel(model)
                    .chatMemoryProvider(memory.chatMemoryProvider()).retrievalAugmentor(memory.retrievalAugmentor())
                    .tools(memory.tools()).build();
            UuidId uuidId = AiServices.builder(UuidId.class).chatModel(model)
                    .chatMemoryProvider(memory.chatMemoryProvider()).retrievalAugmentor(memory.retrievalAugmentor())
                    .tools(memory.tools()).build();

            assertThat(noId.chat("hello")).isEqualTo("echo: hello");
            assertThat(intId.chat(1, "one")).isEqualTo("echo: one");
            assertThat(uuidId.chat(A_UUID, "uuid")).isEqualTo("echo: uuid");
            assertThat(noId.chat("again")).isEqualTo("echo: again");

            List<ChatMessage> shown = model.lastRequest().messages();
            assertThat(shown).hasSize(3);
            assertThat(shown.subList(0, 2)).containsExactly(UserMessage.from("hello"), AiMessage.from("echo: hello"));
            assertThat(memory.chatMemoryStore().getMessages("default")).containsExactly(UserMessage.from("hello"),
                    AiMessage.from("echo: hello"), UserMessage.from("again"), AiMessage.from("echo: again"));
            assertThat(memory.chatMemoryStore().getMessages(1)).containsExactly(UserMessage.from("one"),
                    AiMessage.from("echo: one"));
            assertThat(memory.session("default")).isEqualTo(new SessionRef("default", "s-default", "s-default"));
            assertThat(memory.session(1)).isEqualTo(new SessionRef("default", "i-1", "i-1"));
            assertThat(memory.session(A_UUID).user()).isEqualTo("u-" + A_UUID);
            assertThat(memory.lastRecall("default")).isPresent();
            assertThat(memory.lastRecall(A_UUID)).isPresent();
            assertThat(memory.lastRecall(2)).isEmpty();
        }
    }
}

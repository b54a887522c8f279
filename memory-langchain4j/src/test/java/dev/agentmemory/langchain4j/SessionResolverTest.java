package dev.agentmemory.langchain4j;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.langchain4j.tools.MemoryTools;
import dev.agentmemory.testing.langchain4j.ScriptedChatModel;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.rag.AugmentationRequest;
import dev.langchain4j.rag.query.Metadata;
import dev.langchain4j.rag.query.Query;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.store.memory.chat.InMemoryChatMemoryStore;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.agentmemory.core.ReadOptions;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** How memory ids become sessions, the same way in every part of AgentMemory. */
class SessionResolverTest {

    private final SessionResolver standard = SessionResolver.standard();

    @Test
    void should_give_each_id_of_each_type_its_own_user_and_session_in_the_default_tenant() {
        assertThat(standard.resolve("default")).isEqualTo(new SessionRef("default", "s-default", "s-default"));
        assertThat(standard.resolve(1)).isEqualTo(new SessionRef("default", "i-1", "i-1"));
        assertThat(standard.resolve(1L)).isEqualTo(new SessionRef("default", "l-1", "l-1"));
        assertThat(standard.resolve("1")).isEqualTo(new SessionRef("default", "s-1", "s-1"));
        UUID uuid = UUID.fromString("2f1e0c9a-5b7d-4e36-9a51-0c8b9d7e6f10");
        assertThat(standard.resolve(uuid).user()).isEqualTo("u-2f1e0c9a-5b7d-4e36-9a51-0c8b9d7e6f10");
        assertThat(standard.resolve(-5).user()).isEqualTo("i--5");
    }

    @Test
    void should_read_tenant_user_session_strings_and_keep_session_refs_as_they_are() {
        SessionRef ref = new SessionRef("acme", "alice", "s1");
        assertThat(standard.resolve("acme/alice/s1")).isEqualTo(ref);
        assertThat(SessionResolver.resolve(standard, ref)).isSameAs(ref);
    }

    @Test
    void should_encode_ids_with_characters_identifiers_refuse_instead_of_refusing_them() {
        assertThat(standard.resolve("user 1").user()).isEqualTo("s-user@201");
        assertThat(standard.resolve("a@b").user()).isEqualTo("s-a@40b");
        assertThat(standard.resolve("ü").user()).isEqualTo("s-@c3@bc");
        // a slash string that is not three valid identifiers is one opaque id
        assertThat(standard.resolve("acme/Alice Smith/s1").user()).isEqualTo("s-acme@2fAlice@20Smith@2fs1");
        assertThat(standard.resolve("").user()).isEqualTo("s-");
        String huge = "x\n".repeat(5_000);
        SessionRef hashed = standard.resolve(huge);
        assertThat(hashed.user()).startsWith("sh-").hasSize(67);
        assertThat(standard.resolve(huge + "y").user()).isNotEqualTo(hashed.user());
    }

    @Test
    void should_not_let_a_string_name_the_default_tenant_where_other_ids_live() {
        // "default/s-1/s-1" would otherwise reach the session of the id "1"
        assertThat(standard.resolve("default/s-1/s-1")).isNotEqualTo(standard.resolve("1"));
        assertThat(standard.resolve("default/s-1/s-1").tenant()).isEqualTo("default");
    }

    @Test
    void should_refuse_other_objects_with_a_short_escaped_message_pointing_to_the_resolver() {
        StringBuilder hostile = new StringBuilder("acme/mallory/s1\n" + "y".repeat(10_000));
        assertThatThrownBy(() -> standard.resolve(hostile))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("memory id of type java.lang.StringBuilder is not mapped to a session: use a SessionRef,"
                        + " a String (\"tenant/user/session\" or any other), an Integer, a Long or a UUID, or set"
                        + " AgentMemory.Builder#sessionResolver (not mapped through toString(): \"acme/mallory/s1\\u000a"
                        + "y".repeat(84) + "\"... (10016 characters))")
                .satisfies(e -> assertThat(e.getMessage()).hasSizeLessThan(400).doesNotContain("\n"));
        assertThatThrownBy(() -> SessionRef.of(hostile)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not mapped through toString()");
    }

    interface ByCustomer {
        String chat(@MemoryId Customer customer, @dev.langchain4j.service.UserMessage String text);
    }

    record Customer(String shop, String name) {
    }

    @Test
    void should_map_ids_with_the_builders_resolver_in_the_store_retriever_tools_and_last_recall() {
        SessionResolver byCustomer = id -> id instanceof Customer c ? new SessionRef(c.shop(), c.name(), "chat")
                : SessionResolver.standard().resolve(id);
        try (AgentMemory memory = AgentMemory.builder().sessionResolver(byCustomer).build()) {
            Customer alice = new Customer("acme", "alice");
            SessionRef ref = new SessionRef("acme", "alice", "chat");
            Caller caller = memory.caller(alice);
            assertThat(caller).isEqualTo(ref.caller("assistant"));
            memory.engine().write(caller, Proposal.set(caller.persistent(), "drink", "tea").kind(Kind.PREFERENCE)
                    .source(Source.USER, "m").build());
            ScriptedChatModel model = ScriptedChatModel.echo(text -> memory.framer().stripFrames(text));
            ByCustomer assistant = AiServices.builder(ByCustomer.class).chatModel(model)
                    .chatMemoryProvider(memory.chatMemoryProvider()).retrievalAugmentor(memory.retrievalAugmentor())
                    .build();

            assertThat(assistant.chat(alice, "my drink is coffee")).isEqualTo("echo: my drink is coffee");

            assertThat(ScriptedChatModel.lastUserText(model.lastRequest())).contains("tea");
            assertThat(memory.chatMemoryStore().getMessages(ref)).containsExactly(
                    UserMessage.from("my drink is coffee"), AiMessage.from("echo: my drink is coffee"));
            assertThat(memory.lastRecall(alice)).isPresent();
            assertThat(memory.tools().remember(alice, "drink", "coffee", "preference", "my drink is coffee"))
                    .startsWith("Saved drink = \"coffee\" in persistent memory as a preference stated by the user");
            assertThat(memory.engine().current(caller, caller.persistent(), MemoryKey.of("drink")))
                    .hasValueSatisfying(r -> assertThat(r.value().text()).isEqualTo("coffee"));
        }
    }

    @Test
    void should_say_quotes_cannot_be_checked_when_the_ai_service_keeps_its_messages_in_another_store() {
        try (AgentMemory memory = AgentMemory.builder().build()) {
            InMemoryChatMemoryStore other = new InMemoryChatMemoryStore();
            MessageWindowChatMemory.builder().id("user-1").maxMessages(10).chatMemoryStore(other).build()
                    .add(UserMessage.from("I live in Berlin"));
            MemoryTools tools = memory.tools();

            assertThat(tools.remember("user-1", "user.residence", "Berlin", "fact", "I live in Berlin"))
                    .isEqualTo(MemoryTools.NO_MESSAGES_TO_QUOTE);
            // without a quote the write is kept as the model's unconfirmed candidate
            assertThat(tools.remember("user-1", "user.residence", "Berlin", "fact", null)).startsWith("Saved");
            Caller caller = memory.caller("user-1");
            assertThat(memory.engine().view(caller, caller.persistent(), ReadOptions.DEFAULT).keys()).hasSize(1);
        }
    }

    @Test
    void should_still_say_the_quote_was_not_found_when_the_session_has_user_messages() {
        try (AgentMemory memory = AgentMemory.builder().build()) {
            memory.chatMemoryStore().updateMessages("user-1", List.of(UserMessage.from("hello")));
            assertThat(memory.tools().remember("user-1", "user.residence", "Berlin", "fact", "I live in Berlin"))
                    .startsWith("Not saved: the quote was not found in the user's messages of this session");
        }
    }

    @Test
    void should_map_a_memory_id_once_per_call_with_the_memorys_one_resolver() {
        // given: a memory whose resolver counts how often it is asked
        AtomicInteger resolutions = new AtomicInteger();
        SessionResolver counting = id -> {
            resolutions.incrementAndGet();
            return standard.resolve(id);
        };
        try (AgentMemory memory = AgentMemory.builder().sessionResolver(counting).build()) {
            String id = "acme/alice/s1";
            Metadata md = Metadata.builder().chatMessage(UserMessage.from("hello"))
                    .invocationContext(InvocationContext.builder().chatMemoryId(id).build()).build();

            // when / then: every call that names the id maps it exactly once
            assertThat(countedCalls(resolutions, () -> memory.retrievalAugmentor()
                    .augment(new AugmentationRequest(UserMessage.from("hello"), md)))).isEqualTo(1);
            assertThat(countedCalls(resolutions, () -> memory.chatMemoryStore()
                    .updateMessages(id, List.of(UserMessage.from("hello"), AiMessage.from("hi"))))).isEqualTo(1);
            assertThat(countedCalls(resolutions, () -> memory.chatMemoryStore().getMessages(id))).isEqualTo(1);
            assertThat(countedCalls(resolutions, () -> memory.contentRetriever()
                    .retrieve(Query.from("hello", md)))).isEqualTo(1);
            assertThat(countedCalls(resolutions, () -> memory.lastRecall(id))).isEqualTo(1);
            assertThat(countedCalls(resolutions, () -> memory.chatMemoryStore().deleteMessages(id))).isEqualTo(1);
            assertThat(memory.chatMemoryStore().getMessages(id)).isEmpty();
        }
    }

    private static int countedCalls(AtomicInteger counter, Runnable call) {
        int before = counter.get();
        call.run();
        return counter.get() - before;
    }
}

package dev.agentmemory.langchain4j;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.event.StoredMessage;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.store.memory.chat.ChatMemoryStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ChatMemoryStoreTest {

    private static final SessionRef ALICE = new SessionRef("acme", "alice", "s1");

    @TempDir
    Path dir;

    @Test
    void should_log_only_the_delta_when_the_window_slides() {
        // given
        try (AgentMemory memory = AgentMemory.builder().windowSize(3).build()) {
            ChatMemory chat = memory.chatMemoryProvider().get(ALICE);
            chat.add(UserMessage.from("one"));
            chat.add(AiMessage.from("two"));
            chat.add(UserMessage.from("three"));
            int eventsBefore = memory.engine().admin().log(memory.caller(ALICE)).size();

            // when
            chat.add(AiMessage.from("four"));

            // then
            List<String> types = memory.engine().admin().log(memory.caller(ALICE)).stream()
                    .skip(eventsBefore).map(e -> e.change().getClass().getSimpleName()).toList();
            assertThat(types).containsExactly("MessagesEvicted", "MessagesAppended");
            assertThat(chat.messages()).containsExactly(AiMessage.from("two"), UserMessage.from("three"),
                    AiMessage.from("four"));
            Caller caller = memory.caller(ALICE);
            assertThat(memory.engine().messages().history(caller, "s1").values()).extracting(StoredMessage::text)
                    .containsExactly("one", "two", "three", "four");
        }
    }

    @Test
    void should_keep_a_new_system_message_first_when_it_is_placed_in_front() {
        try (AgentMemory memory = AgentMemory.builder().build()) {
            ChatMemoryStore store = memory.chatMemoryStore();
            store.updateMessages(ALICE, List.of(UserMessage.from("hi"), AiMessage.from("hello")));

            store.updateMessages(ALICE, List.of(SystemMessage.from("be brief"), UserMessage.from("hi"),
                    AiMessage.from("hello")));

            assertThat(store.getMessages(ALICE)).containsExactly(SystemMessage.from("be brief"), UserMessage.from("hi"),
                    AiMessage.from("hello"));
        }
    }

    @Test
    void should_drop_an_unanswered_tool_call_when_reloaded_after_a_restart() {
        // given: the process stops after the model asked for a tool and before its result came
        Path db = dir.resolve("memory");
        ToolExecutionRequest call = ToolExecutionRequest.builder().id("c1").name("orderStatus").arguments("{}").build();
        try (AgentMemory memory = AgentMemory.builder().h2File(db).build()) {
            memory.chatMemoryStore().updateMessages(ALICE, List.of(UserMessage.from("where is my order?"),
                    AiMessage.from(List.of(call))));
        }

        // when
        try (AgentMemory memory = AgentMemory.builder().h2File(db).build()) {
            List<ChatMessage> loaded = memory.chatMemoryStore().getMessages(ALICE);

            // then: the list is valid to send; the call stays in the history
            assertThat(loaded).containsExactly(UserMessage.from("where is my order?"));
            assertThat(memory.engine().messages().history(memory.caller(ALICE), "s1")).hasSize(2);
        }
    }

    @Test
    void should_keep_a_tool_call_with_its_result_across_a_restart() {
        Path db = dir.resolve("memory");
        ToolExecutionRequest call = ToolExecutionRequest.builder().id("c1").name("orderStatus").arguments("{\"id\":7}").build();
        List<ChatMessage> turn = List.of(UserMessage.from("where is my order?"), AiMessage.from(List.of(call)),
                ToolExecutionResultMessage.from(call, "shipped"), AiMessage.from("It has shipped."));
        try (AgentMemory memory = AgentMemory.builder().h2File(db).build()) {
            memory.chatMemoryStore().updateMessages(ALICE, turn);
        }
        try (AgentMemory memory = AgentMemory.builder().h2File(db).build()) {
            assertThat(memory.chatMemoryStore().getMessages(ALICE)).isEqualTo(turn);
        }
    }

    @Test
    void should_refuse_an_object_id_rather_than_read_its_toString_when_it_is_no_known_id_type() {
        try (AgentMemory memory = AgentMemory.builder().build()) {
            assertThatThrownBy(() -> memory.chatMemoryStore().getMessages(new StringBuilder("acme/mallory/s1")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("memory id of type java.lang.StringBuilder is not mapped to a session: use a SessionRef,"
                            + " a String (\"tenant/user/session\" or any other), an Integer, a Long or a UUID, or set"
                            + " AgentMemory.Builder#sessionResolver (not mapped through toString(): \"acme/mallory/s1\")");
        }
    }
    @Test
    @org.junit.jupiter.api.Timeout(value = 30, unit = java.util.concurrent.TimeUnit.SECONDS)
    void should_not_block_another_user_when_one_user_is_mid_update() throws Exception {
        try (AgentMemory memory = AgentMemory.builder().build()) {
            // given: alice's partition is locked by a window change that waits
            java.util.concurrent.CountDownLatch entered = new java.util.concurrent.CountDownLatch(1);
            java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
            Thread alice = new Thread(() -> memory.engine().messages().change(memory.caller(ALICE), "s1", w -> {
                entered.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return new dev.agentmemory.core.engine.MemoryEngine.Messages.WindowChange(List.of(), List.of());
            }));
            alice.start();
            entered.await();

            // when: bob updates his session
            SessionRef bob = new SessionRef("acme", "bob", "s1");
            memory.chatMemoryStore().updateMessages(bob, List.of(UserMessage.from("hi")));

            // then: it completed while alice's lock was held
            assertThat(alice.isAlive()).isTrue();
            assertThat(memory.chatMemoryStore().getMessages(bob)).containsExactly(UserMessage.from("hi"));
            release.countDown();
            alice.join();
        }
    }
}

package dev.agentmemory.langchain4j;

import dev.agentmemory.core.testing.RoundTripCounter.Kind;
import dev.agentmemory.store.jdbc.JdbcStores;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ChatMessageType;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.request.ChatRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static dev.agentmemory.langchain4j.CountedAssistant.only;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 27, item 5, on the embedded H2 file (one writer: no check of the store's head is ever
 * needed): an AiServices turn with the memory's chat memory provider, retrieval augmentor and
 * tools costs the store one append, the user message and the reply together, and no other round
 * trip; a turn whose model call fails keeps its question for the next turn, whose first write
 * stores it, and a memory that closes stores it. The model sees every turn's whole
 * window as it would with LangChain4j's own store.
 */
class TurnRoundTripsTest {

    private static final SessionRef ALICE = new SessionRef("acme", "alice", "chat-1");

    @TempDir
    Path dir;

    @Test
    void should_append_once_and_make_no_other_round_trip_per_turn_on_an_h2_file() {
        try (CountedAssistant a = new CountedAssistant(JdbcStores.h2File(dir.resolve("memory")), 6)) {
            a.assistant.chat(ALICE, "Hello, I am Alice.");
            List<Map<Kind, Long>> turns = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                turns.add(a.countTurn(ALICE, "Question " + i + "?"));
            }

            assertThat(turns).as("round trips of each turn").containsOnly(only(Kind.APPEND, 1));
            // the last request held the window of 6 as LangChain4j 1.19 sends it: the stored window, then the question
            List<ChatMessage> request = a.model.lastRequest().messages();
            assertThat(texts(request.subList(0, request.size() - 1))).containsExactly(
                    "Question 4?", "Noted.", "Question 5?", "Noted.", "Question 6?", "Noted.");
            assertThat(a.memory.framer().stripFrames(((UserMessage) request.get(request.size() - 1)).singleText()))
                    .isEqualTo("Question 7?");
        }
        try (AgentMemory reopened = AgentMemory.builder().h2File(dir.resolve("memory")).build()) {
            assertThat(texts(reopened.chatMemoryStore().getMessages(ALICE)))
                    .containsExactly("Question 5?", "Noted.", "Question 6?", "Noted.", "Question 7?", "Noted.");
            assertThat(reopened.engine().messages().history(reopened.caller(ALICE), ALICE.session()))
                    .hasSize(18);
        }
    }

    @Test
    void should_keep_the_question_of_a_failed_model_call_for_the_next_turn_and_store_it_with_the_next_question() {
        try (CountedAssistant a = new CountedAssistant(JdbcStores.h2File(dir.resolve("memory")), 20)) {
            a.assistant.chat(ALICE, "Hello, I am Alice.");
            a.answer.set(r -> {
                throw new IllegalStateException("model unavailable");
            });
            assertThatThrownBy(() -> a.assistant.chat(ALICE, "Where is my order?")).hasMessageContaining("model unavailable");
            a.answer.set(null);

            Map<Kind, Long> next = a.countTurn(ALICE, "Are you there?");

            // the next write stores the failed turn's question (with this one), then the reply
            assertThat(next).isEqualTo(only(Kind.APPEND, 2));
            ChatRequest request = a.model.lastRequest();
            assertThat(texts(request.messages().subList(0, request.messages().size() - 1)))
                    .containsExactly("Hello, I am Alice.", "Noted.", "Where is my order?");
        }
        try (AgentMemory reopened = AgentMemory.builder().h2File(dir.resolve("memory")).build()) {
            assertThat(texts(reopened.chatMemoryStore().getMessages(ALICE))).containsExactly(
                    "Hello, I am Alice.", "Noted.", "Where is my order?", "Are you there?", "Noted.");
        }
    }

    @Test
    void should_store_the_question_of_a_failed_model_call_when_the_memory_closes() {
        try (CountedAssistant a = new CountedAssistant(JdbcStores.h2File(dir.resolve("memory")), 20)) {
            a.assistant.chat(ALICE, "Hello, I am Alice.");
            a.answer.set(r -> {
                throw new IllegalStateException("model unavailable");
            });
            assertThatThrownBy(() -> a.assistant.chat(ALICE, "Where is my order?")).hasMessageContaining("model unavailable");
            // in this process the question is in the memory, as LangChain4j keeps it
            assertThat(texts(a.memory.chatMemoryStore().getMessages(ALICE)))
                    .containsExactly("Hello, I am Alice.", "Noted.", "Where is my order?");
        }
        try (AgentMemory reopened = AgentMemory.builder().h2File(dir.resolve("memory")).build()) {
            assertThat(texts(reopened.chatMemoryStore().getMessages(ALICE)))
                    .containsExactly("Hello, I am Alice.", "Noted.", "Where is my order?");
        }
    }

    /**
     * Two instances over one shared store (in memory here, so that it runs without a server): while
     * A waits for its model, B serves a turn of the same session. A's reply, with its question,
     * continues the sequence A saw, so the store refuses it; A reads B's turn and stores its own
     * after it, once, and B's turn stays in the window (it is not evicted by a list read before it).
     */
    @Test
    void should_store_a_turn_once_after_another_instance_stored_a_turn_during_its_model_call() {
        dev.agentmemory.core.store.InMemoryEventStore shared = new dev.agentmemory.core.store.InMemoryEventStore();
        try (CountedAssistant a = new CountedAssistant(new Unclosed(shared), 20);
             CountedAssistant b = new CountedAssistant(new Unclosed(shared), 20)) {
            a.assistant.chat(ALICE, "Hello, I am Alice.");
            b.assistant.chat(ALICE, "Hello again.");
            a.assistant.chat(ALICE, "Anyone there?");
            a.answer.set(r -> {
                b.assistant.chat(ALICE, "Meanwhile, on B.");
                return AiMessage.from("Answer on A.");
            });

            Map<Kind, Long> counts = a.countTurn(ALICE, "Question on A?");

            // the turn's check, B's turn read once, the refused append and the one made again
            assertThat(counts).isEqualTo(only(Kind.HEAD_CHECK, 1, Kind.READ, 1, Kind.APPEND, 2));
            List<String> expected = List.of("Hello, I am Alice.", "Noted.", "Hello again.", "Noted.", "Anyone there?",
                    "Noted.", "Meanwhile, on B.", "Noted.", "Question on A?", "Answer on A.");
            for (CountedAssistant instance : List.of(a, b)) {
                assertThat(instance.memory.engine().messages().history(instance.memory.caller(ALICE), ALICE.session())
                        .values().stream().map(m -> m.text()).toList()).isEqualTo(expected);
                assertThat(texts(instance.memory.chatMemoryStore().getMessages(ALICE))).isEqualTo(expected);
            }
        }
    }

    /** A shared store that the memories over it do not close. */
    private static final class Unclosed extends dev.agentmemory.core.spi.EventStore.ForwardingEventStore {
        Unclosed(dev.agentmemory.core.spi.EventStore delegate) {
            super(delegate);
        }

        @Override
        public void close() {
        }
    }

    /** The last user message of a request, without the memory block. */
    static String lastUser(CountedAssistant a, ChatRequest request) {
        return a.memory.framer().stripFrames(dev.agentmemory.testing.langchain4j.ScriptedChatModel.lastUserText(request));
    }

    static List<String> texts(List<ChatMessage> messages) {
        return messages.stream().map(m -> m.type() == ChatMessageType.USER ? ((UserMessage) m).singleText()
                : m instanceof AiMessage ai ? ai.text() : m.type().name()).toList();
    }
}

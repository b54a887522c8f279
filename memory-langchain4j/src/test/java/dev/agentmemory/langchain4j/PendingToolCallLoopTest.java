package dev.agentmemory.langchain4j;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.testing.langchain4j.ScriptedChatModel;
import dev.langchain4j.agent.tool.CompensateFor;
import dev.langchain4j.agent.tool.P;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolMemoryId;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.store.memory.chat.ChatMemoryStore;
import dev.langchain4j.store.memory.chat.InMemoryChatMemoryStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 22, item 1, as an application meets it: a tool loop that reads the chat memory between a
 * call and its results (written by hand, or AiServices' own when it compensates a failed round)
 * sees what it would see with {@link InMemoryChatMemoryStore}, and the requests a model receives
 * never carry a call without its results, after a failed turn and after a restart.
 */
class PendingToolCallLoopTest {

    private static final SessionRef ALICE = new SessionRef("acme", "alice", "s1");

    @TempDir
    Path dir;

    private static ToolExecutionRequest weather(String id, String city) {
        return ToolExecutionRequest.builder().id(id).name("weather").arguments("{\"city\":\"" + city + "\"}").build();
    }

    /** Calls the weather tool for Paris and Rome once per user message, then answers with the results. */
    private static ScriptedChatModel weatherModel() {
        return new ScriptedChatModel(r -> {
            List<ChatMessage> messages = r.messages();
            ChatMessage last = messages.get(messages.size() - 1);
            if (last instanceof ToolExecutionResultMessage) {
                return AiMessage.from(String.join(", ", ScriptedChatModel.toolResults(messages.subList(
                        Math.max(0, messages.size() - 2), messages.size()))));
            }
            int turn = (int) messages.stream().filter(m -> m instanceof UserMessage).count();
            return AiMessage.from("checking", List.of(weather("w" + turn + "a", "Paris"), weather("w" + turn + "b", "Rome")));
        });
    }

    /**
     * A tool loop written by hand: the user message, then model calls until an answer without
     * calls; before each result it reads the memory (as a loop does that logs or checks what it
     * is about to send), into {@code seen}.
     */
    private static String handWrittenTurn(ChatMemory memory, ChatModel model, String text, List<List<ChatMessage>> seen) {
        memory.add(UserMessage.from(text));
        while (true) {
            AiMessage answer = model.chat(ChatRequest.builder().messages(memory.messages()).build()).aiMessage();
            memory.add(answer);
            if (!answer.hasToolExecutionRequests()) {
                return answer.text();
            }
            for (ToolExecutionRequest request : answer.toolExecutionRequests()) {
                seen.add(memory.messages());
                String city = request.arguments().replaceAll(".*\"city\":\"([^\"]*)\".*", "$1");
                memory.add(ToolExecutionResultMessage.from(request, "sunny in " + city));
            }
        }
    }

    /** What a hand-written loop sees and sends over {@code store}: two turns, a window of six messages. */
    private record LoopRun(List<List<ChatMessage>> seen, List<ChatRequest> requests, List<String> answers) {
    }

    private static LoopRun handWrittenLoop(ChatMemoryStore first, Function<ChatMemoryStore, ChatMemoryStore> betweenTurns) {
        ScriptedChatModel model = weatherModel();
        List<List<ChatMessage>> seen = new ArrayList<>();
        List<String> answers = new ArrayList<>();
        ChatMemory memory = MessageWindowChatMemory.builder().id(ALICE).maxMessages(6).chatMemoryStore(first).build();
        answers.add(handWrittenTurn(memory, model, "weather?", seen));
        ChatMemoryStore second = betweenTurns.apply(first);
        memory = MessageWindowChatMemory.builder().id(ALICE).maxMessages(6).chatMemoryStore(second).build();
        answers.add(handWrittenTurn(memory, model, "tomorrow?", seen));
        return new LoopRun(seen, model.requests(), answers);
    }

    @Test
    void should_show_a_hand_written_loop_its_call_between_the_call_and_its_results_as_the_in_memory_store_does() {
        // given: the reference run on LangChain4j's store
        LoopRun reference = handWrittenLoop(new InMemoryChatMemoryStore(), store -> store);
        AiMessage call = AiMessage.from("checking", List.of(weather("w1a", "Paris"), weather("w1b", "Rome")));
        assertThat(reference.seen().get(0)).containsExactly(UserMessage.from("weather?"), call);
        assertThat(reference.seen().get(1)).containsExactly(UserMessage.from("weather?"), call,
                ToolExecutionResultMessage.from(weather("w1a", "Paris"), "sunny in Paris"));
        assertThat(reference.answers()).containsExactly("sunny in Paris, sunny in Rome", "sunny in Paris, sunny in Rome");

        // when: the same loop on ours, over an in-memory engine, and over an H2 file reopened between the turns
        LoopRun engine;
        try (MemoryEngine shared = MemoryEngine.builder().build(); AgentMemory memory = AgentMemory.builder().engine(shared).build()) {
            engine = handWrittenLoop(memory.chatMemoryStore(), store -> store);
        }
        List<AgentMemory> opened = new ArrayList<>();
        LoopRun file;
        try {
            opened.add(AgentMemory.builder().h2File(dir.resolve("memory")).build());
            file = handWrittenLoop(opened.get(0).chatMemoryStore(), store -> {
                opened.get(0).close();
                opened.add(AgentMemory.builder().h2File(dir.resolve("memory")).build());
                return opened.get(1).chatMemoryStore();
            });
        } finally {
            opened.forEach(AgentMemory::close);
        }

        // then: the same reads between calls and results, the same requests, none with an unanswered call
        for (LoopRun ours : List.of(engine, file)) {
            assertThat(ours.seen()).isEqualTo(reference.seen());
            assertThat(ours.requests()).isEqualTo(reference.requests());
            assertThat(ours.answers()).isEqualTo(reference.answers());
            for (ChatRequest request : ours.requests()) {
                assertThat(ToolCallPairing.danglingToolMessages(request.messages())).as("orphans in %s", request.messages())
                        .isEmpty();
            }
        }
        assertThat(reference.seen()).hasSize(4);
        assertThat(reference.requests()).hasSize(4);
    }

    // ------------------------------------------------------------------ AiServices

    interface Assistant {
        String chat(@MemoryId SessionRef session, @dev.langchain4j.service.UserMessage String text);
    }

    /** Books a hotel (undone when another tool of the round fails) and charges a card that is always declined. */
    static final class Trip {
        final List<String> log = new ArrayList<>();

        @Tool("Books a hotel")
        String bookHotel(@P("city") String city) {
            log.add("booked " + city);
            return "hotel booked in " + city;
        }

        @CompensateFor("bookHotel")
        void cancelHotel(String city) {
            log.add("cancelled " + city);
        }

        @Tool("Charges the card")
        String chargeCard(@P("amount") int amount) {
            throw new IllegalStateException("card declined for " + amount);
        }
    }

    /** One AiServices turn that books and charges in one round, compensating on the failure, over {@code store}. */
    private static ScriptedChatModel compensatedTurn(ChatMemoryStore store, Trip trip) {
        ScriptedChatModel model = new ScriptedChatModel(r -> {
            ChatMessage last = r.messages().get(r.messages().size() - 1);
            if (last instanceof ToolExecutionResultMessage) {
                return AiMessage.from("Nothing is booked: the card was declined.");
            }
            return AiMessage.from(List.of(
                    ToolExecutionRequest.builder().id("c1").name("bookHotel").arguments("{\"city\":\"Paris\"}").build(),
                    ToolExecutionRequest.builder().id("c2").name("chargeCard").arguments("{\"amount\":300}").build()));
        });
        Assistant assistant = AiServices.builder(Assistant.class).chatModel(model)
                .chatMemoryProvider(id -> MessageWindowChatMemory.builder().id(id).maxMessages(10).chatMemoryStore(store).build())
                .tools(trip).compensateOnToolErrors(true).build();
        assertThat(assistant.chat(ALICE, "book my trip")).isEqualTo("Nothing is booked: the card was declined.");
        return model;
    }

    @Test
    void should_keep_the_call_when_ai_services_rewrites_the_memory_between_a_call_and_its_results() {
        // given: AiServices, compensating a failed round, reads the memory after the call and
        // before its results and sets it back (LangChain4j 1.19's rollback of the booked hotel)
        Trip referenceTrip = new Trip();
        InMemoryChatMemoryStore referenceStore = new InMemoryChatMemoryStore();
        ScriptedChatModel reference = compensatedTurn(referenceStore, referenceTrip);
        assertThat(referenceTrip.log).containsExactly("booked Paris", "cancelled Paris");
        List<ChatMessage> second = reference.requests().get(1).messages();
        assertThat(second).hasSize(4);
        assertThat(((ToolExecutionResultMessage) second.get(2)).text()).contains("rolled back");
        assertThat(((ToolExecutionResultMessage) second.get(3)).text()).contains("card declined for 300");

        for (boolean file : List.of(false, true)) {
            try (AgentMemory memory = file ? AgentMemory.builder().h2File(dir.resolve("trip")).build()
                    : AgentMemory.builder().build()) {
                // when
                Trip trip = new Trip();
                ScriptedChatModel ours = compensatedTurn(memory.chatMemoryStore(), trip);

                // then: the model was shown the call with both results, as with LangChain4j's store
                assertThat(ours.requests()).isEqualTo(reference.requests());
                assertThat(trip.log).isEqualTo(referenceTrip.log);
                assertThat(memory.chatMemoryStore().getMessages(ALICE)).isEqualTo(referenceStore.getMessages(ALICE));
                for (ChatRequest request : ours.requests()) {
                    assertThat(ToolCallPairing.danglingToolMessages(request.messages())).isEmpty();
                }
            }
        }
    }

    /** Tells the weather; while it runs, reads the chat memory of the session it runs for. */
    static final class Weather {
        private final ChatMemoryStore store;
        final List<List<ChatMessage>> seen = new ArrayList<>();

        Weather(ChatMemoryStore store) {
            this.store = store;
        }

        @Tool("Tells the weather in a city")
        String weather(@ToolMemoryId SessionRef session, @P("city") String city) {
            seen.add(store.getMessages(session));
            return "sunny in " + city;
        }
    }

    private static Assistant assistant(AgentMemory memory, ChatModel model, Weather weather) {
        return AiServices.builder(Assistant.class).chatModel(model).chatMemoryProvider(memory.chatMemoryProvider())
                .retrievalAugmentor(memory.retrievalAugmentor()).tools(weather).build();
    }

    /** Calls weather for Paris and Rome, answers from the results; "teleport" gets a call to a tool that does not exist. */
    private static ScriptedChatModel travelModel() {
        int[] calls = {0};
        return new ScriptedChatModel(r -> {
            ChatMessage last = r.messages().get(r.messages().size() - 1);
            if (last instanceof ToolExecutionResultMessage) {
                return AiMessage.from(String.join(", ", ScriptedChatModel.toolResults(r.messages().subList(
                        r.messages().size() - 2, r.messages().size()))));
            }
            String text = ScriptedChatModel.lastUserText(r);
            calls[0]++;
            if (text.contains("teleport")) {
                return AiMessage.from(List.of(ToolExecutionRequest.builder().id("t" + calls[0]).name("teleport")
                        .arguments("{}").build()));
            }
            if (text.contains("weather")) {
                return AiMessage.from(List.of(weather("p" + calls[0], "Paris"), weather("r" + calls[0], "Rome")));
            }
            return AiMessage.from("hi");
        });
    }

    @Test
    void should_never_send_ai_services_a_call_without_its_results_after_a_failed_turn_or_a_restart() {
        Path db = dir.resolve("memory");
        List<String> typed = new ArrayList<>();
        try (AgentMemory memory = AgentMemory.builder().h2File(db).build()) {
            // a remembered preference, so that every turn's user message carries a memory block
            Caller caller = memory.caller(ALICE);
            memory.engine().write(caller, Proposal.set(caller.persistent(), "reply.language", "English")
                    .kind(Kind.PREFERENCE).source(Source.USER, "msg-0").build());
            ScriptedChatModel model = travelModel();
            Weather weather = new Weather(memory.chatMemoryStore());
            Assistant assistant = assistant(memory, model, weather);

            // when: a round of two calls; the tool reads the memory while each call runs
            assertThat(assistant.chat(ALICE, "weather in Paris and Rome?")).isEqualTo("sunny in Paris, sunny in Rome");
            typed.add("weather in Paris and Rome?");

            // then: each saw the call waiting for its results as it was added (AiServices runs every
            // call of a round before it adds their results), without the turn's memory block
            AiMessage call = AiMessage.from(List.of(weather("p1", "Paris"), weather("r1", "Rome")));
            UserMessage user = UserMessage.from("weather in Paris and Rome?");
            assertThat(weather.seen).containsExactly(List.of(user, call), List.of(user, call));

            // when: the model calls a tool that does not exist (AiServices stores the call and throws)
            assertThatThrownBy(() -> assistant.chat(ALICE, "teleport me")).isInstanceOf(RuntimeException.class);
            typed.add("teleport me");
            assertThat(memory.chatMemoryStore().getMessages(ALICE)).last()
                    .isEqualTo(AiMessage.from(List.of(ToolExecutionRequest.builder().id("t2").name("teleport").arguments("{}").build())));

            // then: the next turn's request carries no call without its results
            assertThat(assistant.chat(ALICE, "hello?")).isEqualTo("hi");
            WindowRequests.assertValid(model.lastRequest(), memory.framer(), "hello?", typed);
            typed.add("hello?");

            // when: another failed turn, and the process stops
            assertThatThrownBy(() -> assistant.chat(ALICE, "teleport me again")).isInstanceOf(RuntimeException.class);
            typed.add("teleport me again");
            for (ChatRequest request : model.requests()) {
                assertThat(ToolCallPairing.danglingToolMessages(request.messages())).as("orphans in %s", request.messages())
                        .isEmpty();
            }
        }
        try (AgentMemory memory = AgentMemory.builder().h2File(db).build()) {
            ScriptedChatModel model = travelModel();
            Assistant assistant = assistant(memory, model, new Weather(memory.chatMemoryStore()));

            // then: after the restart the call is left out at once, and the next request is valid
            List<ChatMessage> reloaded = memory.chatMemoryStore().getMessages(ALICE);
            assertThat(reloaded).last().isEqualTo(UserMessage.from("teleport me again"));
            assertThat(ToolCallPairing.danglingToolMessages(reloaded)).isEmpty();
            assertThat(assistant.chat(ALICE, "hello again?")).isEqualTo("hi");
            WindowRequests.assertValid(model.lastRequest(), memory.framer(), "hello again?", typed);
        }
    }
}

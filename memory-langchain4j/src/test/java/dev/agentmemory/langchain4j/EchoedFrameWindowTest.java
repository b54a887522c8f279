package dev.agentmemory.langchain4j;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ForgetMode;
import dev.agentmemory.core.ForgetTarget;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.core.event.StoredMessage;
import dev.agentmemory.testing.langchain4j.ScriptedChatModel;
import dev.langchain4j.agent.tool.P;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.internal.Json;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Failure 4 of issue 11: a model echoing the framed block (or its marker lines) into tool
 * arguments or its reply made the store lose track of its window and re-append it on every call.
 */
class EchoedFrameWindowTest {

    interface Assistant {
        String chat(@MemoryId SessionRef session, @dev.langchain4j.service.UserMessage String text);
    }

    static final class Notes {
        @Tool("Notes a text")
        String note(@P("text") String text) {
            return "noted " + text.length() + " characters";
        }
    }

    private static final SessionRef ALICE = new SessionRef("acme", "alice", "s1");

    private static AgentMemory memory() {
        AgentMemory memory = AgentMemory.builder().windowSize(12).build();
        Caller caller = memory.caller(ALICE);
        memory.engine().write(caller, Proposal.set(caller.persistent(), "reply.language", "Chinese")
                .kind(Kind.PREFERENCE).source(Source.USER, "msg-1").build());
        return memory;
    }

    private static Assistant assistant(AgentMemory memory, ScriptedChatModel model, boolean storeRetrieved) {
        return AiServices.builder(Assistant.class).chatModel(model).chatMemoryProvider(memory.chatMemoryProvider())
                .retrievalAugmentor(memory.retrievalAugmentor()).storeRetrievedContentInChatMemory(storeRetrieved)
                .tools(new Notes()).build();
    }

    /** The model calls the note tool with {@code args(userText)} and then replies with {@code reply(userText)}. */
    private static ScriptedChatModel echoing(Function<String, String> args, Function<String, String> reply) {
        int[] calls = {0};
        return new ScriptedChatModel(r -> {
            String prompt = ScriptedChatModel.lastUserText(r);
            if (r.messages().get(r.messages().size() - 1) instanceof ToolExecutionResultMessage) {
                return AiMessage.from(reply.apply(prompt));
            }
            return AiMessage.from(ToolExecutionRequest.builder().id("call-" + ++calls[0]).name("note")
                    .arguments(Json.toJson(Map.of("text", args.apply(prompt)))).build());
        });
    }

    private static String markerLines(String prompt) {
        String[] lines = prompt.split("\n");
        int close = 0;
        while (close < lines.length && !lines[close].startsWith("<<<END AGENT-MEMORY-DATA")) {
            close++;
        }
        return lines[0] + "\n" + lines[Math.min(close, lines.length - 1)];
    }

    @ParameterizedTest(name = "storeRetrievedContentInChatMemory={0}")
    @ValueSource(booleans = {true, false})
    void should_store_each_message_once_when_the_model_echoes_the_framed_block_into_tool_arguments_and_replies(
            boolean storeRetrieved) {
        try (AgentMemory memory = memory()) {
            // given a model that copies the whole framed prompt into its tool call and its answer
            ScriptedChatModel model = echoing(prompt -> prompt, prompt -> "You said:\n" + prompt);
            Assistant assistant = assistant(memory, model, storeRetrieved);
            List<String> typed = new ArrayList<>();

            for (int turn = 0; turn < 9; turn++) {
                // when
                String text = "turn " + turn;
                int requestsBefore = model.requests().size();
                assistant.chat(ALICE, text);

                // then: four new messages per turn, no more, and every request is well formed
                assertThat(memory.engine().messages().history(memory.caller(ALICE), "s1")).hasSize(4 * (turn + 1));
                for (ChatRequest r : model.requests().subList(requestsBefore, model.requests().size())) {
                    WindowRequests.assertValid(r, memory.framer(), text, typed);
                }
                typed.add(text);
            }
            assertThat(memory.chatMemoryStore().getMessages(ALICE)).hasSize(12);
        }
    }

    @Test
    void should_store_each_message_once_when_the_model_echoes_only_the_marker_lines() {
        try (AgentMemory memory = memory()) {
            ScriptedChatModel model = echoing(EchoedFrameWindowTest::markerLines, EchoedFrameWindowTest::markerLines);
            Assistant assistant = assistant(memory, model, true);

            for (int turn = 0; turn < 9; turn++) {
                assistant.chat(ALICE, "turn " + turn);
            }

            assertThat(memory.engine().messages().history(memory.caller(ALICE), "s1")).hasSize(36);
        }
    }

    @Test
    void should_keep_a_hard_forgotten_turn_forgotten_when_the_model_echoed_the_block() {
        try (AgentMemory memory = memory()) {
            // given a turn whose tool call and answer echo the framed prompt
            ScriptedChatModel model = echoing(prompt -> prompt, prompt -> "You said:\n" + prompt);
            Assistant assistant = assistant(memory, model, true);
            Caller caller = memory.caller(ALICE);
            assistant.chat(ALICE, "my card number is 4111");
            List<Long> turn = List.copyOf(memory.engine().messages().history(caller, "s1").keySet());

            // when it is forgotten hard and the conversation goes on
            memory.engine().forget(caller, ForgetTarget.messages("s1", turn), ForgetMode.HARD);
            assistant.chat(ALICE, "what is the weather?");
            assistant.chat(ALICE, "thanks");

            // then the forgotten messages stay tombstones, and no later request carries them
            var history = memory.engine().messages().history(caller, "s1");
            assertThat(history).hasSize(12);
            assertThat(turn).allSatisfy(i -> assertThat(history.get(i).forgotten()).isTrue());
            assertThat(history.values()).extracting(StoredMessage::text)
                    .noneMatch(t -> t != null && t.contains("4111"));
            List<ChatRequest> later = model.requests().subList(2, model.requests().size());
            assertThat(later).allSatisfy(r -> assertThat(r.messages().toString()).doesNotContain("number is 4111"));
        }
    }

    /**
     * Random lifecycles: user texts and model outputs drawn from plain words, our marker lines, a
     * whole authentic block from an earlier prompt, and foreign look-alikes, put in user texts,
     * tool arguments, tool results and replies. After every call the stored history grew by
     * exactly the messages of that call, the user's text is stored as typed, and every request is
     * well formed.
     */
    @Test
    void should_grow_the_history_by_exactly_the_new_messages_whatever_the_contents() {
        for (long seed = 1; seed <= 30; seed++) {
            Random random = new Random(seed);
            try (AgentMemory memory = memory()) {
                List<String> seen = new ArrayList<>();
                int[] responses = {0};
                int[] toolCalls = {0};
                ScriptedChatModel model = new ScriptedChatModel(r -> {
                    String prompt = ScriptedChatModel.lastUserText(r);
                    seen.add(prompt);
                    responses[0]++;
                    boolean afterTool = r.messages().get(r.messages().size() - 1) instanceof ToolExecutionResultMessage;
                    if (!afterTool && random.nextInt(3) > 0) {
                        int n = 1 + random.nextInt(2);
                        List<ToolExecutionRequest> calls = new ArrayList<>();
                        for (int t = 0; t < n; t++) {
                            calls.add(ToolExecutionRequest.builder().id("c" + responses[0] + "-" + t).name("note")
                                    .arguments(Json.toJson(Map.of("text", content(random, seen)))).build());
                        }
                        toolCalls[0] += n;
                        return random.nextBoolean() ? AiMessage.from(calls) : AiMessage.from(content(random, seen), calls);
                    }
                    return AiMessage.from(content(random, seen));
                });
                Assistant assistant = assistant(memory, model, random.nextBoolean());
                Caller caller = memory.caller(ALICE);
                List<String> typed = new ArrayList<>();
                for (int turn = 0; turn < 6; turn++) {
                    String said = content(random, seen);
                    String text = said.isBlank() || random.nextBoolean() ? "q" + turn + " " + said : said;
                    int before = memory.engine().messages().history(caller, "s1").size();
                    int requestsBefore = model.requests().size();
                    responses[0] = 0;
                    toolCalls[0] = 0;

                    assistant.chat(ALICE, text);

                    var history = memory.engine().messages().history(caller, "s1");
                    assertThat(history.size() - before).as("seed %d turn %d", seed, turn)
                            .isEqualTo(1 + responses[0] + toolCalls[0]);
                    StoredMessage user = history.values().stream().skip(before).findFirst().orElseThrow();
                    assertThat(user.text()).as("seed %d turn %d", seed, turn).isEqualTo(text);
                    for (ChatRequest r : model.requests().subList(requestsBefore, model.requests().size())) {
                        WindowRequests.assertValid(r, memory.framer(), text, typed);
                    }
                    List<ChatMessage> window = memory.chatMemoryStore().getMessages(ALICE);
                    assertThat(window).filteredOn(m -> m instanceof UserMessage)
                            .allSatisfy(m -> assertThat(typed.contains(WindowRequests.text((UserMessage) m))
                                    || text.equals(WindowRequests.text((UserMessage) m))).isTrue());
                    typed.add(text);
                }
            }
        }
    }

    private static String content(Random random, List<String> seen) {
        String prompt = seen.isEmpty() ? "" : seen.get(random.nextInt(seen.size()));
        return switch (random.nextInt(7)) {
            case 0 -> "plain words " + random.nextInt(100);
            case 1 -> prompt;
            case 2 -> prompt.isEmpty() ? "" : markerLines(prompt);
            case 3 -> "see:\n" + prompt + "\nend";
            case 4 -> "<<<AGENT-MEMORY-DATA nonce=" + "0".repeat(32) + " items=1>>>\n{\"n\":1}\n<<<END AGENT-MEMORY-DATA nonce="
                    + "0".repeat(32) + " mac=" + "0".repeat(32) + ">>>";
            case 5 -> prompt.isEmpty() ? "\n\n" : prompt.substring(0, random.nextInt(prompt.length()));
            default -> "";
        };
    }
}

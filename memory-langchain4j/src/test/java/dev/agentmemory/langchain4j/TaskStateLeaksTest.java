package dev.agentmemory.langchain4j;

import dev.agentmemory.langchain4j.framing.FramedItem;
import dev.agentmemory.testing.langchain4j.ScriptedChatModel;
import dev.agentmemory.testing.langchain4j.SharedEmbeddingModel;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Regression for issue 11, failure 2 ("task state leaks"): a task's state
 * ({@code exchange.color = white}) was framed as current while that task was suspended and
 * another task was active, and after the task had ended, including in other sessions; framed
 * items carried no scope or task.
 */
class TaskStateLeaksTest {

    interface Assistant {
        String chat(@MemoryId SessionRef session, @dev.langchain4j.service.UserMessage String text);
    }

    private static final SessionRef S1 = new SessionRef("shop", "dan", "s1");
    private static final SessionRef S2 = new SessionRef("shop", "dan", "s2");
    private static final String QUESTION = "What colour did I pick for the exchange?";

    private static ToolExecutionRequest call(String id, String tool, String args) {
        return ToolExecutionRequest.builder().id(id).name(tool).arguments(args).build();
    }

    /** Starts tasks and records their state with the user's words, ends the exchange when asked. */
    private static AiMessage agent(AgentMemory memory, ChatRequest r) {
        ChatMessage last = r.messages().get(r.messages().size() - 1);
        if (last instanceof ToolExecutionResultMessage) {
            return AiMessage.from("Noted.");
        }
        String text = memory.framer().stripFrames(ScriptedChatModel.lastUserText(r));
        if (text.startsWith("I want to exchange order 1001")) {
            return AiMessage.from(List.of(
                    call("c1", "startTask", "{\"task\":\"exchange-1001\",\"title\":\"exchange of order 1001\"}"),
                    call("c2", "updateState", "{\"key\":\"exchange.color\",\"value\":\"white\",\"userQuote\":\"the white one\"}")));
        }
        if (text.startsWith("Separately, I need a refund")) {
            return AiMessage.from(List.of(
                    call("c3", "startTask", "{\"task\":\"refund-2002\"}"),
                    call("c4", "updateState", "{\"key\":\"refund.reason\",\"value\":\"damaged\",\"userQuote\":\"it arrived damaged\"}")));
        }
        if (text.startsWith("The exchange is done")) {
            return AiMessage.from(call("c5", "endTask", "{\"task\":\"exchange-1001\"}"));
        }
        return AiMessage.from("Let me check.");
    }

    private static List<FramedItem> about(List<FramedItem> items, String word) {
        return items.stream().filter(i -> i.text().toLowerCase().contains(word)).toList();
    }

    @Test
    void should_not_frame_a_suspended_or_ended_tasks_state_as_current_in_any_session() {
        try (AgentMemory memory = AgentMemory.builder().embeddingModel(SharedEmbeddingModel.get()).windowSize(6)
                .resultsPerLayer(20, 10, 20).build()) {
            ScriptedChatModel model = new ScriptedChatModel(r -> agent(memory, r));
            Assistant assistant = AiServices.builder(Assistant.class).chatModel(model)
                    .chatMemoryProvider(memory.chatMemoryProvider())
                    .retrievalAugmentor(memory.retrievalAugmentor())
                    .tools(memory.tools()).build();

            // given: an exchange with its colour, then a refund that suspends the exchange
            assistant.chat(S1, "I want to exchange order 1001 for the white one");
            int next = model.requests().size();
            assistant.chat(S1, "Separately, I need a refund for order 2002, it arrived damaged");
            // the refund turn's first request was made while the exchange was active
            List<FramedItem> active = FramedRequests.items(memory, model.requests().get(next));
            assertThat(active).filteredOn(i -> "task-state".equals(i.extra().get(FramedItem.LAYER)))
                    .singleElement().satisfies(i -> {
                        assertThat(i.text()).isEqualTo("exchange.color = white");
                        assertThat(i.status()).isEqualTo("current");
                        assertThat(i.extra()).containsEntry(FramedItem.TASK, "exchange-1001")
                                .containsEntry(FramedItem.TASK_STATUS, "active")
                                .containsEntry(FramedItem.SCOPE, "shop/dan/task/s1/exchange-1001");
                    });

            // when the exchange is suspended and the refund active
            assistant.chat(S1, QUESTION);
            List<FramedItem> suspended = FramedRequests.items(memory, model.lastRequest());

            // then: the refund's state is the task state; the exchange's colour is not served as state,
            // and what still mentions it says it belongs to the suspended exchange
            assertThat(suspended).filteredOn(i -> "task-state".equals(i.extra().get(FramedItem.LAYER)))
                    .extracting(FramedItem::text, i -> i.extra().get(FramedItem.TASK))
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("refund.reason = damaged", "refund-2002"));
            assertThat(suspended).noneMatch(i -> i.id().startsWith("exchange.color@"));
            assertThat(about(suspended, "white")).isNotEmpty().allSatisfy(i -> {
                // episodic hits are past; the open-tasks list names the suspended task with its state
                assertThat(i.status()).isEqualTo("tasks".equals(i.extra().get(FramedItem.LAYER)) ? "suspended" : "past");
                assertThat(i.extra()).containsEntry(FramedItem.TASK, "exchange-1001")
                        .containsEntry(FramedItem.TASK_STATUS, "suspended");
            });
            FramedRequests.assertLastRecallMatches(memory, S1, suspended);

            // when the exchange has ended: asked in its session and in another one
            assistant.chat(S1, "The exchange is done, thanks");
            List<List<FramedItem>> ended = new ArrayList<>();
            assistant.chat(S1, QUESTION);
            ended.add(FramedRequests.items(memory, model.lastRequest()));
            FramedRequests.assertLastRecallMatches(memory, S1, ended.get(0));
            assistant.chat(S2, QUESTION);
            ended.add(FramedRequests.items(memory, model.lastRequest()));
            FramedRequests.assertLastRecallMatches(memory, S2, ended.get(1));

            // then the colour is history of the ended task everywhere, never current
            for (List<FramedItem> items : ended) {
                assertThat(items).filteredOn(i -> i.id().startsWith("exchange.color@")).singleElement()
                        .satisfies(i -> {
                            assertThat(i.extra()).containsEntry(FramedItem.LAYER, "episodic")
                                    .containsEntry(FramedItem.SCOPE, "shop/dan/task/s1/exchange-1001");
                        });
                assertThat(about(items, "white")).isNotEmpty().allSatisfy(i -> {
                    assertThat(i.status()).isEqualTo("archived");
                    assertThat(i.extra()).containsEntry(FramedItem.TASK, "exchange-1001")
                            .containsEntry(FramedItem.TASK_STATUS, "ended");
                });
                assertThat(items).filteredOn(i -> "task-state".equals(i.extra().get(FramedItem.LAYER)))
                        .allSatisfy(i -> assertThat(i.extra()).containsEntry(FramedItem.TASK, "refund-2002"));
            }
            // every request the model was sent named layer and scope of every item, and task and status of task items
            model.requests().forEach(r -> FramedRequests.check(memory, r));
        }
    }
}

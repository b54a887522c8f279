package dev.agentmemory.langchain4j;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.langchain4j.framing.FramedItem;
import dev.agentmemory.testing.langchain4j.ScriptedChatModel;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A full block keeps what matters: on a conversation long enough to make many summaries, a
 * question about a persistent fact still gets that fact framed; summaries come last (newest
 * first), framed as their text with their span, and the recall says per layer what was cut.
 */
class BlockBudgetOrderTest {

    interface Assistant {
        String chat(@MemoryId SessionRef session, @dev.langchain4j.service.UserMessage String text);
    }

    private static final SessionRef S = new SessionRef("acme", "ana", "long-chat");

    @Test
    void should_frame_the_persistent_fact_asked_about_before_summaries_when_the_block_is_full() {
        ScriptedChatModel summaries = new ScriptedChatModel(r -> AiMessage.from(
                "The user chatted about topic " + ScriptedChatModel.lastUserText(r).length() % 97
                        + " and the assistant answered at some length, with details that take room in the block."));
        try (AgentMemory memory = AgentMemory.builder().windowSize(4).summarizer(summaries, 2)
                .blockBudget(2_600, 900).build()) {
            ScriptedChatModel model = new ScriptedChatModel(r -> AiMessage.from("Sure."));
            Assistant assistant = AiServices.builder(Assistant.class).chatModel(model)
                    .chatMemoryProvider(memory.chatMemoryProvider())
                    .retrievalAugmentor(memory.retrievalAugmentor()).build();
            Caller caller = memory.caller(S);
            memory.engine().write(caller, Proposal.set(caller.persistent(), "policy.refund",
                    "refunds within 30 days with the receipt").kind(Kind.OBSERVATION).source(Source.SYSTEM).build());

            // given: a long conversation, summarized as it leaves the window
            for (int i = 0; i < 24; i++) {
                assistant.chat(S, "Small talk number " + i + " about the weather and other things");
            }

            // when the user asks about the persistent fact
            assistant.chat(S, "What is your refund policy?");

            // then: the fact is framed; every summary comes after every other item
            List<FramedItem> items = FramedRequests.items(memory, model.lastRequest());
            assertThat(items).extracting(FramedItem::text).contains("policy.refund = refunds within 30 days with the receipt");
            int firstSummary = -1;
            int lastOther = -1;
            for (int p = 0; p < items.size(); p++) {
                if ("summary".equals(items.get(p).extra().get(FramedItem.LAYER))) {
                    firstSummary = firstSummary < 0 ? p : firstSummary;
                } else {
                    lastOther = p;
                }
            }
            assertThat(firstSummary).as("summaries framed: %s", items).isGreaterThan(lastOther);
            List<String> framedSpans = items.stream().filter(i -> "summary".equals(i.extra().get(FramedItem.LAYER)))
                    .map(i -> i.extra().get("span")).toList();
            assertThat(framedSpans).as("newest first").isSortedAccordingTo((a, b) -> Integer.compare(
                    Integer.parseInt(b.replaceAll("messages (\\d+)-.*", "$1")),
                    Integer.parseInt(a.replaceAll("messages (\\d+)-.*", "$1"))));
            assertThat(items).filteredOn(i -> "summary".equals(i.extra().get(FramedItem.LAYER)))
                    .allSatisfy(i -> {
                        assertThat(i.text()).startsWith("The user chatted about topic");
                        assertThat(i.extra().get("span")).matches("messages \\d+-\\d+ of session long-chat, summarized .*");
                    });
            // and the recall says per layer what the budget cut: only summaries were cut
            Map<String, List<String>> cut = memory.lastRecall(S).orElseThrow().cutByLayer();
            assertThat(cut).containsOnlyKeys("summary");
            assertThat(cut.get("summary")).allSatisfy(line -> assertThat(line).contains("budget"));
        }
    }
}

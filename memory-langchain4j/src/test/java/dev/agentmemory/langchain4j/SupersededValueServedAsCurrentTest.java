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

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Regression for issue 11, failure 1 ("superseded values served as current"): the user set
 * {@code answer.language = French} (quoted remember), later {@code German}. A summary built while
 * French was current was still framed {@code "status":"current"}, and the past message "Please
 * answer in French from now on" was framed {@code "status":"past"} with no sign it was superseded.
 */
class SupersededValueServedAsCurrentTest {

    interface Assistant {
        String chat(@MemoryId SessionRef session, @dev.langchain4j.service.UserMessage String text);
    }

    private static final SessionRef S1 = new SessionRef("acme", "carla", "s1");
    private static final SessionRef S2 = new SessionRef("acme", "carla", "s2");

    /** Remembers a language with the user's quoted words, notes tool results, answers anything else briefly. */
    private static AiMessage agent(AgentMemory memory, ChatRequest r) {
        ChatMessage last = r.messages().get(r.messages().size() - 1);
        if (last instanceof ToolExecutionResultMessage) {
            return AiMessage.from("Noted.");
        }
        String text = memory.framer().stripFrames(ScriptedChatModel.lastUserText(r));
        for (String quote : List.of("answer in French from now on", "I prefer German")) {
            if (text.contains(quote)) {
                String language = quote.contains("French") ? "French" : "German";
                return AiMessage.from(ToolExecutionRequest.builder().id("c-" + language).name("remember")
                        .arguments("{\"key\":\"answer.language\",\"value\":\"" + language + "\",\"kind\":\"preference\","
                                + "\"userQuote\":\"" + quote + "\"}").build());
            }
        }
        return AiMessage.from("Sure.");
    }

    /** Summaries say which language the excerpt asked for. */
    private static final ScriptedChatModel SUMMARIES = new ScriptedChatModel(r -> {
        String excerpt = ScriptedChatModel.lastUserText(r);
        return AiMessage.from(excerpt.contains("German") ? "The user switched to answers in German."
                : excerpt.contains("French") ? "The user asked for answers in French." : "Small talk.");
    });

    private static FramedItem only(List<FramedItem> items, String layer, String textPart) {
        List<FramedItem> found = items.stream().filter(i -> layer.equals(i.extra().get(FramedItem.LAYER))
                && i.text().contains(textPart)).toList();
        assertThat(found).as("%s items saying %s in %s", layer, textPart, items).hasSize(1);
        return found.get(0);
    }

    @Test
    void should_frame_the_summary_and_the_past_message_as_superseded_by_german_when_french_was_replaced() {
        try (AgentMemory memory = AgentMemory.builder().embeddingModel(SharedEmbeddingModel.get()).windowSize(4)
                .summarizer(SUMMARIES, 2).resultsPerLayer(20, 10, 10).build()) {
            ScriptedChatModel model = new ScriptedChatModel(r -> agent(memory, r));
            Assistant assistant = AiServices.builder(Assistant.class).chatModel(model)
                    .chatMemoryProvider(memory.chatMemoryProvider())
                    .retrievalAugmentor(memory.retrievalAugmentor())
                    .tools(memory.tools()).build();

            // given: French stated and remembered, then pushed out of the window into a summary
            assistant.chat(S1, "Please answer in French from now on");
            assistant.chat(S1, "What is the weather like today?");
            assistant.chat(S1, "Tell me a joke");
            List<FramedItem> before = FramedRequests.items(memory, model.lastRequest());
            FramedItem summaryBefore = only(before, "summary", "French");
            assertThat(summaryBefore.status()).isEqualTo("current");
            assertThat(only(before, "persistent", "answer.language").text()).isEqualTo("answer.language = French");

            // when: the user switches to German
            assistant.chat(S1, "Actually, I prefer German now");
            assistant.chat(S1, "Which language should you answer in?");

            // then: German is the current value; the summary and the past message that say French
            // are superseded by answer.language@v2, in this session and in another one
            for (SessionRef asking : List.of(S1, S2)) {
                if (asking == S2) {
                    assistant.chat(S2, "Which language should you answer in?");
                }
                ChatRequest request = model.lastRequest();
                List<FramedItem> items = FramedRequests.items(memory, request);
                FramedItem german = only(items, "persistent", "answer.language");
                assertThat(german.text()).isEqualTo("answer.language = German");
                assertThat(german.status()).isEqualTo("current");
                if (asking == S1) { // in s2 the index hides it behind the newer summary that says German
                    FramedItem summary = only(items, "summary", "French");
                    assertThat(summary.status()).isEqualTo("superseded");
                    assertThat(summary.extra()).containsEntry(FramedItem.SUPERSEDED_BY, "answer.language@v2")
                            .containsEntry(FramedItem.SCOPE, "acme/carla/session/s1");
                }
                FramedItem said = only(items, "episodic", "Please answer in French from now on");
                assertThat(said.id()).isEqualTo("message:s1#0");
                assertThat(said.status()).isEqualTo("superseded");
                assertThat(said.extra()).containsEntry(FramedItem.SUPERSEDED_BY, "answer.language@v2")
                        .containsEntry(FramedItem.SCOPE, "acme/carla/session/s1");
                // nothing that says French is framed as current or as plain past
                assertThat(items).filteredOn(i -> i.text().contains("French"))
                        .allSatisfy(i -> assertThat(i.status()).isEqualTo("superseded"));
                FramedRequests.assertLastRecallMatches(memory, asking, items);
                assertThat(memory.lastRecall(asking).orElseThrow().used())
                        .filteredOn(c -> c.textSegment().text().contains("French"))
                        .allSatisfy(c -> assertThat(c.textSegment().metadata().toMap())
                                .containsEntry(MemoryContent.STATUS, "superseded")
                                .containsEntry(MemoryContent.SUPERSEDED_BY, "answer.language@v2"));
            }
            // every request the model was sent named layer and scope of every item
            model.requests().forEach(r -> FramedRequests.check(memory, r));
        }
    }

    @Test
    void should_keep_a_past_message_that_states_the_current_value_past_when_it_also_names_the_old_one() {
        try (AgentMemory memory = AgentMemory.builder().embeddingModel(SharedEmbeddingModel.get()).windowSize(2)
                .resultsPerLayer(20, 10, 10).build()) {
            ScriptedChatModel model = new ScriptedChatModel(r -> agent(memory, r));
            Assistant assistant = AiServices.builder(Assistant.class).chatModel(model)
                    .chatMemoryProvider(memory.chatMemoryProvider())
                    .retrievalAugmentor(memory.retrievalAugmentor())
                    .tools(memory.tools()).build();
            assistant.chat(S1, "Please answer in French from now on");
            assistant.chat(S1, "No more French, I prefer German");
            assistant.chat(S1, "Tell me a joke");

            assistant.chat(S2, "Which language, French or German, should you answer in?");

            List<FramedItem> items = FramedRequests.items(memory, model.lastRequest());
            assertThat(only(items, "episodic", "No more French").status()).isEqualTo("past");
            assertThat(only(items, "episodic", "Please answer in French").status()).isEqualTo("superseded");
        }
    }
}

package dev.agentmemory.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentmemory.langchain4j.framing.FramedItem;
import dev.agentmemory.testing.TestClock;
import dev.agentmemory.testing.langchain4j.ScriptedChatModel;
import dev.agentmemory.testing.langchain4j.SharedEmbeddingModel;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Past conversations recalled through {@code AiServices} (a scripted model, the real embedding
 * model, a clock moved across days): what the model is shown when a question's answer is in the
 * turn after the one that matches it, and when the question names a month.
 */
class RecallOfPastTurnsTest {

    interface Assistant {
        String chat(@MemoryId SessionRef session, @dev.langchain4j.service.UserMessage String text);
    }

    private static SessionRef session(String id) {
        return new SessionRef("acme", "alice", id);
    }

    /** Replies from a table (the user's text without the memory block), "OK." otherwise. */
    private static ScriptedChatModel replying(AgentMemory memory, Map<String, String> replies) {
        return new ScriptedChatModel(r -> AiMessage.from(replies.getOrDefault(
                memory.framer().stripFrames(ScriptedChatModel.lastUserText(r)), "OK.")));
    }

    private static Assistant assistant(AgentMemory memory, ScriptedChatModel model) {
        return AiServices.builder(Assistant.class).chatModel(model).chatMemoryProvider(memory.chatMemoryProvider())
                .retrievalAugmentor(memory.retrievalAugmentor()).build();
    }

    private static List<String> episodic(List<FramedItem> items) {
        return items.stream().filter(i -> "episodic".equals(i.extra().get(FramedItem.LAYER))).map(FramedItem::text).toList();
    }

    @Test
    void should_show_the_answer_given_right_after_the_turn_the_question_matches() {
        TestClock clock = new TestClock(Instant.parse("2024-03-02T09:00:00Z"));
        String answer = "The Remains of the Day, by Kazuo Ishiguro.";
        try (AgentMemory memory = AgentMemory.builder().engineSettings(e -> e.clock(clock)).embeddingModel(SharedEmbeddingModel.get()).build()) {
            ScriptedChatModel model = replying(memory, Map.of(
                    "Which book should I take on my flight to Oslo?", answer,
                    "My flight was delayed by two hours.", "Sorry to hear that.",
                    "I like reading on long trips.", "It makes the time pass.",
                    "The bookshop near the station closed.", "That is a pity.",
                    "I booked a hotel for the conference.", "Enjoy your stay.",
                    "Can I take two bags on a plane?", "Usually only one.",
                    "Norway is cold in winter.", "Pack a warm coat."));
            Assistant assistant = assistant(memory, model);
            // given: the question and its answer in one session, then days of other talk
            assistant.chat(session("s1"), "Which book should I take on my flight to Oslo?");
            int day = 1;
            for (String text : List.of("My flight was delayed by two hours.", "I like reading on long trips.",
                    "The bookshop near the station closed.", "I booked a hotel for the conference.",
                    "Can I take two bags on a plane?", "Norway is cold in winter.")) {
                clock.advance(Duration.ofDays(1));
                assistant.chat(session("s" + ++day), text);
            }
            clock.advance(Duration.ofDays(1));

            // when
            assistant.chat(session("today"), "What book did I take on my flight to Oslo?");

            // then: the model is shown the answer, a past message of session s1, and why it was chosen
            List<FramedItem> items = FramedRequests.items(memory, model.lastRequest());
            assertThat(episodic(items)).contains(answer);
            FramedRequests.assertLastRecallMatches(memory, session("today"), items);
            assertThat(memory.lastRecall(session("today")).orElseThrow().used())
                    .filteredOn(c -> c.textSegment().text().equals(answer)).singleElement()
                    .satisfies(c -> assertThat(c.textSegment().metadata().getString(MemoryContent.WHY)).contains("neighbour"));
        }
    }

    @Test
    void should_show_first_what_was_said_in_the_month_the_question_names() {
        TestClock clock = new TestClock(Instant.parse("2023-05-20T09:00:00Z"));
        try (AgentMemory memory = AgentMemory.builder().engineSettings(e -> e.clock(clock)).embeddingModel(SharedEmbeddingModel.get()).build()) {
            ScriptedChatModel model = replying(memory, Map.of());
            Assistant assistant = assistant(memory, model);
            // given: camping in May, then in July (closer to the question's words)
            assistant.chat(session("may"), "We camped by Lake Tahoe with the kids.");
            clock.advance(Duration.ofDays(56));
            assistant.chat(session("july"), "We went camping in the mountains.");
            clock.advance(Duration.ofDays(30));

            // when
            assistant.chat(session("today"), "Where did we go camping in May?");

            // then
            List<FramedItem> items = FramedRequests.items(memory, model.lastRequest());
            assertThat(episodic(items)).startsWith("We camped by Lake Tahoe with the kids.");
            FramedRequests.assertLastRecallMatches(memory, session("today"), items);
        }
    }
}

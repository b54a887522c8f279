package dev.agentmemory.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;
import dev.agentmemory.testing.langchain4j.StuckIndexerEmbeddingModel;

import dev.agentmemory.testing.langchain4j.ScriptedChatModel;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A turn never waits for the background indexer: with the indexing thread stuck, what just left
 * the window (an assistant reply nobody embedded yet) is in the very next request the model
 * receives, embedded by the recall itself.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class RecallBesideTheIndexerTest {

    interface Assistant {
        String chat(@MemoryId SessionRef session, @dev.langchain4j.service.UserMessage String text);
    }


    @Test
    void should_show_a_reply_that_just_left_the_window_in_the_next_request_while_the_indexer_is_stuck() {
        StuckIndexerEmbeddingModel embeddings = new StuckIndexerEmbeddingModel(90);
        String code = "Your locker code is 4711; I will keep it for you.";
        try (AgentMemory memory = AgentMemory.builder().embeddingModel(embeddings).windowSize(2).build()) {
            Map<String, String> replies = Map.of(
                    "Please remember the code of my gym locker.", code,
                    "Also, my bike is the blue one by the door.", "Noted, the blue bike.");
            ScriptedChatModel model = new ScriptedChatModel(r -> AiMessage.from(replies.getOrDefault(
                    memory.framer().stripFrames(ScriptedChatModel.lastUserText(r)), "OK.")));
            Assistant assistant = AiServices.builder(Assistant.class).chatModel(model)
                    .chatMemoryProvider(memory.chatMemoryProvider()).retrievalAugmentor(memory.retrievalAugmentor()).build();
            SessionRef session = new SessionRef("acme", "alice", "s1");
            try {
                // given: the reply with the code, then a turn that pushes it out of a two-message window
                assistant.chat(session, "Please remember the code of my gym locker.");
                assistant.chat(session, "Also, my bike is the blue one by the door.");

                // when: the very next turn asks for it, the indexer still stuck on the first reply
                assistant.chat(session, "What is the code of my gym locker?");

                // then: the request the model received holds the reply, though no window message does
                String sent = ScriptedChatModel.lastUserText(model.lastRequest());
                assertThat(sent).contains(code);
                List<dev.langchain4j.data.message.ChatMessage> messages = model.lastRequest().messages();
                assertThat(messages.subList(0, messages.size() - 1)).noneMatch(m -> m.toString().contains("4711"));
            } finally {
                embeddings.release();
            }
        }
    }
}

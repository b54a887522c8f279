package dev.agentmemory.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentmemory.testing.langchain4j.ScriptedChatModel;
import dev.agentmemory.testing.langchain4j.SharedEmbeddingModel;
import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.output.Response;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Each text is embedded once: through {@code AiServices}, a turn's user message is embedded as
 * the recall's query and that vector is the one indexed, so a turn costs one embedding for the
 * question and one for the reply, and no text goes to the model twice.
 */
class EmbedOnceTest {

    interface Assistant {
        String chat(@MemoryId SessionRef session, @dev.langchain4j.service.UserMessage String text);
    }

    /** The real model, counting calls and keeping every text it was given. */
    static final class CountingEmbeddingModel implements EmbeddingModel {
        final AtomicInteger calls = new AtomicInteger();
        final List<String> texts = Collections.synchronizedList(new ArrayList<>());

        @Override
        public Response<List<Embedding>> embedAll(List<TextSegment> segments) {
            calls.incrementAndGet();
            segments.forEach(s -> texts.add(s.text()));
            return SharedEmbeddingModel.get().embedAll(segments);
        }

        @Override
        public int dimension() {
            return SharedEmbeddingModel.get().dimension();
        }
    }

    @Test
    void should_embed_each_user_message_and_reply_once_when_turns_go_through_ai_services() {
        CountingEmbeddingModel counting = new CountingEmbeddingModel();
        AtomicInteger replies = new AtomicInteger();
        ScriptedChatModel model = new ScriptedChatModel(r -> AiMessage.from("Reply number " + replies.incrementAndGet()
                + ": I have noted what you said."));
        try (AgentMemory memory = AgentMemory.builder().embeddingModel(counting).build()) {
            Assistant assistant = AiServices.builder(Assistant.class).chatModel(model)
                    .chatMemoryProvider(memory.chatMemoryProvider()).retrievalAugmentor(memory.retrievalAugmentor()).build();
            SessionRef session = new SessionRef("acme", "alice", "s1");
            List<String> said = new ArrayList<>();
            int turns = 12;

            // when: N turns, each observed once the index holds it
            for (int t = 1; t <= turns; t++) {
                String text = "Turn " + t + ": my parcel number " + (1000 + t) + " should arrive at the office.";
                said.add(text);
                said.add(assistant.chat(session, text));
                memory.awaitIndexed();
            }

            // then: one call for each question (recall) and one for each reply (indexing), each text once
            assertThat(counting.texts).containsExactlyInAnyOrderElementsOf(said).doesNotHaveDuplicates();
            assertThat(counting.calls).hasValue(2 * turns);
        }
    }
}

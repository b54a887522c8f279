package dev.agentmemory.langchain4j;

import dev.agentmemory.core.Caller;
import dev.agentmemory.testing.langchain4j.StuckIndexerEmbeddingModel;
import dev.agentmemory.core.ForgetMode;
import dev.agentmemory.core.ForgetTarget;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.engine.MemoryEngine.Messages;
import dev.agentmemory.core.event.StoredMessage;
import dev.agentmemory.langchain4j.recall.HybridIndex;
import dev.langchain4j.data.message.ChatMessageSerializer;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.rag.content.Content;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.HashSet;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The episodic index never makes a recall wait for its indexing thread: with that thread stuck,
 * a recall embeds its user's queued items itself and answers, a forget made meanwhile returns at
 * once, and what was forgotten never comes back, neither from the queue nor once the thread goes on.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class EpisodicMemoryCatchUpTest {

    private static final Caller ALICE = Caller.of("acme", "alice");


    private static void say(MemoryEngine engine, String session, String text) {
        engine.messages().changeIndexed(ALICE, session, (window, next) -> new Messages.WindowChange(List.of(),
                List.of(new StoredMessage(next, next, "USER", ChatMessageSerializer.messageToJson(UserMessage.from(text)), text))));
    }

    private static List<String> recall(EpisodicMemory episodic, String text) {
        return episodic.recall(ALICE, new SessionRef("acme", "alice", "now"), text, 10, -1.0, new HashSet<>())
                .stream().map(Content::textSegment).map(TextSegment::text).toList();
    }

    @Test
    void should_answer_from_the_queue_while_the_indexer_is_stuck_and_never_bring_back_what_was_forgotten() {
        StuckIndexerEmbeddingModel model = new StuckIndexerEmbeddingModel(60);
        try (MemoryEngine engine = MemoryEngine.builder().build()) {
            EpisodicMemory episodic = new EpisodicMemory(HybridIndex.inMemory(model.dimension()), model, engine,
                    "assistant");
            engine.admin().addListener(episodic);
            engine.admin().register(episodic);
            try {
                // given: two messages queued for indexing, the indexing thread stuck on the first
                say(engine, "s1", "My locker code is 4711");
                say(engine, "s1", "My bike is the blue one");

                // when a recall asks: it answers, with the queued message
                assertThat(recall(episodic, "what is my locker code?")).contains("My locker code is 4711");

                // and a forget made meanwhile returns and counts what it removed
                assertThat(engine.forget(ALICE, ForgetTarget.scope(ALICE.session("s1")), ForgetMode.SOFT).derived())
                        .containsEntry("embeddings", 2);
                say(engine, "s2", "My bike is the red one now");

                // then: what was forgotten is gone at once, and stays gone once the indexing goes on
                assertThat(recall(episodic, "which bike is mine? my locker code?")).contains("My bike is the red one now")
                        .noneMatch(t -> t.contains("4711") || t.contains("blue"));
                model.release();
                episodic.awaitIndexed();
                assertThat(recall(episodic, "which bike is mine? my locker code?")).contains("My bike is the red one now")
                        .noneMatch(t -> t.contains("4711") || t.contains("blue"));
            } finally {
                model.release();
                engine.admin().removeListener(episodic);
                episodic.close();
            }
        }
    }
}

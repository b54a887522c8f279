package dev.agentmemory.langchain4j;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ForgetMode;
import dev.agentmemory.core.ForgetTarget;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.engine.MemoryEngine.Messages;
import dev.agentmemory.core.MemoryException;
import dev.agentmemory.core.event.StoredMessage;
import dev.agentmemory.langchain4j.recall.HybridIndex;
import dev.agentmemory.testing.langchain4j.SharedEmbeddingModel;
import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.message.ChatMessageSerializer;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.output.Response;
import dev.langchain4j.rag.content.Content;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The episodic index's wait for its indexing queue is bounded: a recall whose user's items are
 * still being embedded past the catch-up wait fails with one line naming the user and the wait,
 * a forget made meanwhile does not hang on the queue, and once the queue is through the recall
 * answers, without the forgotten message.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class EpisodicMemoryCatchUpTest {

    private static final Caller ALICE = Caller.of("acme", "alice");

    /** Embeds with the real model; on the indexing thread, only once the gate is opened. */
    static final class GatedModel implements EmbeddingModel {
        final CountDownLatch gate = new CountDownLatch(1);

        @Override
        public Response<List<Embedding>> embedAll(List<TextSegment> segments) {
            if (Thread.currentThread().getName().equals("agent-memory-indexer")) {
                try {
                    if (!gate.await(60, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("the test never opened the gate");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }
            return SharedEmbeddingModel.get().embedAll(segments);
        }

        @Override
        public int dimension() {
            return SharedEmbeddingModel.get().dimension();
        }
    }

    private static void say(MemoryEngine engine, String session, String text) {
        engine.messages().changeIndexed(ALICE, session, (window, next) -> new Messages.WindowChange(List.of(),
                List.of(new StoredMessage(next, next, "USER", ChatMessageSerializer.messageToJson(UserMessage.from(text)), text))));
    }

    private static List<String> recall(EpisodicMemory episodic, String text) {
        return episodic.recall(ALICE, new SessionRef("acme", "alice", "now"), text, 10, -1.0, new HashSet<>())
                .stream().map(Content::textSegment).map(TextSegment::text).toList();
    }

    @Test
    void should_fail_a_recall_naming_the_user_and_the_wait_while_the_queue_is_stuck_and_answer_once_it_is_through() {
        GatedModel model = new GatedModel();
        try (MemoryEngine engine = MemoryEngine.builder().build()) {
            EpisodicMemory episodic = new EpisodicMemory(HybridIndex.inMemory(model.dimension()), model, engine,
                    "assistant", Duration.ofMillis(300));
            engine.admin().addListener(episodic);
            engine.admin().register(episodic);
            try {
                // given: two messages queued for indexing, the embedding stuck on the first
                say(engine, "s1", "My locker code is 4711");
                say(engine, "s1", "My bike is the blue one");

                // when a recall asks: it fails with one line naming the user and the wait
                assertThatThrownBy(() -> recall(episodic, "what is my locker code?"))
                        .isInstanceOf(MemoryException.class)
                        .hasMessage("episodic recall for acme/alice failed: the recall index did not catch up within"
                                + " 300 ms (the embedding of queued messages is still running)");

                // and a forget made meanwhile returns (its removal queued behind the stuck items)
                engine.forget(ALICE, ForgetTarget.scope(ALICE.session("s1")), ForgetMode.SOFT);
                say(engine, "s2", "My bike is the red one now");

                // then: once the embedding goes on, the recall answers, without what was forgotten
                model.gate.countDown();
                episodic.awaitIndexed();
                assertThat(recall(episodic, "which bike is mine?")).contains("My bike is the red one now")
                        .noneMatch(t -> t.contains("4711") || t.contains("blue"));
            } finally {
                model.gate.countDown();
                engine.admin().removeListener(episodic);
                episodic.close();
            }
        }
    }

    @Test
    void should_refuse_a_wait_that_is_not_positive() {
        try (MemoryEngine engine = MemoryEngine.builder().build()) {
            assertThatThrownBy(() -> new EpisodicMemory(HybridIndex.inMemory(384), SharedEmbeddingModel.get(), engine,
                    "assistant", Duration.ZERO))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("the recall index's catch-up wait must be positive: PT0S");
        }
    }
}

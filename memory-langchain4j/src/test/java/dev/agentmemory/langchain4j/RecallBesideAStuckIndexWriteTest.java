package dev.agentmemory.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.core.spi.StoredVector;
import dev.agentmemory.core.spi.VectorModel;
import dev.agentmemory.store.jdbc.JdbcStores;
import dev.agentmemory.testing.langchain4j.ScriptedChatModel;
import dev.agentmemory.testing.langchain4j.SharedEmbeddingModel;
import dev.agentmemory.testing.langchain4j.StuckIndexerEmbeddingModel;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A turn never waits for an index batch the background thread is in the middle of: with the
 * indexing thread stuck while it keeps a batch's vectors in the database (a slow or hung round
 * trip), what just left the window is still in the very next request the model receives, and the
 * vectors of what the turn indexed itself are kept once the thread moves again.
 */
class RecallBesideAStuckIndexWriteTest {

    interface Assistant {
        String chat(@MemoryId SessionRef session, @dev.langchain4j.service.UserMessage String text);
    }

    /** An H2 store whose vector saves on the indexing thread block until {@link #release()}. */
    static final class StuckVectorSaves extends EventStore.ForwardingEventStore {
        private final CountDownLatch gate = new CountDownLatch(1);
        private final CountDownLatch stuck = new CountDownLatch(1);
        final Set<String> saved = ConcurrentHashMap.newKeySet();

        StuckVectorSaves(EventStore delegate) {
            super(delegate);
        }

        @Override
        public void saveVectors(Partition partition, VectorModel model, List<StoredVector> vectors) {
            if (Thread.currentThread().getName().equals(StuckIndexerEmbeddingModel.INDEXER_THREAD)) {
                stuck.countDown();
                try {
                    if (!gate.await(5, TimeUnit.MINUTES)) {
                        throw new IllegalStateException("the test never released the vector saves");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }
            super.saveVectors(partition, model, vectors);
            vectors.forEach(v -> saved.add(v.item()));
        }

        void awaitStuck() throws InterruptedException {
            assertThat(stuck.await(1, TimeUnit.MINUTES)).as("the indexing thread reached a vector save").isTrue();
        }

        void release() {
            gate.countDown();
        }
    }

    // a hang guard, not a timing check: before the fix the third turn waited for the stuck batch
    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void should_show_a_reply_that_just_left_the_window_while_the_indexer_is_stuck_in_a_batch() throws Exception {
        JdbcDataSource database = new JdbcDataSource();
        database.setURL("jdbc:h2:mem:stuck-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        StuckVectorSaves store = new StuckVectorSaves(JdbcStores.dataSource(database));
        String code = "Your locker code is 4711; I will keep it for you.";
        try (AgentMemory memory = AgentMemory.builder().store(store).embeddingModel(SharedEmbeddingModel.get())
                .windowSize(2).build()) {
            Map<String, String> replies = Map.of(
                    "Please remember the code of my gym locker.", code,
                    "Also, my bike is the blue one by the door.", "Noted, the blue bike.");
            ScriptedChatModel model = new ScriptedChatModel(r -> AiMessage.from(replies.getOrDefault(
                    memory.framer().stripFrames(ScriptedChatModel.lastUserText(r)), "OK.")));
            Assistant assistant = AiServices.builder(Assistant.class).chatModel(model)
                    .chatMemoryProvider(memory.chatMemoryProvider()).retrievalAugmentor(memory.retrievalAugmentor()).build();
            SessionRef session = new SessionRef("acme", "alice", "s1");
            try {
                // given: the indexing thread stuck keeping the vectors of the first batch it wrote
                assistant.chat(session, "Please remember the code of my gym locker.");
                store.awaitStuck();
                // and a turn that pushes the reply with the code out of a two-message window
                assistant.chat(session, "Also, my bike is the blue one by the door.");

                // when: the very next turn asks for it
                assistant.chat(session, "What is the code of my gym locker?");

                // then: the request the model received holds the reply, though no window message does
                String sent = ScriptedChatModel.lastUserText(model.lastRequest());
                assertThat(sent).contains(code);
                List<dev.langchain4j.data.message.ChatMessage> messages = model.lastRequest().messages();
                assertThat(messages.subList(0, messages.size() - 1)).noneMatch(m -> m.toString().contains("4711"));
            } finally {
                store.release();
            }

            // and: once the thread moves again, every message's vector is kept, those the turn indexed included
            memory.awaitIndexed();
            Caller alice = new Caller("acme", "alice", "agent");
            Set<Long> indices = memory.engine().messages().history(alice, "s1").keySet();
            assertThat(indices).hasSize(6);
            assertThat(store.saved).containsAll(indices.stream()
                    .map(i -> EpisodicMemory.messageId("acme", "alice", "s1", i)).toList());
        }
    }
}

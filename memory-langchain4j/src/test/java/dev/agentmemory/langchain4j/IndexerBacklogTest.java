package dev.agentmemory.langchain4j;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.langchain4j.recall.HybridIndex;
import dev.agentmemory.testing.langchain4j.StuckIndexerEmbeddingModel;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.rag.content.Content;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A backlog of the indexing thread (a bulk load, or commits made while it was held up) is moved
 * into the index with work linear in its size: choosing each write's item looked at the whole
 * backlog, so 100,000 memories loaded at once took hours.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class IndexerBacklogTest {

    private static final Caller ALICE = Caller.of("acme", "alice");
    private static final int BACKLOG = 200;

    @Test
    void should_move_a_backlog_into_the_index_looking_at_each_item_a_bounded_number_of_times() {
        StuckIndexerEmbeddingModel model = new StuckIndexerEmbeddingModel(120);
        try (MemoryEngine engine = MemoryEngine.builder().build()) {
            EpisodicMemory episodic = new EpisodicMemory(HybridIndex.inMemory(model.dimension()), model, engine,
                    "assistant");
            engine.admin().addListener(episodic);
            engine.admin().register(episodic);
            try {
                // given: a backlog of records committed while the indexing thread is held up
                List<Proposal> facts = new ArrayList<>();
                for (int i = 0; i < BACKLOG; i++) {
                    facts.add(Proposal.set(ALICE.persistent(), "fact." + i, "parcel " + i + " goes to depot " + (i * 7 % 13))
                            .kind(Kind.DECISION).source(Source.USER).build());
                }
                facts.add(Proposal.set(ALICE.persistent(), "pet.name", "my dog is called Rex")
                        .kind(Kind.DECISION).source(Source.USER).build());
                engine.propose(ALICE, facts);

                // when: the thread goes on and indexes it all
                model.release();
                episodic.awaitIndexed();

                // then: every item is in the index, and each was looked at a few times, not once per write
                assertThat(episodic.recall(ALICE, null, "what is my dog called?", 3, -1.0, new HashSet<>()).stream()
                        .map(Content::textSegment).map(TextSegment::text)).contains("pet.name = my dog is called Rex");
                assertThat(episodic.tailItemsExamined()).isBetween((long) BACKLOG, 3L * (BACKLOG + 1));
            } finally {
                model.release();
                engine.admin().removeListener(episodic);
                episodic.close();
            }
        }
    }
}

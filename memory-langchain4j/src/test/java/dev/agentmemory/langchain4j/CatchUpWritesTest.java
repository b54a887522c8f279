package dev.agentmemory.langchain4j;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.langchain4j.recall.HybridIndex;
import dev.agentmemory.testing.langchain4j.SharedEmbeddingModel;
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
 * An episodic index that starts behind a long log (a new index, or one whose directory was lost)
 * catches up on the first recall in a few large index writes: each write ends with a refresh and a
 * new segment that the index merges later, and writes of 64 items made a 10,000-memory rebuild
 * spend half its time merging.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class CatchUpWritesTest {

    private static final Caller ALICE = Caller.of("acme", "alice");
    private static final int LOGGED = 300;

    @Test
    void should_catch_up_a_long_log_in_one_index_write_per_thousand_items() {
        try (MemoryEngine engine = MemoryEngine.builder().build()) {
            // given: a log of records written before the index existed
            List<Proposal> facts = new ArrayList<>();
            for (int i = 0; i < LOGGED; i++) {
                facts.add(Proposal.set(ALICE.persistent(), "fact." + i, "parcel " + i + " goes to depot " + (i * 7 % 13))
                        .kind(Kind.DECISION).source(Source.USER).build());
            }
            facts.add(Proposal.set(ALICE.persistent(), "pet.name", "my dog is called Rex")
                    .kind(Kind.DECISION).source(Source.USER).build());
            engine.propose(ALICE, facts);
            EpisodicMemory episodic = new EpisodicMemory(HybridIndex.inMemory(SharedEmbeddingModel.get().dimension()),
                    SharedEmbeddingModel.get(), engine, "assistant");
            engine.admin().addListener(episodic);
            engine.admin().register(episodic);
            try {
                // when: the first recall brings the index in step with the log
                List<String> recalled = episodic.recall(ALICE, null, "what is my dog called?", 3, -1.0, new HashSet<>())
                        .stream().map(Content::textSegment).map(TextSegment::text).toList();

                // then: it finds what the log holds, written into the index in one write
                assertThat(recalled).contains("pet.name = my dog is called Rex");
                assertThat(episodic.catchUpWrites()).isEqualTo(1);
            } finally {
                engine.admin().removeListener(episodic);
                episodic.close();
            }
        }
    }
}

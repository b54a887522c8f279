package dev.agentmemory.langchain4j;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.store.jdbc.JdbcStores;
import dev.agentmemory.core.testing.DerivedDataContract;
import dev.agentmemory.langchain4j.recall.HybridIndex;
import dev.agentmemory.langchain4j.recall.RecallHit;
import dev.agentmemory.langchain4j.recall.RecallQuery;
import dev.agentmemory.testing.langchain4j.SharedEmbeddingModel;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

/**
 * The episodic index (as {@link AgentMemory} wires it: an engine listener and a registered
 * derived data) holds nothing of what a forget removed: the {@link DerivedDataContract}, on an
 * in-memory index and store, and on an index directory next to an H2 file.
 */
class EpisodicMemoryForgetsTest extends DerivedDataContract {

    @Override
    protected Attached attach(MemoryEngine engine) {
        return attachEpisodic(engine, HybridIndex.inMemory(SharedEmbeddingModel.get().dimension()));
    }

    static Attached attachEpisodic(MemoryEngine engine, HybridIndex index) {
        EpisodicMemory episodic = new EpisodicMemory(index, SharedEmbeddingModel.get(), engine, "assistant");
        engine.admin().addListener(episodic);
        engine.admin().register(episodic);
        return new Attached() {
            @Override
            public List<String> texts(Caller caller, String probe) {
                episodic.awaitIndexed();
                // the raw index, with superseded items, not the read path (which also asks the engine)
                RecallQuery query = RecallQuery.of(EpisodicMemory.partitionKey(caller.tenant(), caller.user()), probe,
                        SharedEmbeddingModel.embed(probe), 1000, engine.clock().instant())
                        .withIncludeSuperseded(true).withMinScore(-1.0);
                return index.search(query).stream().map(RecallHit::text).toList();
            }

            @Override
            public void close() {
                episodic.close();
            }
        };
    }

    /** The same contract with the index in a directory and the log in an H2 file. */
    @Nested
    class OnDisk extends DerivedDataContract {
        @TempDir
        Path dir;

        @Override
        protected EventStore newStore() {
            return JdbcStores.h2File(dir.resolve("memory"));
        }

        @Override
        protected Attached attach(MemoryEngine engine) {
            return attachEpisodic(engine, HybridIndex.inDirectory(dir.resolve("memory.recall"),
                    SharedEmbeddingModel.get().dimension()));
        }
    }
}

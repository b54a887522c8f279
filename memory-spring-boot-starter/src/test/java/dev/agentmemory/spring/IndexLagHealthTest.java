package dev.agentmemory.spring;

import dev.agentmemory.langchain4j.SessionRef;
import dev.agentmemory.testing.langchain4j.StuckIndexerEmbeddingModel;
import dev.agentmemory.testing.TestClock;
import dev.agentmemory.testing.langchain4j.ScriptedChatModel;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.model.embedding.EmbeddingModel;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The episodic index falling behind, as an operator sees it: with the application's clock given
 * through an {@link AgentMemoryBuilderCustomizer} bean and an embedding model that stalls on the
 * indexing thread, the index gauges show the backlog and the health endpoint reports the memory
 * down once the oldest waiting commit has waited the limit, up again when the index catches up.
 */
class IndexLagHealthTest {


    @TempDir
    Path dir;

    @Test
    void should_report_down_while_the_index_is_behind_past_the_limit_and_up_once_caught_up() {
        TestClock clock = TestClock.start();
        StuckIndexerEmbeddingModel model = new StuckIndexerEmbeddingModel(60);
        ObservabilityStarterTest.RUNNER.withPropertyValues("agentmemory.h2-file=" + dir.resolve("memory"),
                        "agentmemory.health.index-lag-limit=30s")
                .withBean(EmbeddingModel.class, () -> model)
                .withBean(AgentMemoryBuilderCustomizer.class, () -> builder -> builder.engineSettings(e -> e.clock(clock)))
                .run(context -> {
                    try {
                        AgentMemoryAutoConfigurationTest.assistant(context,
                                        new ScriptedChatModel(r -> AiMessage.from("Hello Alice.")))
                                .chat(new SessionRef("default", "alice", "s1"), "Hi, I am Alice");
                        // the indexer first writes the user message when the turn's recall gave it
                        // its vector, then blocks embedding the reply (or both, when it got there
                        // first): once it is blocked, what waits is settled, one item or two
                        assertThat(model.awaitBlocked()).as("the indexer blocks on the reply").isTrue();
                        MeterRegistry registry = context.getBean(MeterRegistry.class);
                        int waiting = (int) registry.get("agentmemory.index.pending").gauge().value();
                        assertThat(waiting).isBetween(1, 2);
                        clock.advance(Duration.ofSeconds(29));
                        assertThat(ObservabilityStarterTest.memoryHealth(context).status()).as("29 s: within the limit")
                                .isEqualTo("UP");

                        clock.advance(Duration.ofSeconds(1));
                        Actuator.Health behind = ObservabilityStarterTest.memoryHealth(context);
                        assertThat(behind.status()).isEqualTo("DOWN");
                        assertThat((String) behind.details().get("reason")).isEqualTo("episodic index behind: " + waiting + " items"
                                + " waiting, the oldest for PT30S (limit PT30S; indexing has stalled: recalls embed what is not indexed themselves)");
                        assertThat(behind.details()).containsEntry("store", "reachable").containsEntry("indexPending", waiting)
                                .containsEntry("indexOldestWait", "PT30S");
                        assertThat(registry.get("agentmemory.index.lag").timeGauge().value(TimeUnit.SECONDS)).isEqualTo(30);

                        model.release();
                        context.getBean(dev.agentmemory.langchain4j.AgentMemory.class).awaitIndexed();
                        Actuator.Health caughtUp = ObservabilityStarterTest.memoryHealth(context);
                        assertThat(caughtUp.status()).isEqualTo("UP");
                        assertThat(caughtUp.details()).containsEntry("indexPending", 0).containsEntry("indexOldestWait", "PT0S");
                    } finally {
                        model.release();
                    }
                });
    }
}

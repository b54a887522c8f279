package dev.agentmemory.spring;

import dev.agentmemory.langchain4j.AgentMemory;
import dev.agentmemory.langchain4j.SessionRef;
import dev.agentmemory.testing.langchain4j.ScriptedChatModel;
import dev.agentmemory.testing.langchain4j.SharedEmbeddingModel;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.model.embedding.EmbeddingModel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The application's {@link EmbeddingModel} bean turns on episodic recall: a message of an
 * earlier session reaches a new session's memory block with it, and not without it.
 */
class EpisodicRecallTest {

    private static final String EARLIER = "My dog Bruno is afraid of thunderstorms.";

    @TempDir
    Path dir;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(AgentMemoryAutoConfiguration.class));

    @Test
    void should_recall_an_earlier_session_with_the_applications_embedding_model() {
        String seen = newSessionRequest(runner.withPropertyValues("agentmemory.h2-file=" + dir.resolve("with"))
                .withBean(EmbeddingModel.class, SharedEmbeddingModel::get));
        assertThat(seen).contains("thunderstorms");
    }

    @Test
    void should_not_recall_an_earlier_session_without_an_embedding_model() {
        String seen = newSessionRequest(runner.withPropertyValues("agentmemory.h2-file=" + dir.resolve("without")));
        assertThat(seen).doesNotContain("thunderstorms");
    }

    /** What the model is shown in a new session after the earlier one told it about the dog. */
    private static String newSessionRequest(ApplicationContextRunner runner) {
        ScriptedChatModel model = new ScriptedChatModel(r -> AiMessage.from("I see."));
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            Assistant assistant = AgentMemoryAutoConfigurationTest.assistant(context, model);
            assistant.chat(new SessionRef("acme", "bob", "monday"), EARLIER);
            context.getBean(AgentMemory.class).awaitIndexed();
            assistant.chat(new SessionRef("acme", "bob", "friday"), "What is my dog Bruno afraid of?");
        });
        return Requests.text(model.lastRequest());
    }
}

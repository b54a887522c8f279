package dev.agentmemory.spring;

import dev.agentmemory.langchain4j.AgentMemory;
import dev.agentmemory.langchain4j.tools.MemoryTools;
import dev.agentmemory.testing.langchain4j.ScriptedChatModel;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.memory.chat.ChatMemoryProvider;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.rag.RetrievalAugmentor;
import dev.langchain4j.service.AiServices;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * README.md's "Spring Boot" section, run: its application.properties and its assistant bean, on
 * the starter's beans, remember the first turn in the second.
 */
class ReadmeSpringBootTest {

    @TempDir
    Path dir;

    @Test
    void should_run_the_readme_setup() throws IOException {
        List<String> properties = new ArrayList<>();
        Properties readme = new Properties();
        try (InputStream in = getClass().getResourceAsStream("/readme/application.properties")) {
            readme.load(in);
        }
        readme.stringPropertyNames().forEach(k -> properties.add(k + "=" + readme.getProperty(k)));
        properties.add("agentmemory.h2-file=" + dir.resolve("memory"));   // the README's data/memory, in a temp dir
        assertThat(readme.getProperty("agentmemory.window-size")).isEqualTo("30");

        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(AgentMemoryAutoConfiguration.class))
                .withUserConfiguration(ReadmeApplication.class)
                .withPropertyValues(properties.toArray(String[]::new))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    Assistant assistant = context.getBean(Assistant.class);
                    assistant.chat("alice", "My order number is 4711.");
                    assistant.chat("alice", "Which order was it?");
                    ScriptedChatModel model = context.getBean(ScriptedChatModel.class);
                    assertThat(Requests.text(model.lastRequest())).contains("user: My order number is 4711.");
                    assertThat(context.getBean(AgentMemory.class).engine()).isNotNull();
                });
    }

    /** The observability properties of the README: meters and the health of both tenants' users. */
    @Test
    void should_run_the_readme_observability_properties() throws IOException {
        List<String> properties = new ArrayList<>();
        Properties readme = new Properties();
        try (InputStream in = getClass().getResourceAsStream("/readme/observability.properties")) {
            readme.load(in);
        }
        readme.stringPropertyNames().forEach(k -> properties.add(k + "=" + readme.getProperty(k)));
        properties.add("agentmemory.h2-file=" + dir.resolve("memory"));
        assertThat(properties).hasSize(8);

        ObservabilityStarterTest.RUNNER.withUserConfiguration(ReadmeApplication.class)
                .withPropertyValues(properties.toArray(String[]::new))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    Assistant assistant = context.getBean(Assistant.class);
                    assistant.chat(new dev.agentmemory.langchain4j.SessionRef("acme", "bob", "s1"), "Hello");
                    assistant.chat("alice", "Hello");
                    Actuator.Health health = Actuator.memoryHealth(context);
                    assertThat(health.status()).isEqualTo("UP");
                    assertThat(health.details()).containsEntry("users", 2).containsEntry("audited", 2);
                    assertThat(ObservabilityStarterTest.metric(context, "agentmemory.recall.duration", "layer:all"))
                            .containsEntry("COUNT", 2.0);
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class ReadmeApplication {

        @Bean
        ScriptedChatModel chatModel() {
            return new ScriptedChatModel(r -> AiMessage.from("ok"));
        }

        // tag::spring-assistant[]
        @Bean
        Assistant assistant(ChatModel chatModel, ChatMemoryProvider chatMemoryProvider,
                            RetrievalAugmentor retrievalAugmentor, MemoryTools memoryTools) {
            return AiServices.builder(Assistant.class)
                    .chatModel(chatModel)
                    .chatMemoryProvider(chatMemoryProvider)     // these three beans come from the starter
                    .retrievalAugmentor(retrievalAugmentor)
                    .tools(memoryTools)
                    .build();
        }
        // end::spring-assistant[]
    }
}

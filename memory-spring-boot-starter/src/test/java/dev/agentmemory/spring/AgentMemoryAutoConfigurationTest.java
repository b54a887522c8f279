package dev.agentmemory.spring;

import dev.agentmemory.langchain4j.AgentMemory;
import dev.agentmemory.langchain4j.SessionRef;
import dev.agentmemory.langchain4j.tools.MemoryTools;
import dev.agentmemory.testing.langchain4j.ScriptedChatModel;
import dev.langchain4j.memory.chat.ChatMemoryProvider;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.rag.AugmentationResult;
import dev.langchain4j.rag.RetrievalAugmentor;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.store.memory.chat.ChatMemoryStore;
import dev.langchain4j.store.memory.chat.InMemoryChatMemoryStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

import static dev.agentmemory.testing.langchain4j.ScriptedChatModel.call;
import static dev.agentmemory.testing.langchain4j.ScriptedChatModel.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The starter as an application meets it: a context with only the {@code agentmemory.*}
 * properties, an assistant built with {@code AiServices} from the context's beans and a scripted
 * model, across turns, sessions and a restart; the application's own beans winning; the memory
 * closed with the context.
 */
class AgentMemoryAutoConfigurationTest {

    static final String GERMAN = "Please answer in German from now on.";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(AgentMemoryAutoConfiguration.class));

    @TempDir
    Path dir;

    /** What an application does with the starter's beans (also what @AiService wires by type). */
    static Assistant assistant(ApplicationContext context, ChatModel model) {
        return AiServices.builder(Assistant.class)
                .chatModel(model)
                .chatMemoryProvider(context.getBean(ChatMemoryProvider.class))
                .retrievalAugmentor(context.getBean(RetrievalAugmentor.class))
                .tools(context.getBean(MemoryTools.class))
                .build();
    }

    /**
     * Runs the three turns of the test on a context: a preference saved through the memory tool,
     * then seen in the window of the same session, in the same session after a restart and, in
     * a new session, in the memory block.
     */
    static void remembersAcrossTurnsSessionsAndRestarts(ApplicationContextRunner runner) {
        SessionRef first = new SessionRef("acme", "alice", "s1");
        SessionRef second = new SessionRef("acme", "alice", "s2");
        String remember = "{\"key\":\"answer.language\",\"value\":\"German\",\"kind\":\"preference\","
                + "\"userQuote\":\"" + GERMAN + "\"}";
        ScriptedChatModel before = new ScriptedChatModel("before", false,
                call("remember", remember), text("Noted."), text("You asked for German answers."));
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            Assistant assistant = assistant(context, before);
            assertThat(assistant.chat(first, GERMAN)).isEqualTo("Noted.");
            assertThat(assistant.chat(first, "What did I ask?")).isEqualTo("You asked for German answers.");
        });
        assertThat(Requests.text(before.requests().get(1))).as("the tool's answer").contains("tool: ")
                .doesNotContain("Not saved");
        assertThat(Requests.text(before.requests().get(2))).as("the second turn sees the first")
                .contains("user: " + GERMAN).contains("ai: Noted.");

        ScriptedChatModel after = new ScriptedChatModel("after", false, text("Gern."), text("Hallo!"));
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            Assistant assistant = assistant(context, after);
            assistant.chat(first, "Still there?");
            assistant.chat(second, "Hello, new session.");
        });
        String sameSession = Requests.text(after.requests().get(0));
        assertThat(sameSession).as("the window of s1 after the restart")
                .contains("user: " + GERMAN).contains("ai: You asked for German answers.");
        String newSession = Requests.text(after.requests().get(1));
        assertThat(newSession).as("a new session: no old messages, the preference in the memory block")
                .doesNotContain("user: " + GERMAN).contains("answer.language").contains("German")
                .contains("Hello, new session.");
    }

    @Test
    void should_remember_across_turns_sessions_and_a_restart_on_an_h2_file() {
        remembersAcrossTurnsSessionsAndRestarts(
                runner.withPropertyValues("agentmemory.h2-file=" + dir.resolve("memory")));
        assertThat(dir.resolve("memory.mv.db")).isRegularFile();
    }

    @Test
    void should_apply_the_window_size_property_to_the_chat_memory() {
        ScriptedChatModel model = new ScriptedChatModel(r -> dev.langchain4j.data.message.AiMessage.from("ok"));
        runner.withPropertyValues("agentmemory.h2-file=" + dir.resolve("memory"), "agentmemory.window-size=2")
                .run(context -> {
                    Assistant assistant = assistant(context, model);
                    assistant.chat("u1", "one");
                    assistant.chat("u1", "two");
                    assistant.chat("u1", "three");
                });
        String third = Requests.text(model.lastRequest());
        assertThat(third).doesNotContain("user: one").contains("ai: ok").contains("three");
    }

    @Test
    void should_close_the_memory_and_release_the_file_when_the_context_closes() {
        Path file = dir.resolve("memory");
        runner.withPropertyValues("agentmemory.h2-file=" + file).run(context -> {
            assertThat(context).hasSingleBean(AgentMemory.class);
            assertThatThrownBy(() -> AgentMemory.builder().h2File(file).build())
                    .as("the file is held while the context runs").isInstanceOf(RuntimeException.class);
        });
        try (AgentMemory reopened = AgentMemory.builder().h2File(file).build()) {
            assertThat(reopened.agent()).isEqualTo("assistant");
        }
    }

    /** Without a store property or a DataSource: the H2 file agentmemory/memory under the working directory. */
    @Test
    void should_keep_memory_in_an_h2_file_under_the_working_directory_by_default() throws IOException {
        Path defaultDir = Path.of("agentmemory").toAbsolutePath();
        assertThat(defaultDir).as("left over from an earlier run").doesNotExist();
        try {
            runner.run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(defaultDir.resolve("memory.mv.db")).isRegularFile();
            });
        } finally {
            try (Stream<Path> files = Files.walk(defaultDir)) {
                files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }

    @Test
    void should_use_the_applications_own_agent_memory() {
        runner.withUserConfiguration(OwnMemory.class).run(context -> {
            assertThat(context).hasSingleBean(AgentMemory.class);
            AgentMemory own = context.getBean("ownMemory", AgentMemory.class);
            assertThat(own.agent()).isEqualTo("own-agent");
            assertThat(context).hasSingleBean(ChatMemoryProvider.class).hasSingleBean(RetrievalAugmentor.class);
        });
        assertThat(Files.exists(Path.of("agentmemory"))).as("no default H2 file was opened").isFalse();
    }

    @Test
    void should_leave_the_chat_memory_provider_store_and_augmentor_the_application_defines() {
        runner.withPropertyValues("agentmemory.h2-file=" + dir.resolve("memory"))
                .withUserConfiguration(OwnParts.class).run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBeansOfType(ChatMemoryProvider.class)).containsOnlyKeys("ownProvider");
                    assertThat(context.getBeansOfType(ChatMemoryStore.class)).containsOnlyKeys("ownStore");
                    assertThat(context.getBeansOfType(RetrievalAugmentor.class)).containsOnlyKeys("ownAugmentor");
                    assertThat(context).hasSingleBean(AgentMemory.class).hasSingleBean(MemoryTools.class);
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnMemory {
        @Bean
        AgentMemory ownMemory() {
            return AgentMemory.builder().agent("own-agent").build();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnParts {
        @Bean
        ChatMemoryProvider ownProvider() {
            return id -> MessageWindowChatMemory.withMaxMessages(3);
        }

        @Bean
        ChatMemoryStore ownStore() {
            return new InMemoryChatMemoryStore();
        }

        @Bean
        RetrievalAugmentor ownAugmentor() {
            return request -> AugmentationResult.builder().chatMessage(request.chatMessage()).build();
        }
    }
}

package dev.agentmemory.langchain4j.reliability;

import dev.agentmemory.core.MemoryException;
import dev.agentmemory.langchain4j.AgentMemory;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.UserMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 22, item 3, through {@code AgentMemory}: a memory file restored without its {@code .hwm}
 * is refused by {@code build()}; {@code acceptMissingHighWaterMark()} or the setting
 * {@code agentmemory.h2.accept-missing-high-water-mark=true} opens it, and the audit says that its
 * completeness is unverified.
 */
class RestoredWithoutMarkTest {

    @TempDir
    Path dir;

    @Test
    void should_refuse_a_file_restored_without_its_mark_unless_the_builder_or_the_config_accepts_it() throws Exception {
        Path original = dir.resolve("memory");
        List<ChatMessage> messages = List.of(UserMessage.from("Hello, is the shop open today?"), AiMessage.from("Noted."));
        try (AgentMemory memory = AgentMemory.builder().h2File(original).build()) {
            memory.chatMemoryStore().updateMessages("alice", messages);
        }

        Path byBuilder = restoreAlone(original, "by-builder");
        assertThatThrownBy(() -> AgentMemory.builder().h2File(byBuilder).build())
                .isInstanceOf(MemoryException.class)
                .hasMessageStartingWith("the H2 file " + byBuilder + ".mv.db holds 1 write transactions but has no"
                        + " high-water mark")
                .hasMessageContaining("acceptMissingHighWaterMark()");
        try (AgentMemory memory = AgentMemory.builder().h2File(byBuilder).acceptMissingHighWaterMark().build()) {
            assertThat(memory.chatMemoryStore().getMessages("alice")).isEqualTo(messages);
            assertThat(memory.engine().admin().audit(memory.caller("alice"), Duration.ofDays(1)).lines())
                    .anyMatch(line -> line.startsWith("store: the H2 file " + byBuilder + ".mv.db was opened without"
                            + " its high-water mark") && line.contains("completeness unverified"));
        }

        Path byConfig = restoreAlone(original, "by-config");
        Properties config = new Properties();
        config.setProperty("agentmemory.h2.accept-missing-high-water-mark", "true");
        try (AgentMemory memory = AgentMemory.builder().h2File(byConfig).config(config).build()) {
            assertThat(memory.chatMemoryStore().getMessages("alice")).isEqualTo(messages);
            assertThat(memory.engine().admin().audit(memory.caller("alice"), Duration.ofDays(1)).storeFindings())
                    .hasSize(1);
        }
    }

    private Path restoreAlone(Path original, String name) throws Exception {
        Path restored = dir.resolve(name).resolve("memory");
        Files.createDirectories(restored.getParent());
        Files.copy(original.resolveSibling("memory.mv.db"), restored.resolveSibling("memory.mv.db"));
        return restored;
    }
}

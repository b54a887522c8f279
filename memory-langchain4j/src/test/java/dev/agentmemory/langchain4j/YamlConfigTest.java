package dev.agentmemory.langchain4j;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class YamlConfigTest {

    @Test
    void should_read_nested_yaml_keys_when_config_file_is_yaml(@TempDir Path dir) throws IOException {
        // given
        Path file = dir.resolve("agent-memory.yaml");
        Files.writeString(file, "agentmemory:\n  window-size: 30\n  ttl:\n    observation: P7D\n  delete-mode: hard\n");

        // when
        try (AgentMemory memory = AgentMemory.builder().configFile(file).build()) {
            // then
            assertThat(memory.chatMemoryProvider().get("t/u/s")).isNotNull();
        }
    }

    @Test
    void should_name_the_setting_when_a_yaml_value_is_invalid(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("agent-memory.yml");
        Files.writeString(file, "agentmemory:\n  window-size: zero\n");

        assertThatThrownBy(() -> AgentMemory.builder().configFile(file).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("agentmemory.window-size");
    }

    @Test
    void should_say_the_file_is_not_yaml_when_it_does_not_parse(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("broken.yaml");
        Files.writeString(file, "agentmemory: [unclosed\n");

        assertThatThrownBy(() -> AgentMemory.builder().configFile(file))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is not valid YAML");
    }

    @Test
    void should_refuse_a_list_where_a_value_is_expected(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("list.yaml");
        Files.writeString(file, "agentmemory:\n  window-size: [1, 2]\n");

        assertThatThrownBy(() -> AgentMemory.builder().configFile(file))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("agentmemory.window-size in " + file + " must be a single value");
    }
}

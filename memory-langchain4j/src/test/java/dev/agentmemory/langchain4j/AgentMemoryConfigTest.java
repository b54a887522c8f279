package dev.agentmemory.langchain4j;

import dev.agentmemory.core.ForgetMode;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.store.InMemoryEventStore;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.MemoryRecord.Source;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AgentMemoryConfigTest {

    @TempDir
    Path dir;

    private static Properties props(String... kv) {
        Properties p = new Properties();
        for (int i = 0; i < kv.length; i += 2) {
            p.setProperty(kv[i], kv[i + 1]);
        }
        return p;
    }

    @Test
    void should_apply_a_properties_file_when_given_one() throws IOException {
        // given
        Path file = dir.resolve("memory.properties");
        Files.writeString(file, """
                agentmemory.ttl.preference=P30D
                agentmemory.window-size=4
                agentmemory.results.persistent=1
                agentmemory.strict-conflicts=true
                agentmemory.delete-mode=hard
                other.setting=ignored
                """);
        Clock clock = Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC);

        // when
        try (AgentMemory memory = AgentMemory.builder().engineSettings(e -> e.clock(clock)).configFile(file).build()) {
            SessionRef s = new SessionRef("acme", "alice", "s1");
            var caller = memory.caller(s);
            var record = memory.engine().write(caller, Proposal.set(caller.persistent(), "reply.language", "Chinese")
                    .kind(Kind.PREFERENCE).source(Source.USER).build());

            // then: the TTL applies, the window holds 4 messages
            assertThat(record.expiresAt()).isEqualTo(Instant.parse("2026-01-31T00:00:00Z"));
            var chat = memory.chatMemoryProvider().get(s);
            for (int i = 0; i < 6; i++) {
                chat.add(dev.langchain4j.data.message.UserMessage.from("m" + i));
            }
            assertThat(chat.messages()).hasSize(4);
        }
    }

    @Test
    void should_name_the_setting_when_a_value_is_invalid() {
        assertThatThrownBy(() -> AgentMemory.builder().config(props("agentmemory.window-size", "zero")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("agentmemory.window-size must be an integer: \"zero\"");
        assertThatThrownBy(() -> AgentMemory.builder().config(props("agentmemory.ttl.preference", "30 days")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("agentmemory.ttl.preference must be an ISO-8601 duration such as P30D or PT12H: \"30 days\"");
        assertThatThrownBy(() -> AgentMemory.builder().config(props("agentmemory.delete-mode", "shred")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("agentmemory.delete-mode must be soft or hard: \"shred\"");
        assertThatThrownBy(() -> AgentMemory.builder().config(props("agentmemory.window-size", "0")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("agentmemory.window-size: window-size must be >= 1: 0");
        assertThatThrownBy(() -> AgentMemory.builder().config(props("agentmemory.encryption-key", "c2hvcnQ=")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("agentmemory.encryption-key: encryption-key must be 16, 24 or 32 bytes: 5");
        assertThatThrownBy(() -> AgentMemory.builder().config(props("agentmemory.widow-size", "4")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("unknown setting agentmemory.widow-size (known: ");
    }

    @Test
    void should_refuse_engine_settings_when_a_ready_engine_is_given() {
        MemoryEngine engine = MemoryEngine.builder().build();
        assertThatThrownBy(() -> AgentMemory.builder().engine(engine)
                .config(props("agentmemory.ttl.preference", "P1D")).engineSettings(e -> e.strictConflicts(true)).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("settings [ttl.preference, engineSettings] belong to the engine: set them on"
                        + " MemoryEngine.builder() when passing a ready engine");
    }

    @Test
    void should_refuse_two_stores_at_the_second_call_when_both_are_given() {
        AgentMemory.Builder builder = AgentMemory.builder().engine(MemoryEngine.builder().build());
        assertThatThrownBy(() -> builder.h2File(dir.resolve("m")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("cannot give both engine and h2File: the memory's store comes from one of engine, store"
                        + ", h2File, jdbc and dataSource");
        assertThatThrownBy(() -> AgentMemory.builder().h2File(dir.resolve("m")).store(new InMemoryEventStore()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("cannot give both h2File and store: the memory's store comes from one of engine, store"
                        + ", h2File, jdbc and dataSource");
    }

    @Test
    void should_refuse_a_jdbc_url_key_together_with_another_store() {
        Properties p = new Properties();
        p.setProperty("agentmemory.jdbc.url", "jdbc:postgresql://127.0.0.1:9/none");
        p.setProperty("agentmemory.jdbc.password", "never-shown-31");

        assertThatThrownBy(() -> AgentMemory.builder().h2File(dir.resolve("m")).config(p).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("cannot give both h2File and agentmemory.jdbc.url: the memory's store comes from one of"
                        + " engine, store, h2File, jdbc and dataSource");
        p.setProperty("agentmemory.jdbc.pool-size", "0");
        assertThatThrownBy(() -> AgentMemory.builder().config(p))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("agentmemory.jdbc.pool-size: jdbc.pool-size must be >= 1: 0")
                .hasMessageNotContaining("never-shown-31");
    }

    @Test
    void should_forget_the_session_with_the_configured_mode_when_messages_are_deleted() {
        try (AgentMemory memory = AgentMemory.builder().deleteMode(ForgetMode.HARD).build()) {
            SessionRef s = new SessionRef("acme", "alice", "s1");
            memory.chatMemoryProvider().get(s).add(dev.langchain4j.data.message.UserMessage.from("my card is 4111"));

            memory.chatMemoryStore().deleteMessages(s);

            assertThat(memory.chatMemoryStore().getMessages(s)).isEmpty();
            assertThat(String.join("\n", memory.engine().admin().readableLog(memory.caller(s)))).doesNotContain("card is 4111");
            assertThat(memory.engine().admin().log(memory.caller(s)).toString()).doesNotContain("card is 4111");
        }
    }

    @Test
    void should_not_change_a_built_memory_when_the_builder_is_reused() {
        // given
        AgentMemory.Builder builder = AgentMemory.builder().windowSize(2).agent("first");
        try (AgentMemory first = builder.build()) {
            // when: the builder is changed and used again
            builder.windowSize(50).agent("second").config(props("agentmemory.window-size", "40"));
            try (AgentMemory second = builder.build()) {
                // then
                SessionRef s = new SessionRef("acme", "alice", "s1");
                dev.langchain4j.memory.ChatMemory window = first.chatMemoryProvider().get(s);
                for (int i = 0; i < 5; i++) {
                    window.add(dev.langchain4j.data.message.UserMessage.from("m" + i));
                }
                assertThat(window.messages()).hasSize(2);
                assertThat(first.agent()).isEqualTo("first");
                assertThat(second.agent()).isEqualTo("second");
            }
        }
    }

    @Test
    void should_refuse_a_message_over_max_message_chars_naming_the_setting_and_keep_the_window() {
        try (AgentMemory memory = AgentMemory.builder().config(props("agentmemory.max-message-chars", "2048")).build()) {
            SessionRef s = new SessionRef("acme", "alice", "s1");
            List<dev.langchain4j.data.message.ChatMessage> before = List.of(
                    dev.langchain4j.data.message.UserMessage.from("hi"));
            memory.chatMemoryStore().updateMessages(s, before);
            List<dev.langchain4j.data.message.ChatMessage> big = List.of(
                    dev.langchain4j.data.message.UserMessage.from("hi"),
                    dev.langchain4j.data.message.AiMessage.from("x".repeat(3000)));

            assertThatThrownBy(() -> memory.chatMemoryStore().updateMessages(s, big))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("a message of type AI of session acme/alice/s1 is ")
                    .hasMessageEndingWith(" characters serialized, over the limit of 2048 (raise"
                            + " agentmemory.max-message-chars, MemoryEngine.Builder#maxMessageChars)");
            assertThat(memory.chatMemoryStore().getMessages(s)).isEqualTo(before);
        }
    }

    @Test
    void should_keep_a_large_image_message_when_max_message_chars_is_raised() {
        String image = java.util.Base64.getEncoder().encodeToString(new byte[900_000]); // 1.2 MB of base64
        dev.langchain4j.data.message.UserMessage withImage = dev.langchain4j.data.message.UserMessage.from(List.of(
                dev.langchain4j.data.message.TextContent.from("what is this?"),
                dev.langchain4j.data.message.ImageContent.from(image, "image/png")));
        SessionRef s = new SessionRef("acme", "alice", "s1");
        try (AgentMemory memory = AgentMemory.builder().build()) {
            assertThatThrownBy(() -> memory.chatMemoryStore().updateMessages(s, List.of(withImage)))
                    .hasMessageContaining("over the limit of 1048576 (raise agentmemory.max-message-chars");
        }
        try (AgentMemory memory = AgentMemory.builder().engineSettings(e -> e.maxMessageChars(4 * 1024 * 1024)).build()) {
            memory.chatMemoryStore().updateMessages(s, List.of(withImage));
            assertThat(memory.chatMemoryStore().getMessages(s)).containsExactly(withImage);
        }
    }

    @Test
    void should_refuse_max_message_chars_with_a_ready_engine_and_out_of_range() {
        assertThatThrownBy(() -> AgentMemory.builder().config(props("agentmemory.max-message-chars", "10")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("agentmemory.max-message-chars: max-message-chars must be within 1024..67108864: 10");
        assertThatThrownBy(() -> AgentMemory.builder().engineSettings(e -> e.maxMessageChars(10)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxMessageChars must be within 1024..67108864: 10");
        assertThatThrownBy(() -> AgentMemory.builder().config(props("agentmemory.max-message-chars", "4096")).engine(MemoryEngine.builder().build()).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("settings [max-message-chars] belong to the engine: set them on MemoryEngine.builder()"
                        + " when passing a ready engine");
    }
}

package dev.agentmemory.core;

import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.engine.MemoryEngine.Messages;
import dev.agentmemory.core.event.StoredMessage;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MessageLimitTest {

    @Test
    void should_refuse_an_oversized_message_and_keep_the_window_when_appending() {
        // given
        MemoryEngine engine = MemoryEngine.builder().maxMessageChars(2048).build();
        Caller alice = Caller.of("shop", "alice");
        engine.messages().change(alice, "s1", w -> new Messages.WindowChange(List.of(),
                List.of(new StoredMessage(0, 0, "USER", "{\"text\":\"hi\"}", "hi"))));
        String huge = "{\"text\":\"" + "x".repeat(3000) + "\"}";

        // when / then
        assertThatThrownBy(() -> engine.messages().change(alice, "s1", w -> new Messages.WindowChange(List.of(0L),
                List.of(new StoredMessage(1, 1, "USER", huge, "x")))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("message 1 of session s1 is 3011 characters serialized, over the limit of 2048 (MemoryEngine.Builder#maxMessageChars)");
        assertThat(engine.messages().window(alice, "s1")).extracting(StoredMessage::text).containsExactly("hi");
        assertThat(engine.admin().audit(alice, java.time.Duration.ofDays(1)).replayMatches()).isTrue();
    }

    @Test
    void should_name_the_setting_when_the_message_limit_is_out_of_range() {
        assertThatThrownBy(() -> MemoryEngine.builder().maxMessageChars(10))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxMessageChars must be within 1024..67108864: 10");
    }
}

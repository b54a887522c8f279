package dev.agentmemory.langchain4j;

import dev.agentmemory.core.event.StoredMessage;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ChatMessageSerializer;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import org.junit.jupiter.api.Test;

import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The window diff alone: no engine, no store. */
class WindowDiffTest {

    private final WindowDiff diff = new WindowDiff(m -> m,
            (index, order, m, json) -> new StoredMessage(index, order, m.type().name(), json, MessageText.of(m)));

    private static StoredMessage stored(long index, ChatMessage m) {
        return new StoredMessage(index, WindowDiff.GAP * (index + 1), m.type().name(),
                ChatMessageSerializer.messageToJson(m), MessageText.of(m));
    }

    @Test
    void should_evict_the_front_and_append_the_tail_when_the_window_slides() {
        ChatMessage one = UserMessage.from("one");
        ChatMessage two = AiMessage.from("two");
        ChatMessage three = UserMessage.from("three");
        List<StoredMessage> window = List.of(stored(0, one), stored(1, two));

        WindowDiff.Result result = diff.diff(window, List.of(one, two), List.of(two, three), 2, m -> null, p -> false);

        assertThat(result.change().evicted()).containsExactly(0L);
        assertThat(result.change().appended()).extracting(StoredMessage::index, StoredMessage::text)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(2L, "three"));
        assertThat(result.appended().get(2L).stored()).isSameAs(three);
        assertThat(result.windowAfter()).isNotNull();
        assertThat(result.windowAfter().messages()).containsExactly(two, three);
    }

    @Test
    void should_not_store_again_a_message_another_update_evicted_after_this_caller_read_it() {
        // given: both callers read [opening]; the first wrote [opening, a], the second [opening, b]
        // (evicting a); the first now writes the list it built on its own write: [opening, a, a2]
        ChatMessage opening = UserMessage.from("opening");
        ChatMessage a = UserMessage.from("a");
        ChatMessage b = UserMessage.from("b");
        ChatMessage a2 = AiMessage.from("a2");
        List<StoredMessage> window = List.of(stored(0, opening), stored(2, b));
        Map<ChatMessage, Long> storedAt = new IdentityHashMap<>(Map.of(opening, 0L, a, 1L, b, 2L));

        // when
        WindowDiff.Result result = diff.diff(window, List.of(opening, b), List.of(opening, a, a2), 3, storedAt::get, p -> false);

        // then: a stays once in the history (index 1), only a2 is new
        assertThat(result.change().appended()).extracting(StoredMessage::text).containsExactly("a2");
        assertThat(result.change().evicted()).containsExactly(2L);
    }

    @Test
    void should_append_a_copy_with_the_same_text_as_an_evicted_message() {
        // a new instance is a new message, whatever it says
        ChatMessage yes = UserMessage.from("yes");
        ChatMessage ok = AiMessage.from("ok");
        List<StoredMessage> window = List.of(stored(1, ok));
        Map<ChatMessage, Long> storedAt = new IdentityHashMap<>(Map.of(yes, 0L, ok, 1L));

        WindowDiff.Result result = diff.diff(window, List.of(ok), List.of(ok, UserMessage.from("yes")), 2,
                storedAt::get, p -> false);

        assertThat(result.change().evicted()).isEmpty();
        assertThat(result.change().appended()).extracting(StoredMessage::text).containsExactly("yes");
    }

    @Test
    void should_keep_a_waiting_call_the_list_brings_back_and_evict_it_when_the_list_drops_it() {
        ToolExecutionRequest paris = ToolExecutionRequest.builder().id("c1").name("weather").arguments("{}").build();
        ToolExecutionRequest rome = ToolExecutionRequest.builder().id("c2").name("weather").arguments("{}").build();
        ChatMessage user = UserMessage.from("weather?");
        ChatMessage call = AiMessage.from(List.of(paris, rome));
        ChatMessage first = ToolExecutionResultMessage.from(paris, "sunny");
        ChatMessage second = ToolExecutionResultMessage.from(rome, "rainy");
        List<StoredMessage> window = List.of(stored(0, user), stored(1, call), stored(2, first));
        List<ChatMessage> current = List.of(user, call, first);

        // when the call waits: the next result is appended after it
        WindowDiff.Result waited = diff.diff(window, current, List.of(user, call, first, second), 3, m -> null,
                p -> p == 1);
        // when a window dropped the call with its results (LangChain4j evicts them together)
        WindowDiff.Result dropped = diff.diff(window, current, List.of(), 3, m -> null, p -> p == 1);
        // when it does not wait (a restart): it was left out, the same list appends a result without its call
        WindowDiff.Result abandoned = diff.diff(window, current, List.of(user, second), 3, m -> null, p -> false);

        assertThat(waited.change().evicted()).isEmpty();
        assertThat(waited.change().appended()).extracting(StoredMessage::index).containsExactly(3L);
        assertThat(dropped.change().evicted()).containsExactlyInAnyOrder(0L, 1L, 2L);
        assertThat(dropped.change().appended()).isEmpty();
        assertThat(abandoned.change().evicted()).containsExactlyInAnyOrder(1L, 2L);
        assertThat(abandoned.change().appended()).extracting(StoredMessage::index).containsExactly(3L);
    }
}

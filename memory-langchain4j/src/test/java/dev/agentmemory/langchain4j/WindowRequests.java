package dev.agentmemory.langchain4j;

import dev.agentmemory.langchain4j.framing.MemoryFramer;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.Content;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.request.ChatRequest;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Checks on the whole request a model receives, shared by the chat window regression tests. */
final class WindowRequests {

    private WindowRequests() {
    }

    /**
     * Every tool call answered, no result without its call; a memory block of this framer at the
     * start of the current (last) user message, whose text without it is {@code typed}; every
     * earlier user message exactly as the user typed it (one of {@code typedBefore}), no block added.
     */
    static void assertValid(ChatRequest request, MemoryFramer framer, String typed, java.util.Collection<String> typedBefore) {
        List<ChatMessage> messages = request.messages();
        assertThat(ToolCallPairing.danglingToolMessages(messages)).as("unpaired tool messages in %s", messages)
                .isEmpty();
        int last = -1;
        for (int i = 0; i < messages.size(); i++) {
            if (messages.get(i) instanceof UserMessage) {
                last = i;
            }
        }
        assertThat(last).as("a user message in the request").isNotNegative();
        for (int i = 0; i < last; i++) {
            if (messages.get(i) instanceof UserMessage u) {
                assertThat(typedBefore).as("earlier user message %d as typed", i).contains(text(u));
            }
        }
        String current = text((UserMessage) messages.get(last));
        assertThat(framer.parse(current)).as("blocks in the current user message").isNotEmpty();
        assertThat(framer.parse(current).get(0).start()).isZero();
        assertThat(framer.stripFrames(current)).isEqualTo(typed);
    }

    static String text(UserMessage u) {
        StringBuilder b = new StringBuilder();
        for (Content c : u.contents()) {
            if (c instanceof TextContent t) {
                b.append(t.text());
            }
        }
        return b.toString();
    }
}

package dev.agentmemory.langchain4j;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.Content;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;

/** The plain text of a chat message as the engine stores it next to the serialized form. */
final class MessageText {

    private MessageText() {
    }

    /**
     * The text of {@code m}: a user message's text contents joined by new lines, an AI message's,
     * system message's or tool result's text; empty for anything else.
     */
    static String of(ChatMessage m) {
        if (m instanceof UserMessage u) {
            StringBuilder b = new StringBuilder();
            for (Content c : u.contents()) {
                if (c instanceof TextContent t) {
                    if (!b.isEmpty()) {
                        b.append('\n');
                    }
                    b.append(t.text());
                }
            }
            return b.toString();
        }
        if (m instanceof AiMessage ai) {
            return ai.text() == null ? "" : ai.text();
        }
        if (m instanceof SystemMessage s) {
            return s.text();
        }
        if (m instanceof ToolExecutionResultMessage r) {
            return r.text() == null ? "" : r.text();
        }
        return "";
    }
}

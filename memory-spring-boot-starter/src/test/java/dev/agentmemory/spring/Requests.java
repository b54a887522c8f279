package dev.agentmemory.spring;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.request.ChatRequest;

import java.util.stream.Collectors;

/** The whole text a model received in one request, message by message. */
final class Requests {

    private Requests() {
    }

    static String text(ChatRequest request) {
        return request.messages().stream().map(Requests::text).collect(Collectors.joining("\n"));
    }

    private static String text(ChatMessage m) {
        if (m instanceof UserMessage u) {
            return "user: " + u.singleText();
        } else if (m instanceof AiMessage a) {
            return "ai: " + a.text() + (a.hasToolExecutionRequests() ? " " + a.toolExecutionRequests() : "");
        } else if (m instanceof ToolExecutionResultMessage t) {
            return "tool: " + t.text();
        } else if (m instanceof SystemMessage s) {
            return "system: " + s.text();
        }
        return m.toString();
    }
}

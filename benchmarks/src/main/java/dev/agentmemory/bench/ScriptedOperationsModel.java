package dev.agentmemory.bench;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * A chat model that answers each request with the next queued text, standing in for an
 * extraction model that was talked into proposing whatever a tool result said. Fails when asked
 * more often than answers were queued. Not thread-safe.
 */
final class ScriptedOperationsModel implements ChatModel {

    private final Deque<String> answers = new ArrayDeque<>();

    void enqueue(String answer) {
        answers.add(answer);
    }

    int pending() {
        return answers.size();
    }

    void clear() {
        answers.clear();
    }

    @Override
    public ChatResponse doChat(ChatRequest request) {
        String answer = answers.poll();
        if (answer == null) {
            throw new IllegalStateException("scripted model asked more often than answers were queued");
        }
        return ChatResponse.builder().aiMessage(AiMessage.from(answer)).modelName("scripted-injection").build();
    }
}

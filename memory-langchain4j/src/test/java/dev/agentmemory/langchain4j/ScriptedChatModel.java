package dev.agentmemory.langchain4j;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Function;

/**
 * An offline ChatModel: each request is answered by a script (a function of the request), and
 * every request is kept so that tests can look at exactly what the model was shown.
 */
public final class ScriptedChatModel implements ChatModel {

    private final Function<ChatRequest, AiMessage> script;
    private final List<ChatRequest> requests = Collections.synchronizedList(new ArrayList<>());

    public ScriptedChatModel(Function<ChatRequest, AiMessage> script) {
        this.script = script;
    }

    /** Answers every request with "echo: " and the last user text (without any memory block). */
    static ScriptedChatModel echo(AgentMemory memory) {
        return new ScriptedChatModel(r -> AiMessage.from("echo: " + memory.framer().stripFrames(lastUserText(r))));
    }

    @Override
    public ChatResponse doChat(ChatRequest request) {
        requests.add(request);
        return ChatResponse.builder().aiMessage(script.apply(request)).build();
    }

    public List<ChatRequest> requests() {
        synchronized (requests) {
            return List.copyOf(requests);
        }
    }

    public ChatRequest lastRequest() {
        synchronized (requests) {
            return requests.get(requests.size() - 1);
        }
    }

    public static String lastUserText(ChatRequest request) {
        List<ChatMessage> messages = request.messages();
        for (int i = messages.size() - 1; i >= 0; i--) {
            if (messages.get(i) instanceof UserMessage u) {
                return u.singleText();
            }
        }
        return "";
    }
}

package dev.agentmemory.langchain4j.tools;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.model.chat.Capability;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/** An offline ChatModel that answers from a script and keeps every request it saw. */
final class ScriptedChatModel implements ChatModel {

    private final String name;
    private final Set<Capability> capabilities;
    private final Deque<Function<ChatRequest, AiMessage>> script;
    final List<ChatRequest> requests = new CopyOnWriteArrayList<>();

    @SafeVarargs
    ScriptedChatModel(String name, boolean jsonSchema, Function<ChatRequest, AiMessage>... steps) {
        this.name = name;
        this.capabilities = jsonSchema ? Set.of(Capability.RESPONSE_FORMAT_JSON_SCHEMA) : Set.of();
        this.script = new ArrayDeque<>(Arrays.asList(steps));
    }

    static Function<ChatRequest, AiMessage> text(String text) {
        return r -> AiMessage.from(text);
    }

    static Function<ChatRequest, AiMessage> call(String tool, String arguments) {
        return r -> AiMessage.from(ToolExecutionRequest.builder().id("call-" + tool).name(tool).arguments(arguments).build());
    }

    /** Answers with the text of the tool results the request carries, so a test sees what the tools said. */
    static Function<ChatRequest, AiMessage> echoToolResults() {
        return r -> AiMessage.from(String.join("\n", toolResults(r.messages())));
    }

    static List<String> toolResults(List<ChatMessage> messages) {
        return messages.stream().filter(m -> m instanceof ToolExecutionResultMessage)
                .map(m -> ((ToolExecutionResultMessage) m).text()).toList();
    }

    int remaining() {
        return script.size();
    }

    @Override
    public ChatResponse doChat(ChatRequest request) {
        requests.add(request);
        Function<ChatRequest, AiMessage> step = script.poll();
        if (step == null) {
            throw new IllegalStateException("script exhausted after " + requests.size() + " requests");
        }
        return ChatResponse.builder().aiMessage(step.apply(request)).modelName(name).build();
    }

    @Override
    public Set<Capability> supportedCapabilities() {
        return capabilities;
    }
}

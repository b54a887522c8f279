package dev.agentmemory.langchain4j.oracle;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;

import java.util.function.Consumer;
import java.util.function.Function;

/** A scripted offline ChatModel that hands every request to a check before it answers (or throws). */
final class CheckingChatModel implements ChatModel {

    private final Consumer<ChatRequest> check;
    private final Function<ChatRequest, AiMessage> script;

    CheckingChatModel(Consumer<ChatRequest> check, Function<ChatRequest, AiMessage> script) {
        this.check = check;
        this.script = script;
    }

    @Override
    public ChatResponse doChat(ChatRequest request) {
        check.accept(request);
        return ChatResponse.builder().aiMessage(script.apply(request)).build();
    }
}

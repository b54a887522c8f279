package dev.agentmemory.testing.langchain4j;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.Capability;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import org.jspecify.annotations.Nullable;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * An offline {@link ChatModel} that answers from a script and keeps every request it saw, so that
 * tests can look at exactly what the model was shown. Either one answer function serves every
 * request ({@link #ScriptedChatModel(Function)}), or a queue of steps is used up one per request
 * (the model throws when it runs out). An optional check sees each request before it is answered
 * and may throw.
 */
public final class ScriptedChatModel implements ChatModel {

    private final @Nullable String name;
    private final Set<Capability> capabilities;
    /** The one answer for every request, or null when the model uses up {@link #steps}. */
    private final @Nullable Function<ChatRequest, AiMessage> every;
    /** One step per request, or null when {@link #every} answers them all. */
    private final @Nullable Deque<Function<ChatRequest, AiMessage>> steps;
    private final Consumer<ChatRequest> check;
    private final List<ChatRequest> requests = new CopyOnWriteArrayList<>();

    private ScriptedChatModel(@Nullable String name, Set<Capability> capabilities,
                              @Nullable Function<ChatRequest, AiMessage> every,
                              @Nullable Deque<Function<ChatRequest, AiMessage>> steps, Consumer<ChatRequest> check) {
        this.name = name;
        this.capabilities = capabilities;
        this.every = every;
        this.steps = steps;
        this.check = check;
    }

    /** A model that answers every request with {@code script}. */
    public ScriptedChatModel(Function<ChatRequest, AiMessage> script) {
        this(null, Set.of(), Objects.requireNonNull(script, "script"), null, r -> { });
    }

    /**
     * A model named {@code name} that answers the n-th request with the n-th step and throws
     * {@link IllegalStateException} after the last; {@code jsonSchema} says whether it claims
     * {@link Capability#RESPONSE_FORMAT_JSON_SCHEMA}.
     */
    @SafeVarargs
    public ScriptedChatModel(String name, boolean jsonSchema, Function<ChatRequest, AiMessage>... steps) {
        this(name, jsonSchema ? Set.of(Capability.RESPONSE_FORMAT_JSON_SCHEMA) : Set.of(), null,
                new ArrayDeque<>(Arrays.asList(steps)), r -> { });
    }

    /** A model that hands every request to {@code check} (which may throw) and then answers it with {@code script}. */
    public static ScriptedChatModel checking(Consumer<ChatRequest> check, Function<ChatRequest, AiMessage> script) {
        return new ScriptedChatModel(null, Set.of(), Objects.requireNonNull(script, "script"), null,
                Objects.requireNonNull(check, "check"));
    }

    /** Answers every request with "echo: " and the last user text after {@code clean} (e.g. stripping memory blocks). */
    public static ScriptedChatModel echo(UnaryOperator<String> clean) {
        return new ScriptedChatModel(r -> AiMessage.from("echo: " + clean.apply(lastUserText(r))));
    }

    /** A step that answers with {@code text}. */
    public static Function<ChatRequest, AiMessage> text(String text) {
        return r -> AiMessage.from(text);
    }

    /** A step that calls {@code tool} with the JSON {@code arguments} (request id {@code call-<tool>}). */
    public static Function<ChatRequest, AiMessage> call(String tool, String arguments) {
        return r -> AiMessage.from(ToolExecutionRequest.builder().id("call-" + tool).name(tool).arguments(arguments).build());
    }

    /** A step that answers with the text of the tool results the request carries, so a test sees what the tools said. */
    public static Function<ChatRequest, AiMessage> echoToolResults() {
        return r -> AiMessage.from(String.join("\n", toolResults(r.messages())));
    }

    /** The texts of the tool results among {@code messages}. */
    public static List<String> toolResults(List<ChatMessage> messages) {
        return messages.stream().filter(m -> m instanceof ToolExecutionResultMessage)
                .map(m -> ((ToolExecutionResultMessage) m).text()).toList();
    }

    /** The text of the last user message of {@code request}, or "" when it has none. */
    public static String lastUserText(ChatRequest request) {
        List<ChatMessage> messages = request.messages();
        for (int i = messages.size() - 1; i >= 0; i--) {
            if (messages.get(i) instanceof UserMessage u) {
                return u.singleText();
            }
        }
        return "";
    }

    @Override
    public ChatResponse doChat(ChatRequest request) {
        requests.add(request);
        check.accept(request);
        Function<ChatRequest, AiMessage> answer = every;
        if (answer == null) {
            Deque<Function<ChatRequest, AiMessage>> queue = Objects.requireNonNull(steps, "a model without one answer has steps");
            synchronized (queue) {
                answer = queue.poll();
            }
            if (answer == null) {
                throw new IllegalStateException("script exhausted after " + requests.size() + " requests");
            }
        }
        ChatResponse.Builder response = ChatResponse.builder().aiMessage(answer.apply(request));
        if (name != null) {
            response.modelName(name);
        }
        return response.build();
    }

    @Override
    public Set<Capability> supportedCapabilities() {
        return capabilities;
    }

    /** Every request seen so far, in order. */
    public List<ChatRequest> requests() {
        return List.copyOf(requests);
    }

    /** The last request seen. */
    public ChatRequest lastRequest() {
        return requests.get(requests.size() - 1);
    }

    /** How many scripted steps are left (0 for a model that answers every request). */
    public int remaining() {
        if (steps == null) {
            return 0;
        }
        synchronized (steps) {
            return steps.size();
        }
    }
}

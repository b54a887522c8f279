package dev.agentmemory.langchain4j;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.agentmemory.core.internal.JsonStrings;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentmemory.core.event.StoredMessage;
import dev.agentmemory.core.internal.hooks.MessageRedactor;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ChatMessageDeserializer;
import dev.langchain4j.data.message.ChatMessageSerializer;
import dev.langchain4j.data.message.Content;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Redacts LangChain4j chat messages as the engine stores them (their {@link ChatMessageSerializer}
 * JSON), touching only content, so that the list stays valid for any model API:
 * <ul>
 *   <li>a user message: each text part that states a forgotten value becomes
 *       {@value MessageRedactor#REDACTED} (other parts, its name and attributes stay);</li>
 *   <li>an AI message: its text and thinking likewise; each tool call keeps its id and name, and
 *       in its arguments (JSON) every string that states a value becomes
 *       {@value MessageRedactor#REDACTED}; arguments that are not JSON and state a value become
 *       {@code {}}; for a source message every argument string goes;</li>
 *   <li>a tool result keeps its id, tool name and error flag; a stating text becomes
 *       {@value MessageRedactor#REDACTED}.</li>
 * </ul>
 * Other messages (system, custom) are left to the engine. Stateless, thread-safe.
 */
final class ChatMessageRedactor implements MessageRedactor {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Override
    public Optional<StoredMessage> redact(StoredMessage message, boolean source, Predicate<String> states) {
        if (message.json() == null) {
            return Optional.empty();
        }
        ChatMessage m;
        try {
            m = ChatMessageDeserializer.messageFromJson(message.json());
        } catch (RuntimeException notOurs) {
            return Optional.empty();
        }
        Predicate<String> field = s -> s != null && !s.isBlank() && (source || states.test(s));
        ChatMessage redacted;
        if (m instanceof UserMessage u) {
            redacted = user(u, field);
        } else if (m instanceof AiMessage ai) {
            redacted = ai(ai, source, field);
        } else if (m instanceof ToolExecutionResultMessage r) {
            redacted = result(r, field);
        } else {
            return Optional.empty();
        }
        if (redacted == m) {
            return Optional.of(message);
        }
        return Optional.of(new StoredMessage(message.index(), message.order(), message.type(),
                ChatMessageSerializer.messageToJson(redacted), MessageText.of(redacted)));
    }

    private static ChatMessage user(UserMessage u, Predicate<String> field) {
        List<Content> contents = new ArrayList<>(u.contents().size());
        boolean changed = false;
        for (Content c : u.contents()) {
            if (c instanceof TextContent t && field.test(t.text())) {
                contents.add(TextContent.from(REDACTED));
                changed = true;
            } else {
                contents.add(c);
            }
        }
        return changed ? u.toBuilder().contents(contents).build() : u;
    }

    private static ChatMessage ai(AiMessage ai, boolean source, Predicate<String> field) {
        boolean changed = false;
        AiMessage.Builder b = ai.toBuilder();
        if (field.test(ai.text())) {
            b.text(REDACTED);
            changed = true;
        }
        if (field.test(ai.thinking())) {
            b.thinking(REDACTED);
            changed = true;
        }
        if (ai.hasToolExecutionRequests()) {
            List<ToolExecutionRequest> calls = new ArrayList<>();
            for (ToolExecutionRequest call : ai.toolExecutionRequests()) {
                String args = arguments(call.arguments(), source, field);
                if (args != null) {
                    calls.add(call.toBuilder().arguments(args).build());
                    changed = true;
                } else {
                    calls.add(call);
                }
            }
            b.toolExecutionRequests(calls);
        }
        return changed ? b.build() : ai;
    }

    /** The redacted arguments, or null when nothing in them states a value. */
    private static @Nullable String arguments(@Nullable String args, boolean source, Predicate<String> field) {
        if (args == null || args.isBlank()) {
            return null;
        }
        JsonNode root;
        try {
            root = JSON.readTree(args);
        } catch (JsonProcessingException e) {
            return field.test(args) ? "{}" : null;
        }
        if (root == null || root.isMissingNode()) {
            return null;
        }
        JsonNode done = walk(root, field);
        if (done == root) {
            return null;
        }
        return source && !done.isContainerNode() ? "{}" : done.toString();
    }

    /** The node with every string the predicate accepts replaced; the same instance when none is. */
    private static JsonNode walk(JsonNode node, Predicate<String> field) {
        return JsonStrings.map(node, s -> field.test(s) ? REDACTED : s);
    }

    private static ChatMessage result(ToolExecutionResultMessage r, Predicate<String> field) {
        ToolExecutionResultMessage.Builder b = ToolExecutionResultMessage.builder().id(r.id()).toolName(r.toolName())
                .isError(r.isError()).attributes(r.attributes());
        if (r.hasSingleText()) {
            return field.test(r.text()) ? b.text(REDACTED).build() : r;
        }
        List<Content> contents = new ArrayList<>();
        boolean changed = false;
        for (Content c : r.contents()) {
            if (c instanceof TextContent t && field.test(t.text())) {
                contents.add(TextContent.from(REDACTED));
                changed = true;
            } else {
                contents.add(c);
            }
        }
        return changed ? b.contents(contents).build() : r;
    }
}

package dev.agentmemory.core.internal.codec;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentmemory.core.event.StoredMessage;
import dev.agentmemory.core.internal.JsonStrings;
import dev.agentmemory.core.internal.hooks.MessageRedactor;

import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The engine's last-resort redaction, for messages no registered redactor knows: the message's
 * JSON is walked and every string value that states a forgotten value (for a source message, also
 * every string equal to its text or to a line of it) becomes {@link MessageRedactor#REDACTED};
 * a string holding JSON itself (e.g. tool-call arguments) is redacted inside and written back.
 * Object keys are never touched. A message whose JSON does not parse is not handled (empty).
 */
public final class JsonMessageRedactor implements MessageRedactor {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Override
    public Optional<StoredMessage> redact(StoredMessage message, boolean source, Predicate<String> states) {
        if (message.json() == null) {
            return Optional.empty();
        }
        String text = message.text() == null ? "" : message.text();
        Set<String> lines = Set.of(text.split("\n"));
        Predicate<String> field = s -> !s.isBlank() && (states.test(s) || source && (s.equals(text) || lines.contains(s)));
        JsonNode root;
        try {
            root = JSON.readTree(message.json());
        } catch (JsonProcessingException e) {
            return Optional.empty();
        }
        if (root == null || root.isMissingNode()) {
            return Optional.empty();
        }
        JsonNode redacted = walk(root, field);
        String newText = !text.isBlank() && (source || states.test(text)) ? REDACTED : message.text();
        String json = redacted == root ? message.json() : redacted.toString();
        return Optional.of(new StoredMessage(message.index(), message.order(), message.type(), json, newText));
    }

    /** The node with stating strings replaced; the same instance when nothing changed. */
    private static JsonNode walk(JsonNode node, Predicate<String> field) {
        return JsonStrings.map(node, s -> {
            String trimmed = s.strip();
            if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
                try {
                    JsonNode inner = JSON.readTree(s);
                    if (inner != null && inner.isContainerNode()) {
                        JsonNode done = walk(inner, field);
                        return done == inner ? s : done.toString();
                    }
                } catch (JsonProcessingException notJson) {
                    // plain text that starts with a bracket
                }
            }
            return field.test(s) ? REDACTED : s;
        });
    }
}

package dev.agentmemory.core.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.agentmemory.core.event.StoredMessage;
import dev.agentmemory.core.spi.MessageRedactor;

import java.util.Iterator;
import java.util.Map;
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
        if (node.isTextual()) {
            String s = node.textValue();
            String trimmed = s.strip();
            if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
                try {
                    JsonNode inner = JSON.readTree(s);
                    if (inner != null && inner.isContainerNode()) {
                        JsonNode done = walk(inner, field);
                        return done == inner ? node : new TextNode(done.toString());
                    }
                } catch (JsonProcessingException notJson) {
                    // plain text that starts with a bracket
                }
            }
            return field.test(s) ? new TextNode(REDACTED) : node;
        }
        if (node.isObject()) {
            ObjectNode copy = null;
            Iterator<Map.Entry<String, JsonNode>> it = node.fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                JsonNode done = walk(e.getValue(), field);
                if (done != e.getValue()) {
                    if (copy == null) {
                        copy = ((ObjectNode) node).deepCopy();
                    }
                    copy.set(e.getKey(), done);
                }
            }
            return copy == null ? node : copy;
        }
        if (node.isArray()) {
            ArrayNode copy = null;
            for (int i = 0; i < node.size(); i++) {
                JsonNode done = walk(node.get(i), field);
                if (done != node.get(i)) {
                    if (copy == null) {
                        copy = ((ArrayNode) node).deepCopy();
                    }
                    copy.set(i, done);
                }
            }
            return copy == null ? node : copy;
        }
        return node;
    }
}

package dev.agentmemory.core.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;

import java.util.Iterator;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * Rewrites the string values of a JSON tree (message redaction, echoed memory blocks). Not part
 * of the public API: shared by the engine and its LangChain4j adapter only.
 */
public final class JsonStrings {

    private JsonStrings() {
    }

    /**
     * The tree with every string value {@code f} changes replaced by {@code f}'s result; the very
     * same instance when {@code f} changes none (so callers can tell cheaply). Field names are
     * kept; the tree given is never modified.
     */
    public static JsonNode map(JsonNode node, UnaryOperator<String> f) {
        if (node.isTextual()) {
            String s = node.textValue();
            String done = f.apply(s);
            return done.equals(s) ? node : new TextNode(done);
        }
        if (node.isObject()) {
            ObjectNode copy = null;
            Iterator<Map.Entry<String, JsonNode>> it = node.fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                JsonNode done = map(e.getValue(), f);
                if (done != e.getValue()) {
                    copy = copy == null ? ((ObjectNode) node).deepCopy() : copy;
                    copy.set(e.getKey(), done);
                }
            }
            return copy == null ? node : copy;
        }
        if (node.isArray()) {
            ArrayNode copy = null;
            for (int i = 0; i < node.size(); i++) {
                JsonNode done = map(node.get(i), f);
                if (done != node.get(i)) {
                    copy = copy == null ? ((ArrayNode) node).deepCopy() : copy;
                    copy.set(i, done);
                }
            }
            return copy == null ? node : copy;
        }
        return node;
    }
}

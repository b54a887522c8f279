package dev.agentmemory.langchain4j.tools;

import dev.agentmemory.langchain4j.internal.EnumText;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryValue;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * Parses a model's memory operations, strictly. The expected text is one JSON object:
 * <pre>{@code
 * {"operations": [
 *   {"op": "set", "scope": "session", "key": "order.current", "value": "20241015",
 *    "kind": "task_fact", "confidence": 0.9, "evidence": "my order 20241015"},
 *   {"op": "invalidate", "scope": "task", "key": "exchange.color", "reason": "the user changed their mind"}
 * ]}
 * }</pre>
 * <ul>
 *   <li>{@code op}: {@code set}, {@code append} or {@code invalidate}; {@code scope}: {@code persistent},
 *       {@code session} or {@code task}; {@code key}: a dotted {@link MemoryKey};</li>
 *   <li>{@code value}: any JSON value except null, required for set and append, absent for invalidate;</li>
 *   <li>{@code kind}: {@code preference}, {@code task_fact}, {@code observation}, {@code inference},
 *       {@code decision} or {@code reference}, required for set and append;</li>
 *   <li>{@code confidence} (number 0..1, default 1), {@code evidence} and {@code reason} (strings of at
 *       most {@value #MAX_TEXT} characters) are optional; no other field is accepted.</li>
 * </ul>
 * One surrounding Markdown code fence is tolerated. Limits: {@value #MAX_CHARS} characters,
 * {@value #MAX_OPERATIONS} operations, nesting {@value #MAX_DEPTH} levels deep in all. Anything
 * else fails with an {@link OperationParseException} whose message names the place and the fault,
 * fit to be sent back to the model. Thread-safe; never returns null.
 */
public final class OperationParser {

    /** Longest output accepted, in characters. */
    public static final int MAX_CHARS = 65_536;
    /** Most operations in one output. */
    public static final int MAX_OPERATIONS = 32;
    /** Deepest nesting of the whole document (the root object is level 1). */
    public static final int MAX_DEPTH = 10;
    /** Longest {@code evidence} or {@code reason}. */
    public static final int MAX_TEXT = 512;

    private static final Set<String> FIELDS = Set.of("op", "scope", "key", "value", "kind", "confidence", "evidence",
            "reason");
    private static final String KINDS = "preference, task_fact, observation, inference, decision, reference";

    private static final ObjectMapper MAPPER = JsonMapper.builder(JsonFactory.builder()
                    .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH).build())
                    .build())
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    private OperationParser() {
    }

    /** Parses {@code output}; see the class comment for the format. */
    public static List<ExtractedOperation> parse(String output) {
        Objects.requireNonNull(output, "output");
        if (output.length() > MAX_CHARS) {
            throw new OperationParseException("output is longer than " + MAX_CHARS + " characters: " + output.length());
        }
        String text = unfence(output.strip());
        if (text.isEmpty()) {
            throw new OperationParseException("output is empty: a JSON object with an \"operations\" array expected");
        }
        JsonNode root;
        try {
            root = MAPPER.readTree(text);
        } catch (StreamConstraintsException e) {
            throw new OperationParseException("output nests deeper than " + MAX_DEPTH + " levels");
        } catch (JsonProcessingException e) {
            throw new OperationParseException("output is not valid JSON: " + e.getOriginalMessage());
        }
        if (root == null || !root.isObject()) {
            throw new OperationParseException("output must be a JSON object with an \"operations\" array, got "
                    + type(root));
        }
        Iterator<String> names = root.fieldNames();
        while (names.hasNext()) {
            String name = names.next();
            if (!name.equals("operations")) {
                throw new OperationParseException("unknown field " + quote(name)
                        + " at the top level (only \"operations\" is allowed)");
            }
        }
        JsonNode ops = root.get("operations");
        if (ops == null) {
            throw new OperationParseException("missing \"operations\" array");
        }
        if (!ops.isArray()) {
            throw new OperationParseException("\"operations\" must be an array, got " + type(ops));
        }
        if (ops.size() > MAX_OPERATIONS) {
            throw new OperationParseException("too many operations: " + ops.size() + " (at most " + MAX_OPERATIONS + ")");
        }
        List<ExtractedOperation> out = new ArrayList<>(ops.size());
        for (int i = 0; i < ops.size(); i++) {
            out.add(operation(ops.get(i), "operations[" + i + "]"));
        }
        return List.copyOf(out);
    }

    private static ExtractedOperation operation(JsonNode node, String at) {
        if (!node.isObject()) {
            throw new OperationParseException(at + " must be an object, got " + type(node));
        }
        Iterator<String> names = node.fieldNames();
        while (names.hasNext()) {
            String name = names.next();
            if (!FIELDS.contains(name)) {
                throw new OperationParseException(at + " has unknown field " + quote(name)
                        + " (allowed: op, scope, key, value, kind, confidence, evidence, reason)");
            }
        }
        String opName = requiredString(node, at, "op");
        ExtractedOperation.Op op = switch (opName) {
            case "set" -> ExtractedOperation.Op.SET;
            case "append" -> ExtractedOperation.Op.APPEND;
            case "invalidate" -> ExtractedOperation.Op.INVALIDATE;
            default -> throw new OperationParseException(at + ".op must be one of set, append, invalidate: "
                    + quote(opName));
        };
        String scopeName = requiredString(node, at, "scope");
        ExtractedOperation.Target target = switch (scopeName) {
            case "persistent" -> ExtractedOperation.Target.PERSISTENT;
            case "session" -> ExtractedOperation.Target.SESSION;
            case "task" -> ExtractedOperation.Target.TASK;
            default -> throw new OperationParseException(at + ".scope must be one of persistent, session, task: "
                    + quote(scopeName));
        };
        String keyText = requiredString(node, at, "key");
        MemoryKey key;
        try {
            key = MemoryKey.of(keyText);
        } catch (IllegalArgumentException e) {
            throw new OperationParseException(at + ".key is invalid: " + e.getMessage());
        }
        MemoryValue value = value(node, at, op);
        Kind kind = kind(node, at, op);
        double confidence = 1.0;
        JsonNode c = node.get("confidence");
        if (c != null) {
            if (!c.isNumber()) {
                throw new OperationParseException(at + ".confidence must be a number, got " + type(c));
            }
            confidence = c.doubleValue();
            if (!(confidence >= 0.0 && confidence <= 1.0)) {
                throw new OperationParseException(at + ".confidence must be within 0..1: " + c.asText());
            }
        }
        String evidence = optionalText(node, at, "evidence");
        String reason = optionalText(node, at, "reason");
        return new ExtractedOperation(op, target, key, value, kind, confidence, evidence, reason);
    }

    private static @Nullable MemoryValue value(JsonNode node, String at, ExtractedOperation.Op op) {
        JsonNode v = node.get("value");
        if (op == ExtractedOperation.Op.INVALIDATE) {
            if (v != null) {
                throw new OperationParseException(at + ".value must be absent for invalidate");
            }
            return null;
        }
        String opName = EnumText.label(op);
        if (v == null) {
            throw new OperationParseException(at + ".value is required for " + opName);
        }
        if (v.isNull()) {
            throw new OperationParseException(at + ".value must not be null (use op \"invalidate\" to end a value)");
        }
        try {
            return MemoryValue.parse(v.toString());
        } catch (IllegalArgumentException e) {
            throw new OperationParseException(at + ".value is invalid: " + e.getMessage());
        }
    }

    private static Kind kind(JsonNode node, String at, ExtractedOperation.Op op) {
        if (op == ExtractedOperation.Op.INVALIDATE && node.get("kind") == null) {
            return Kind.INFERENCE;
        }
        String name = requiredString(node, at, "kind");
        return switch (name) {
            case "preference" -> Kind.PREFERENCE;
            case "task_fact" -> Kind.TASK_FACT;
            case "observation" -> Kind.OBSERVATION;
            case "inference" -> Kind.INFERENCE;
            case "decision" -> Kind.DECISION;
            case "reference" -> Kind.REFERENCE;
            default -> throw new OperationParseException(at + ".kind must be one of " + KINDS + ": " + quote(name));
        };
    }

    private static String requiredString(JsonNode node, String at, String field) {
        JsonNode v = node.get(field);
        if (v == null) {
            throw new OperationParseException(at + " is missing \"" + field + "\"");
        }
        if (!v.isTextual()) {
            throw new OperationParseException(at + "." + field + " must be a string, got " + type(v));
        }
        return v.textValue();
    }

    private static @Nullable String optionalText(JsonNode node, String at, String field) {
        JsonNode v = node.get(field);
        if (v == null) {
            return null;
        }
        if (!v.isTextual()) {
            throw new OperationParseException(at + "." + field + " must be a string, got " + type(v));
        }
        String s = v.textValue();
        if (s.length() > MAX_TEXT) {
            throw new OperationParseException(at + "." + field + " is longer than " + MAX_TEXT + " characters: "
                    + s.length());
        }
        return s;
    }

    /** Removes one code fence wrapping the whole output, as models often add. */
    private static String unfence(String s) {
        if (!s.startsWith("```")) {
            return s;
        }
        int firstLineEnd = s.indexOf('\n');
        if (firstLineEnd < 0 || !s.endsWith("```") || s.length() < firstLineEnd + 4) {
            throw new OperationParseException("output has a malformed code fence: expected ``` and a line break,"
                    + " the JSON object, then a closing ```");
        }
        return s.substring(firstLineEnd + 1, s.length() - 3).strip();
    }

    private static String type(@Nullable JsonNode node) {
        if (node == null || node.isMissingNode()) {
            return "nothing";
        }
        return switch (node.getNodeType()) {
            case ARRAY -> "an array";
            case OBJECT -> "an object";
            case STRING -> "a string";
            case NUMBER -> "a number";
            case BOOLEAN -> "a boolean";
            case NULL -> "null";
            default -> EnumText.label(node.getNodeType());
        };
    }

    /** Quotes a model-supplied string for an error message: at most 80 characters, control characters escaped. */
    static String quote(String s) {
        String shown = s.length() > 80 ? s.substring(0, 80) + "..." : s;
        StringBuilder b = new StringBuilder("\"");
        for (int i = 0; i < shown.length(); i++) {
            char c = shown.charAt(i);
            if (c < 0x20 || c == 0x7f || c == '"' || c == '\\' || Character.isSurrogate(c)) {
                b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append('"').toString();
    }
}

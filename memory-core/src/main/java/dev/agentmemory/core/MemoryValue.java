package dev.agentmemory.core;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;

import java.util.Objects;

/**
 * A JSON-compatible value, held in canonical JSON text (object keys sorted). Strings,
 * numbers, booleans, arrays and objects are allowed; JSON {@code null} is not (forget a key
 * instead). Nesting is limited to {@value #MAX_DEPTH} levels.
 */
public record MemoryValue(String json) {

    /** Deepest nesting accepted. */
    public static final int MAX_DEPTH = 32;

    static final ObjectMapper MAPPER = JsonMapper.builder(JsonFactory.builder()
                    .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH + 1).build())
                    .build())
            .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
            .build();

    public MemoryValue {
        Objects.requireNonNull(json, "json");
        if (!canonicalScalar(json)) {
            JsonNode node = read(json);
            json = canonical(node);
        }
    }

    /**
     * Whether {@code json} is a scalar already in canonical form, which parsing and writing again
     * would give back unchanged: {@code true}, {@code false}, an integer of at most 18 digits
     * without a leading zero (not {@code -0}), or a string literal that needs no escape (no
     * {@code "}, backslash or control character; surrogates in pairs). Values read back from the
     * log or a snapshot are mostly such strings: checking them costs a scan instead of a parse.
     */
    static boolean canonicalScalar(String json) {
        int n = json.length();
        if (n >= 2 && json.charAt(0) == '"') {
            if (json.charAt(n - 1) != '"') {
                return false;
            }
            for (int i = 1; i < n - 1; i++) {
                char c = json.charAt(i);
                if (c < 0x20 || c == '"' || c == '\\') {
                    return false;
                }
                if (Character.isSurrogate(c)) {
                    if (!Character.isHighSurrogate(c) || i + 1 >= n - 1 || !Character.isLowSurrogate(json.charAt(i + 1))) {
                        return false;
                    }
                    i++;
                }
            }
            return true;
        }
        if (json.equals("true") || json.equals("false") || json.equals("0")) {
            return true;
        }
        int start = n > 0 && json.charAt(0) == '-' ? 1 : 0;
        if (n - start < 1 || n - start > 18 || json.charAt(start) == '0') {
            return false;
        }
        for (int i = start; i < n; i++) {
            char c = json.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    /** A value from JSON text; fails with the parser's reason when the text is not JSON. */
    public static MemoryValue parse(String json) {
        return new MemoryValue(json);
    }

    /** A string value. */
    public static MemoryValue of(String text) {
        Objects.requireNonNull(text, "text");
        return new MemoryValue(canonical(MAPPER.getNodeFactory().textNode(text)));
    }

    /** A number value. */
    public static MemoryValue of(long number) {
        return new MemoryValue(Long.toString(number));
    }

    /** A boolean value. */
    public static MemoryValue of(boolean flag) {
        return new MemoryValue(Boolean.toString(flag));
    }

    /** The value as a tree (a fresh copy each call). */
    public JsonNode node() {
        return read(json);
    }

    /** The text of a string value, or the JSON text of any other value. */
    public String text() {
        JsonNode node = node();
        return node.isTextual() ? node.textValue() : json;
    }

    /** Size of the canonical JSON in UTF-8 bytes. */
    public int sizeInBytes() {
        return json.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
    }

    private static JsonNode read(String json) {
        JsonNode node;
        try {
            node = MAPPER.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("value is not valid JSON: " + e.getOriginalMessage());
        }
        if (node == null || node.isMissingNode()) {
            throw new IllegalArgumentException("value is empty: JSON text expected");
        }
        if (node.isNull()) {
            throw new IllegalArgumentException("value must not be JSON null (forget the key instead)");
        }
        checkDepth(node, 1);
        return node;
    }

    private static void checkDepth(JsonNode node, int depth) {
        if (depth > MAX_DEPTH) {
            throw new IllegalArgumentException("value nests deeper than " + MAX_DEPTH + " levels");
        }
        if (node.isContainerNode()) {
            for (JsonNode child : node) {
                checkDepth(child, depth + 1);
            }
        }
        if (node.isTextual()) {
            checkUnicode(node.textValue());
        }
        if (node.isObject()) {
            node.fieldNames().forEachRemaining(MemoryValue::checkUnicode);
        }
    }

    private static void checkUnicode(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c)) {
                if (i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                    i++;
                    continue;
                }
                throw new IllegalArgumentException("value holds a lone surrogate at index " + i);
            }
            if (Character.isLowSurrogate(c)) {
                throw new IllegalArgumentException("value holds a lone surrogate at index " + i);
            }
        }
    }

    private static String canonical(JsonNode node) {
        try {
            Object plain = MAPPER.treeToValue(node, Object.class);
            return MAPPER.writeValueAsString(plain);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("value cannot be written as JSON: " + e.getOriginalMessage());
        }
    }

    @Override
    public String toString() {
        return json;
    }
}

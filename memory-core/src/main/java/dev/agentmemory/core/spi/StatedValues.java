package dev.agentmemory.core.spi;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentmemory.core.MemoryValue;

import java.text.Normalizer;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Forgotten values, and whether a text states one of them. A text states a value when, both
 * normalised (Unicode NFKC, lower case, runs of white space as one space, trimmed), the value
 * occurs in the text on word boundaries: the characters just before and after it are not
 * letters or digits (where the value itself starts or ends with a letter or digit; a Han, Kana
 * or Hangul character is a word of its own, as such text has no spaces). Values shorter than
 * {@value #MIN_CHARS} characters after normalisation (a Han, Kana or Hangul character counts as
 * two, so "中文" is matched) are not matched by text (a
 * message states them only by being their source), nor are booleans. A structured value (object
 * or array) is matched through its string leaves (numbers inside one are mostly counts and
 * indices). Immutable, thread-safe.
 */
public final class StatedValues {

    /** Shortest value matched by text. */
    public static final int MIN_CHARS = 3;

    private final List<String> values;

    private StatedValues(Collection<String> normalised) {
        this.values = List.copyOf(normalised);
    }

    /** The values among {@code values} that can be matched by text (no value: {@code of(List.of())}). */
    public static StatedValues of(Collection<MemoryValue> values) {
        Set<String> out = new LinkedHashSet<>();
        for (MemoryValue v : values) {
            JsonNode node = v.node();
            if (node.isNumber()) {
                add(node.asText(), out);
            } else {
                collect(node, out);
            }
        }
        return new StatedValues(out);
    }

    private static void add(String value, Set<String> out) {
        String n = normalise(value);
        // a Han, Kana or Hangul character carries about as much as two letters
        if (n.codePoints().map(cp -> isIdeographic(cp) ? 2 : 1).sum() >= MIN_CHARS) {
            out.add(n);
        }
    }

    private static void collect(JsonNode node, Set<String> out) {
        if (node.isTextual()) {
            add(node.textValue(), out);
        } else if (node.isContainerNode()) {
            node.forEach(child -> collect(child, out));
        }
    }

    /** Whether there is no value to match by text. */
    public boolean isEmpty() {
        return values.isEmpty();
    }

    /** Whether {@code text} states one of the values. */
    public boolean statedIn(String text) {
        if (values.isEmpty() || text.isEmpty()) {
            return false;
        }
        String t = normalise(text);
        for (String v : values) {
            if (occurs(t, v)) {
                return true;
            }
        }
        return false;
    }

    /**
     * A cheap pre-check over serialized text (e.g. a message's JSON, where tool-call arguments sit
     * escaped): false only when no value can be stated anywhere inside it. A value holding a
     * character that JSON escapes (quote, backslash, control character) always passes.
     */
    public boolean mayBeIn(String serialized) {
        if (values.isEmpty()) {
            return false;
        }
        String t = normalise(serialized);
        for (String v : values) {
            if (t.contains(v) || v.chars().anyMatch(c -> c == '"' || c == '\\' || c < 0x20)) {
                return true;
            }
        }
        return false;
    }

    private static boolean occurs(String text, String value) {
        boolean wordStart = Character.isLetterOrDigit(value.codePointAt(0));
        boolean wordEnd = Character.isLetterOrDigit(value.codePointBefore(value.length()));
        int from = 0;
        while (true) {
            int at = text.indexOf(value, from);
            if (at < 0) {
                return false;
            }
            int end = at + value.length();
            // a Han, Kana or Hangul character is a word of its own (such text has no spaces)
            boolean before = !wordStart || at == 0 || !Character.isLetterOrDigit(text.codePointBefore(at))
                    || isIdeographic(text.codePointBefore(at)) || isIdeographic(value.codePointAt(0));
            boolean after = !wordEnd || end == text.length() || !Character.isLetterOrDigit(text.codePointAt(end))
                    || isIdeographic(text.codePointAt(end)) || isIdeographic(value.codePointBefore(value.length()));
            if (before && after) {
                return true;
            }
            from = at + 1;
        }
    }

    private static boolean isIdeographic(int cp) {
        Character.UnicodeScript script = Character.UnicodeScript.of(cp);
        return script == Character.UnicodeScript.HAN || script == Character.UnicodeScript.HIRAGANA
                || script == Character.UnicodeScript.KATAKANA || script == Character.UnicodeScript.HANGUL;
    }

    /** NFKC, lower case, white space runs as one space, trimmed. */
    static String normalise(String s) {
        String n = Normalizer.normalize(s, Normalizer.Form.NFKC).toLowerCase(Locale.ROOT);
        StringBuilder b = new StringBuilder(n.length());
        boolean space = false;
        for (int i = 0; i < n.length(); i++) {
            char c = n.charAt(i);
            if (Character.isWhitespace(c) || Character.isSpaceChar(c)) {
                space = true;
            } else {
                if (space && !b.isEmpty()) {
                    b.append(' ');
                }
                space = false;
                b.append(c);
            }
        }
        return b.toString();
    }

    @Override
    public String toString() {
        return "StatedValues[" + values.size() + " value(s)]";
    }

}

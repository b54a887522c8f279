package dev.agentmemory.langchain4j.internal;

import java.text.Normalizer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * When a text "states" a remembered value, the one rule every derived copy (episodic hits,
 * summaries) is labelled by. A message states a record when it is the record's source message
 * ({@code message:<session>#<index>}, checked by the caller) or when its text contains the
 * record's value as whole words: both are normalised (NFKC, lower case), split into words (runs of
 * letters and digits; each Han, Hiragana, Katakana or Hangul character is a word of its own), and
 * the value's words must occur in the text consecutively and in order. Values with fewer than
 * {@value #MIN_VALUE_CHARS} letters or digits (a Han, Kana or Hangul character counts as two) never
 * match by text ("no", "42" would match almost anything; "中文" does match). So "Please answer in French from now on" states {@code French}, "Frenchman" does not.
 */
public final class Statements {

    /** The fewest letters and digits a value needs to be matched by text. */
    public static final int MIN_VALUE_CHARS = 3;

    private Statements() {
    }

    /** The words of {@code text}, normalised as described above. */
    public static List<String> words(String text) {
        Objects.requireNonNull(text, "text");
        String s = Normalizer.normalize(text, Normalizer.Form.NFKC).toLowerCase(Locale.ROOT);
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        s.codePoints().forEach(cp -> {
            if (isIdeographic(cp)) {
                flush(cur, out);
                out.add(new String(Character.toChars(cp)));
            } else if (Character.isLetterOrDigit(cp)) {
                cur.appendCodePoint(cp);
            } else {
                flush(cur, out);
            }
        });
        flush(cur, out);
        return out;
    }

    /** The words of a value, or an empty list when the value is too short to be matched by text. */
    public static List<String> valueWords(String value) {
        List<String> w = words(value);
        int chars = 0;
        for (String s : w) {
            // a Han, Kana or Hangul character carries about as much as two letters
            chars += s.codePoints().map(cp -> isIdeographic(cp) ? 2 : 1).sum();
        }
        return chars < MIN_VALUE_CHARS ? List.of() : w;
    }

    /** Whether {@code text} states {@code value} by the text rule. */
    public static boolean states(String text, String value) {
        return contains(words(text), valueWords(value));
    }

    /** Whether {@code valueWords} (non-empty) occur consecutively, in order, in {@code textWords}. */
    public static boolean contains(List<String> textWords, List<String> valueWords) {
        if (valueWords.isEmpty() || valueWords.size() > textWords.size()) {
            return false;
        }
        outer:
        for (int i = 0; i + valueWords.size() <= textWords.size(); i++) {
            for (int j = 0; j < valueWords.size(); j++) {
                if (!textWords.get(i + j).equals(valueWords.get(j))) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    private static void flush(StringBuilder cur, List<String> out) {
        if (!cur.isEmpty()) {
            out.add(cur.toString());
            cur.setLength(0);
        }
    }

    private static boolean isIdeographic(int cp) {
        Character.UnicodeScript script = Character.UnicodeScript.of(cp);
        return script == Character.UnicodeScript.HAN || script == Character.UnicodeScript.HIRAGANA
                || script == Character.UnicodeScript.KATAKANA || script == Character.UnicodeScript.HANGUL;
    }
}

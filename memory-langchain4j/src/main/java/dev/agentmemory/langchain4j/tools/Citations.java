package dev.agentmemory.langchain4j.tools;

import dev.agentmemory.core.event.StoredMessage;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Checks a model's claim that the user said something: the quoted words must occur in one of
 * the user's own messages, and every word of the value must occur in the quote. Also the
 * {@code message:<session>#<index>} references records carry to the message they came from.
 */
final class Citations {

    static final String USER_TYPE = "USER";
    private static final String REF_PREFIX = "message:";

    private Citations() {
    }

    /** The latest user message among {@code messages} whose text contains {@code quote} (case and spacing ignored). */
    static Optional<StoredMessage> findUserMessage(List<StoredMessage> messages, String quote) {
        String q = normalize(quote);
        if (q.isEmpty()) {
            return Optional.empty();
        }
        StoredMessage found = null;
        for (StoredMessage m : messages) {
            if (USER_TYPE.equals(m.type()) && m.text() != null && normalize(m.text()).contains(q)
                    && (found == null || m.index() > found.index())) {
                found = m;
            }
        }
        return Optional.ofNullable(found);
    }

    /** The words of {@code value} that do not occur in {@code quote}, in order. */
    static List<String> wordsMissingFrom(String value, String quote) {
        Set<String> said = new LinkedHashSet<>(words(quote));
        List<String> missing = new ArrayList<>();
        for (String w : words(value)) {
            if (!said.contains(w) && !missing.contains(w)) {
                missing.add(w);
            }
        }
        return missing;
    }

    /**
     * The words of a text, lower-cased: runs of letters and digits; each Han, Hiragana, Katakana
     * or Hangul character is a word of its own.
     */
    static List<String> words(String text) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        text.codePoints().forEach(cp -> {
            if (isIdeographic(cp)) {
                flush(cur, out);
                out.add(new String(Character.toChars(cp)));
            } else if (Character.isLetterOrDigit(cp)) {
                cur.appendCodePoint(Character.toLowerCase(cp));
            } else {
                flush(cur, out);
            }
        });
        flush(cur, out);
        return out;
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

    static String normalize(String s) {
        return String.join(" ", s.toLowerCase(Locale.ROOT).strip().split("\\s+"));
    }

    /** The reference a record keeps to the message it came from. */
    static String messageRef(String session, long index) {
        return REF_PREFIX + session + "#" + index;
    }

    /** The message index {@code ref} names in {@code session}, if it is a message reference there. */
    static OptionalLong messageIndex(String ref, String session) {
        String prefix = REF_PREFIX + session + "#";
        if (!ref.startsWith(prefix)) {
            return OptionalLong.empty();
        }
        try {
            return OptionalLong.of(Long.parseLong(ref.substring(prefix.length())));
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }
}

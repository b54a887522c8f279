package dev.agentmemory.langchain4j.tools;

import dev.agentmemory.core.event.StoredMessage;
import dev.agentmemory.langchain4j.internal.Statements;

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

    /** The words of a text, as the statement rule splits them ({@link Statements#words}). */
    static List<String> words(String text) {
        return Statements.words(text);
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

package dev.agentmemory.langchain4j.oracle;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The oracle's fixed vocabulary: a few keys, and for each user a disjoint set of values and task
 * ids, chosen so that a whole-word match in a prompt means that value (no value is a word of the
 * framing text, the tool descriptions or the scripted sentences).
 */
final class Vocabulary {

    static final String TENANT = "acme";
    static final String[] USERS = {"alice", "bob"};
    static final String[] SESSIONS = {"s1", "s2"};

    static final String LANGUAGE = "answer.language";
    static final String CITY = "home.city";
    static final String COLOR = "exchange.color";
    /** The keys whose values the oracle tracks. */
    static final List<String> KEYS = List.of(LANGUAGE, CITY, COLOR);

    private static final Map<String, List<List<String>>> VALUES = Map.of(
            LANGUAGE, List.of(List.of("French", "German", "Spanish", "Swedish", "Finnish"),
                    List.of("Italian", "Dutch", "Portuguese", "Hungarian", "Greek")),
            CITY, List.of(List.of("Lisbon", "Oslo", "Vienna", "Zurich"),
                    List.of("Dublin", "Prague", "Athens", "Warsaw")),
            COLOR, List.of(List.of("white", "black", "blue", "silver", "ivory", "amber"),
                    List.of("orange", "purple", "green", "scarlet", "violet", "beige")));

    private static final Pattern WORD = Pattern.compile("[\\p{L}\\p{N}-]+");

    private Vocabulary() {
    }

    static List<String> values(String key, int user) {
        return VALUES.get(key).get(user);
    }

    static String taskId(int user, int n) {
        return "order-" + (user + 1) + "0" + n;
    }

    /** Every value and task id of a user (the words that must never reach the other user). */
    static Set<String> allWords(int user) {
        Set<String> out = new LinkedHashSet<>();
        for (String k : KEYS) {
            out.addAll(values(k, user));
        }
        for (int n = 1; n <= 9; n++) {
            out.add(taskId(user, n));
        }
        return out;
    }

    static String keyOf(String value, int user) {
        for (String k : KEYS) {
            if (values(k, user).contains(value)) {
                return k;
            }
        }
        return null;
    }

    /** The vocabulary values of {@code user} occurring as whole words in {@code text}, in order. */
    static List<String> valuesIn(String text, int user) {
        return wordsIn(text, allValues(user));
    }

    static List<String> allValues(int user) {
        List<String> out = new ArrayList<>();
        KEYS.forEach(k -> out.addAll(values(k, user)));
        return out;
    }

    /** Which of {@code words} occur in {@code text} as whole words (case-insensitive). */
    static List<String> wordsIn(String text, Iterable<String> words) {
        Set<String> lower = new LinkedHashSet<>();
        Matcher m = WORD.matcher(text);
        while (m.find()) {
            lower.add(m.group().toLowerCase(Locale.ROOT));
        }
        List<String> out = new ArrayList<>();
        for (String w : words) {
            if (lower.contains(w.toLowerCase(Locale.ROOT))) {
                out.add(w);
            }
        }
        return out;
    }

    /** Some text around the first whole-word occurrence of {@code word}, for a violation message. */
    static String excerpt(String text, String word) {
        Matcher m = Pattern.compile("(?i)(?<![\\p{L}\\p{N}-])" + Pattern.quote(word) + "(?![\\p{L}\\p{N}-])").matcher(text);
        int at = m.find() ? m.start() : 0;
        int from = Math.max(0, at - 70);
        int to = Math.min(text.length(), at + word.length() + 70);
        return (from > 0 ? "…" : "") + text.substring(from, to).replace("\n", "⏎") + (to < text.length() ? "…" : "");
    }
}

package dev.agentmemory.langchain4j.recall;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The frame of a statement about named subjects, read from its words alone: the subjects it opens
 * with (names: capitalised words, joined by "and" or commas, as in "Joshan Wode and Lorae Jonis
 * first met ..." or "Priya's favourite colour is ..."), the predicate that follows them, and
 * whether the statement is negated ("not", "never", "no longer", "n't", "no ...", 不, 没有, 不再).
 * A statement that does not open with a name followed by a lower-case word ("Caroline: I went",
 * "I live in Lisbon") has no subjects.
 *
 * @param subjects  the subjects' names, lower case, in order; empty when the statement does not open with one
 * @param predicate the text after the subjects (the whole text when there are none)
 * @param negated   whether a negation occurs in the statement
 */
record StatementFrame(List<String> subjects, String predicate, boolean negated) {

    private static final Pattern WORD = Pattern.compile("[\\p{L}\\p{M}\\p{N}'’.-]+|[,:;!?()\"]");
    private static final Set<String> QUANTIFIERS = Set.of("both", "all", "in", "on", "at");
    /**
     * Capitalised words that open sentences without naming anyone: pronouns, determiners and
     * interrogatives ("We camped ...", "My sister ...", "The shop ..."). A statement opening with
     * one has no subjects.
     */
    private static final Set<String> NOT_NAMES = Set.of("we", "you", "he", "she", "it", "they", "my", "our",
            "your", "his", "her", "its", "their", "this", "that", "these", "those", "there", "here", "the", "a",
            "an", "what", "which", "who", "when", "where", "why", "how", "let's", "i'm", "we're", "it's");
    private static final Pattern NEGATION = Pattern.compile(
            "(?i)\\b(?:not|never|no longer|no|none|neither|nor|nobody|nothing|without)\\b|n[’']t\\b|不再|不是|没有|從未|从未|不");

    /** The frame of a text that states nothing about named subjects. */
    static final StatementFrame NONE = new StatementFrame(List.of(), "", false);

    static StatementFrame of(String text) {
        Matcher m = WORD.matcher(text);
        List<String> subjects = new java.util.ArrayList<>();
        StringBuilder name = new StringBuilder();
        int predicateStart = -1;
        boolean possessive = false;
        while (m.find()) {
            String w = m.group();
            boolean capital = Character.isUpperCase(w.codePointAt(0)) && !w.equals("I");
            if (capital && name.length() == 0 && subjects.isEmpty()
                    && NOT_NAMES.contains(w.toLowerCase(Locale.ROOT).replace('’', '\''))) {
                break;
            }
            if (capital && !(name.length() == 0 && subjects.isEmpty() && QUANTIFIERS.contains(w.toLowerCase(Locale.ROOT)))) {
                String bare = w.replaceAll("[’']s$", "");
                possessive = !bare.equals(w);
                name.append(name.length() == 0 ? "" : " ").append(bare.replaceAll("[.]$", ""));
                if (possessive) {
                    subjects.add(name.toString().toLowerCase(Locale.ROOT));
                    name.setLength(0);
                    predicateStart = m.end();
                    break;
                }
                continue;
            }
            if (name.length() > 0 && (w.equals("and") || w.equals(","))) {
                subjects.add(name.toString().toLowerCase(Locale.ROOT));
                name.setLength(0);
                continue;
            }
            if (name.length() == 0 && subjects.isEmpty() && QUANTIFIERS.contains(w.toLowerCase(Locale.ROOT))) {
                continue;
            }
            if (name.length() > 0 && Character.isLowerCase(w.codePointAt(0))) {
                subjects.add(name.toString().toLowerCase(Locale.ROOT));
                predicateStart = m.start();
            }
            break;
        }
        boolean negated = NEGATION.matcher(text).find();
        if (predicateStart < 0 || subjects.isEmpty()) {
            return new StatementFrame(List.of(), text, negated);
        }
        return new StatementFrame(List.copyOf(new LinkedHashSet<>(subjects)), text.substring(predicateStart), negated);
    }

    /** Whether both statements open with subjects and name at least one subject in common. */
    boolean sharesSubject(StatementFrame other) {
        return subjects.stream().anyMatch(other.subjects::contains);
    }

    /** Whether both statements open with the same subjects (in any order). */
    boolean sameSubjects(StatementFrame other) {
        return !subjects.isEmpty() && Set.copyOf(subjects).equals(Set.copyOf(other.subjects));
    }
}

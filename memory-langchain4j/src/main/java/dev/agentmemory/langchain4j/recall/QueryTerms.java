package dev.agentmemory.langchain4j.recall;

import static dev.agentmemory.langchain4j.recall.IndexSchema.F_TEXT;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The lexical side of a query: its analysed terms, each with a weight (how often it occurs,
 * raised for names). The same analysis as the indexed text; on top of it, optionally:
 * <ul>
 *   <li>English function words that carry the form of a question rather than its subject
 *       (interrogatives, pronouns, auxiliaries: "what", "did", "her", ...) are left out of the
 *       query, since they match every turn that asks or tells something (the indexed text keeps
 *       them);</li>
 *   <li>names (a capitalised word that does not start a sentence: "Caroline", "Lisbon") weigh
 *       {@code nameWeight} times as much.</li>
 * </ul>
 */
final class QueryTerms {

    /** Function words left out of queries, beyond the analyzer's own stop words. */
    static final List<String> FUNCTION_WORDS = List.of(
            "what", "which", "who", "whom", "whose", "when", "where", "why", "how",
            "i", "me", "my", "mine", "myself", "we", "us", "our", "ours", "you", "your", "yours",
            "he", "him", "his", "himself", "she", "her", "hers", "herself", "its", "itself", "them",
            "theirs", "themselves",
            "am", "were", "been", "being", "have", "has", "had", "having", "do", "does", "did", "doing",
            "would", "should", "could", "can", "might", "must", "shall", "may", "ever", "kind", "some", "any");

    /** A capitalised word and what precedes it. */
    private static final Pattern WORD = Pattern.compile("\\p{L}[\\p{L}\\p{N}'’-]*");

    private final RecallAnalyzer analyzer;
    private final boolean dropFunctionWords;
    private final double nameWeight;
    private final Set<String> functionTerms = new HashSet<>();

    QueryTerms(RecallAnalyzer analyzer, boolean dropFunctionWords, double nameWeight) {
        this.analyzer = analyzer;
        this.dropFunctionWords = dropFunctionWords;
        this.nameWeight = nameWeight;
        for (String w : FUNCTION_WORDS) {
            functionTerms.addAll(analyzer.terms(F_TEXT, w));
        }
    }

    /** The weighted terms of {@code text}, in order of first appearance; empty for a blank text. */
    Map<String, Double> of(String text) {
        Map<String, Double> weights = new LinkedHashMap<>();
        if (text.isBlank()) {
            return weights;
        }
        for (String t : analyzer.termList(F_TEXT, text)) {
            if (!(dropFunctionWords && functionTerms.contains(t))) {
                weights.merge(t, 1.0, Double::sum);
            }
        }
        if (nameWeight != 1.0) {
            for (String name : names(text)) {
                for (String t : analyzer.terms(F_TEXT, name)) {
                    weights.computeIfPresent(t, (k, w) -> w * nameWeight);
                }
            }
        }
        return weights;
    }

    /** Capitalised words that do not start a sentence (nor follow a quote or bracket opening one). */
    static Set<String> names(String text) {
        Set<String> out = new java.util.LinkedHashSet<>();
        Matcher m = WORD.matcher(text);
        while (m.find()) {
            String w = m.group();
            if (!Character.isUpperCase(w.codePointAt(0)) || startsSentence(text, m.start())) {
                continue;
            }
            out.add(w);
        }
        return out;
    }

    private static boolean startsSentence(String text, int at) {
        for (int i = at - 1; i >= 0; i--) {
            char c = text.charAt(i);
            if (Character.isWhitespace(c) || c == '"' || c == '\'' || c == '(' || c == '“' || c == '‘') {
                continue;
            }
            return c == '.' || c == '?' || c == '!' || c == ':' || c == '\n';
        }
        return true;
    }
}

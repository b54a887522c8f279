package dev.agentmemory.langchain4j.recall;

import static dev.agentmemory.langchain4j.recall.IndexSchema.F_TEXT;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The lexical side of a query: its analysed terms, each weighted by how often it occurs. The
 * same analysis as the indexed text; on top of it, optionally, English function words that carry
 * the form of a question rather than its subject (interrogatives, pronouns, auxiliaries: "what",
 * "did", "her", ...) are left out of the query, since they match every turn that asks or tells
 * something (the indexed text keeps them). (Weighing names more, capitalised words that do not
 * start a sentence, was tried and did not help on LoCoMo.)
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

    private final RecallAnalyzer analyzer;
    private final boolean dropFunctionWords;
    private final Set<String> functionTerms = new HashSet<>();

    QueryTerms(RecallAnalyzer analyzer, boolean dropFunctionWords) {
        this.analyzer = analyzer;
        this.dropFunctionWords = dropFunctionWords;
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
        return weights;
    }
}

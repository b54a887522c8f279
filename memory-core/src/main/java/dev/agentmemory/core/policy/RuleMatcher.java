package dev.agentmemory.core.policy;

import dev.agentmemory.core.policy.InstructionDetector.Cue;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.regex.Matcher;

/**
 * Runs a fixed list of {@link GuardedRule}s over a normalized text. One {@link KeywordScanner}
 * pass finds where the guard keywords of all rules occur; a rule's expression then runs only when
 * one of its keywords is present, and a lead rule only at its keywords' occurrences. The result
 * equals searching the whole text with every expression, as long as every rule keeps the promise
 * of its guards. Immutable and thread-safe.
 */
final class RuleMatcher {

    private final List<GuardedRule> rules;
    /** Per rule (same index as {@link #rules}) the ids of its guard keywords in {@link #scanner}. */
    private final int[][] ruleKeywords;
    private final KeywordScanner scanner;

    /** A matcher for {@code rules}, tried in this order. */
    public RuleMatcher(List<GuardedRule> rules) {
        this.rules = List.copyOf(rules);
        List<String> keywords = this.rules.stream().flatMap(r -> r.guards().stream()).distinct().toList();
        this.ruleKeywords = this.rules.stream()
                .map(r -> r.guards().stream().mapToInt(keywords::indexOf).toArray())
                .toArray(int[][]::new);
        this.scanner = new KeywordScanner(keywords);
    }

    /** The rules, in the order they are tried. */
    public List<GuardedRule> rules() {
        return rules;
    }

    /**
     * The cues of the rules that match {@code normalized}, in declaration order of {@link Cue};
     * with {@code firstOnly}, at most the first cue found (enough to know whether any matches).
     */
    public EnumSet<Cue> scan(CharSequence normalized, boolean firstOnly) {
        KeywordHits hits = scanner.find(normalized);
        EnumSet<Cue> found = EnumSet.noneOf(Cue.class);
        for (int i = 0; i < rules.size(); i++) {
            GuardedRule rule = rules.get(i);
            if (!found.contains(rule.cue()) && matches(rule, ruleKeywords[i], hits, normalized)) {
                found.add(rule.cue());
                if (firstOnly) {
                    break;
                }
            }
        }
        return found;
    }

    /**
     * The rules (by cue and pattern) whose guarded evaluation on {@code normalized} differs from a
     * plain search of the whole text; always empty unless a rule's guard is wrong.
     */
    public List<String> rulesDisagreeingWithPlainSearch(String normalized) {
        KeywordHits hits = scanner.find(normalized);
        List<String> wrong = new ArrayList<>();
        for (int i = 0; i < rules.size(); i++) {
            GuardedRule rule = rules.get(i);
            if (matches(rule, ruleKeywords[i], hits, normalized) != rule.pattern().matcher(normalized).find()) {
                wrong.add(rule.cue().label() + ": " + rule.pattern().pattern());
            }
        }
        return wrong;
    }

    /** Whether {@code rule} matches somewhere in {@code t}, running its expression only where it can. */
    private static boolean matches(GuardedRule rule, int[] keywordIds, KeywordHits hits, CharSequence t) {
        if (rule.precheck() != null) {
            return rule.precheck().test(t) && rule.pattern().matcher(t).find();
        }
        if (!rule.lead()) {
            for (int id : keywordIds) {
                if (hits.contains(id)) {
                    return rule.pattern().matcher(t).find();
                }
            }
            return false;
        }
        Matcher m = null;
        for (int id : keywordIds) {
            for (int h = hits.first(id); h >= 0; h = hits.next(h)) {
                if (m == null) {
                    // transparent: \b sees the character before the region; not anchoring: ^ means offset 0 only
                    m = rule.pattern().matcher(t).useTransparentBounds(true).useAnchoringBounds(false);
                }
                m.region(hits.start(h), t.length());
                if (m.lookingAt()) {
                    return true;
                }
            }
        }
        return false;
    }
}

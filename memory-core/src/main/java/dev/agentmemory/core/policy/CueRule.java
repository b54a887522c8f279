package dev.agentmemory.core.policy;

import dev.agentmemory.core.policy.InstructionDetector.Cue;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A regular expression for one cue of the {@link InstructionDetector}. It runs only when
 * {@code precheck} holds, or else when one of its {@code guards} occurs (only at their
 * occurrences when {@code lead}). Texts are normalized and lower-cased before matching, so the
 * expressions and guard keywords are written in lower case.
 */
record CueRule(Cue cue, Pattern pattern, List<String> guards, boolean lead, @Nullable Predicate<CharSequence> precheck) {

    CueRule {
        guards = List.copyOf(guards);
    }

    /** One expression of a cue with what guards it, before it is given its cue by {@link #rules}. */
    record Branch(Pattern pattern, List<String> guards, boolean lead, @Nullable Predicate<CharSequence> precheck) {
    }

    /** An expression whose every match contains one of {@code guards} (separated by {@code |}). */
    static Branch rule(String regex, String guards) {
        return new Branch(Pattern.compile(regex), keywords(guards), false, null);
    }

    /** An expression whose every match begins with one of {@code guards} (separated by {@code |}). */
    static Branch lead(String regex, String guards) {
        return new Branch(Pattern.compile(regex), keywords(guards), true, null);
    }

    /** An expression with no literal guard; it runs on the texts for which {@code precheck} holds. */
    static Branch rule(String regex, Predicate<CharSequence> precheck) {
        return new Branch(Pattern.compile(regex), List.of(), false, precheck);
    }

    /** The branches as rules of {@code cue}, in order. */
    static List<CueRule> rules(Cue cue, Branch... branches) {
        return Arrays.stream(branches)
                .map(b -> new CueRule(cue, b.pattern(), b.guards(), b.lead(), b.precheck())).toList();
    }

    private static List<String> keywords(String guards) {
        List<String> words = List.of(guards.split("\\|", -1));
        for (String w : words) {
            if (w.isEmpty() || !w.equals(w.toLowerCase(Locale.ROOT))) {
                throw new IllegalStateException("guard keyword must be non-empty and lower-case: '" + w + "' in " + guards);
            }
        }
        return words;
    }
}

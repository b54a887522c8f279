package dev.agentmemory.core.policy;

import dev.agentmemory.core.policy.InstructionDetector.Cue;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.jspecify.annotations.Nullable;

/**
 * A regular expression for one cue, as the {@link RuleMatcher} runs it: only when
 * {@code precheck} holds, or else when one of its {@code guards} occurs in the text (and then, when
 * {@code lead}, only at the guards' occurrences). Texts are {@linkplain TextNormalizer normalized}
 * before matching, so the expressions and guard keywords are written in lower case.
 *
 * <p>The guards are a promise about the expression: every match contains one of them
 * ({@code lead}: begins with one of them). A rule that breaks it misses texts a plain search would
 * flag; {@link RuleMatcher#rulesDisagreeingWithPlainSearch} finds such rules.
 */
record GuardedRule(Cue cue, Pattern pattern, List<String> guards, boolean lead,
        @Nullable Predicate<CharSequence> precheck) {

    /**
     * @throws IllegalArgumentException if there is neither a guard nor a precheck, or a guard is
     *     empty or not lower-case
     */
    public GuardedRule {
        guards = List.copyOf(guards);
        if (guards.isEmpty() && precheck == null) {
            throw new IllegalArgumentException("a " + cue.label() + " rule needs a guard keyword or a precheck: " + pattern);
        }
        for (String w : guards) {
            if (w.isEmpty() || !w.equals(w.toLowerCase(Locale.ROOT))) {
                throw new IllegalArgumentException("guard keyword must be non-empty and lower-case: '" + w + "' in "
                        + String.join("|", guards) + " (" + cue.label() + " rule " + pattern + ")");
            }
        }
    }

    /** One expression of a cue with what guards it, before it is given its cue by {@link #rules}. */
    record Branch(Pattern pattern, List<String> guards, boolean lead, @Nullable Predicate<CharSequence> precheck) {
    }

    /** An expression whose every match contains one of {@code guards} (separated by {@code |}). */
    static Branch rule(String regex, String guards) {
        return new Branch(compile(regex), keywords(guards), false, null);
    }

    /** An expression whose every match begins with one of {@code guards} (separated by {@code |}). */
    static Branch lead(String regex, String guards) {
        return new Branch(compile(regex), keywords(guards), true, null);
    }

    /** An expression with no literal guard; it runs on the texts for which {@code precheck} holds. */
    static Branch rule(String regex, Predicate<CharSequence> precheck) {
        return new Branch(compile(regex), List.of(), false, precheck);
    }

    /** The branches as rules of {@code cue}, in order. */
    static List<GuardedRule> rules(Cue cue, Branch... branches) {
        return Arrays.stream(branches)
                .map(b -> new GuardedRule(cue, b.pattern(), b.guards(), b.lead(), b.precheck())).toList();
    }

    private static Pattern compile(String regex) {
        try {
            return Pattern.compile(regex);
        } catch (PatternSyntaxException e) {
            throw new IllegalStateException("built-in cue rule does not compile: " + e.getMessage(), e);
        }
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

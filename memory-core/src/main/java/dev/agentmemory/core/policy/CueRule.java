package dev.agentmemory.core.policy;

import dev.agentmemory.core.policy.InstructionDetector.Cue;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * An extra rule for an {@link InstructionDetector}: a regular expression that, when found in a
 * text, flags the text with {@link #cue()}. Add it with {@link InstructionDetector.Builder#addRule}.
 *
 * <p>The expression is searched in the normalized text: Unicode compatibility normalized (NFKC),
 * without invisible format characters, curly single quotes and backticks as {@code '}, every run
 * of white space (line breaks included) as one space, and lower-cased; so write it in lower case
 * and use a space, not {@code \n}, between words. Keep it free of unbounded nested repetition.
 *
 * <p>Guard keywords make a rule cheap: the detector finds all keywords of all rules in one pass
 * and runs a rule's expression only when one of its keywords occurs ({@link #guarded}), or only
 * at their occurrences ({@link #leading}). The keywords are a promise: a match that contains none
 * of them is never found. A rule made with {@link #of} has no keyword and runs on every text.
 */
public final class CueRule {

    private final Cue cue;
    private final Pattern pattern;
    private final List<String> keywords;
    private final boolean leading;

    private CueRule(Cue cue, String regex, List<String> keywords, boolean leading) {
        this.cue = Objects.requireNonNull(cue, "cue");
        Objects.requireNonNull(regex, "regex");
        try {
            this.pattern = Pattern.compile(regex);
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException("cue rule regex does not compile: " + e.getDescription() + " in '" + regex + "'", e);
        }
        for (String k : keywords) {
            Objects.requireNonNull(k, "keyword");
            if (k.isEmpty() || !k.equals(k.toLowerCase(Locale.ROOT))) {
                throw new IllegalArgumentException("cue rule keyword must be non-empty and lower-case: '" + k + "'");
            }
        }
        this.keywords = List.copyOf(keywords);
        this.leading = leading;
    }

    /**
     * A rule that runs on every text.
     *
     * @throws IllegalArgumentException if {@code regex} does not compile
     */
    public static CueRule of(Cue cue, String regex) {
        return new CueRule(cue, regex, List.of(), false);
    }

    /**
     * A rule whose every match contains at least one of {@code keywords}; it runs only on texts
     * that contain one.
     *
     * @throws IllegalArgumentException if {@code regex} does not compile, no keyword is given or a
     *     keyword is empty or not lower-case
     */
    public static CueRule guarded(Cue cue, String regex, String... keywords) {
        return new CueRule(cue, regex, requireSome(keywords), false);
    }

    /**
     * A rule whose every match begins with one of {@code keywords}; it is tried only where one
     * occurs.
     *
     * @throws IllegalArgumentException if {@code regex} does not compile, no keyword is given or a
     *     keyword is empty or not lower-case
     */
    public static CueRule leading(Cue cue, String regex, String... keywords) {
        return new CueRule(cue, regex, requireSome(keywords), true);
    }

    /** The cue a match flags. */
    public Cue cue() {
        return cue;
    }

    /** The expression searched in the normalized text. */
    public Pattern pattern() {
        return pattern;
    }

    /** The guard keywords; empty for a rule that runs on every text. */
    public List<String> keywords() {
        return keywords;
    }

    /** Whether every match begins with one of the {@link #keywords()}. */
    public boolean isLeading() {
        return leading;
    }

    GuardedRule toGuarded() {
        return new GuardedRule(cue, pattern, keywords, leading, keywords.isEmpty() ? t -> true : null);
    }

    private static List<String> requireSome(String[] keywords) {
        Objects.requireNonNull(keywords, "keywords");
        if (keywords.length == 0) {
            throw new IllegalArgumentException("a guarded cue rule needs at least one keyword");
        }
        return Arrays.asList(keywords);
    }

    @Override
    public String toString() {
        return "CueRule[" + cue.label() + (leading ? ", leading " : ", guarded ") + keywords + ": " + pattern + "]";
    }
}

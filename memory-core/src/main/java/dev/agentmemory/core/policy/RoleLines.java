package dev.agentmemory.core.policy;

import java.util.regex.Pattern;

/**
 * The role-prefix check on the raw text's lines: normalization folds line breaks into spaces, so
 * the rules on the whole text cannot see that "SYSTEM: ..." begins a line; this class looks at the
 * start of every line, using the role words of {@link AuthorityCues}.
 */
final class RoleLines {

    private RoleLines() {
    }

    /** A role prefix at the start of a line, after bullets or quote marks ("> SYSTEM: ..."). */
    private static final Pattern ROLE_LINE = Pattern.compile("^[\\s>*•+\\-]*(?:\\*\\*|__)?" + AuthorityCues.ROLE
            + AuthorityCues.ROLE_SUFFIX + AuthorityCues.ROLE_COLON);

    /** A heading that is only a role: "### Instruction", "## System". */
    private static final Pattern ROLE_HEADING = Pattern.compile("^\\s?#{1,6}\\s?" + AuthorityCues.HEADING_ROLE + "\\s?:?\\s?$");

    /** How much of a line is read for a role prefix. */
    private static final int LINE_HEAD = 64;

    /**
     * Whether a line of the raw {@code text} (lines end at CR, LF, NEL, U+2028 or U+2029) begins
     * with a role prefix or is a role heading. Normalizes at most {@value #LINE_HEAD} characters of
     * a line, and only of a line whose head holds a colon or a {@code #}.
     */
    public static boolean roleAtLineStart(String text) {
        int n = text.length();
        int start = 0;
        while (start <= n) {
            int end = start;
            while (end < n && end - start < LINE_HEAD && !isLineBreak(text.charAt(end))) {
                end++;
            }
            boolean whole = end == n || isLineBreak(text.charAt(end));
            if (end > start && headMayMatch(text, start, end)) {
                String head = TextNormalizer.normalize(text.substring(start, end));
                if (ROLE_LINE.matcher(head).find() || (whole && ROLE_HEADING.matcher(head).find())) {
                    return true;
                }
            }
            while (end < n && !isLineBreak(text.charAt(end))) {
                end++;
            }
            start = end + 1;
        }
        return false;
    }

    private static boolean isLineBreak(char c) {
        return c == '\n' || c == '\r' || c == '\u0085' || c == '\u2028' || c == '\u2029';
    }

    /** A cheap necessary condition: a colon (ASCII, full-width or compatible) or a {@code #} in the line's head. */
    private static boolean headMayMatch(String text, int start, int end) {
        for (int i = start; i < end; i++) {
            char c = text.charAt(i);
            if (c == ':' || c == '：' || c == '#' || c == '﹕' || c == '︓' || c == '＃' || c == '﹟') {
                return true;
            }
        }
        return false;
    }
}

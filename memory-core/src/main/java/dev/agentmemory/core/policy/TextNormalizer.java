package dev.agentmemory.core.policy;

import java.text.Normalizer;
import java.util.Locale;

/**
 * The form in which cue rules see a text: Unicode compatibility normalized (NFKC, so full-width
 * or styled letters read as plain ones), without format characters ({@code \p{Cf}}, such as zero
 * width spaces), with curly single quotes and backticks as {@code '}, every run of ASCII white
 * space (line breaks included) as one space, and lower-cased with {@link Locale#ROOT}.
 */
final class TextNormalizer {

    private TextNormalizer() {
    }

    /** {@code text} in the normalized form described by this class. */
    public static String normalize(String text) {
        String n = Normalizer.normalize(text, Normalizer.Form.NFKC);
        StringBuilder sb = new StringBuilder(n.length());
        boolean inSpace = false;
        for (int i = 0; i < n.length(); ) {
            int cp = n.codePointAt(i);
            i += Character.charCount(cp);
            if (Character.getType(cp) == Character.FORMAT) {
                continue;
            }
            if (cp == ' ' || cp == '\t' || cp == '\n' || cp == 0x0B || cp == '\f' || cp == '\r') {
                if (!inSpace) {
                    sb.append(' ');
                    inSpace = true;
                }
                continue;
            }
            inSpace = false;
            if (cp == '\u2019' || cp == '\u2018' || cp == '`') {
                sb.append('\'');
            } else {
                sb.appendCodePoint(cp);
            }
        }
        return sb.toString().toLowerCase(Locale.ROOT);
    }
}

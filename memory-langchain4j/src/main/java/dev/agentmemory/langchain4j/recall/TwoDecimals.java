package dev.agentmemory.langchain4j.recall;

import java.util.Locale;

/**
 * A number with two decimals, exactly as {@code String.format(Locale.ROOT, "%.2f", x)} writes it,
 * for the explanation of every returned hit ({@link RecallHit#why()}): {@code java.util.Formatter}
 * parses its pattern and builds a decimal expansion on every call, which cost more than scoring a
 * query's candidates. The fast path rounds the hundredths in binary; a value within a millionth of
 * a hundredth of a half (where the decimal expansion Formatter rounds may round the other way:
 * {@code 1.005} is {@code 1.00499...} in binary, and Formatter writes {@code 1.01}), a large one, or
 * one that is not finite, is handed to Formatter itself.
 */
final class TwoDecimals {

    /** Past this magnitude the binary rounding's error could reach the guard band: Formatter decides. */
    private static final double FAST_BELOW = 1e6;
    /** Half-hundredths nearer than this (in hundredths) are left to Formatter. */
    private static final double GUARD = 1e-6;

    private TwoDecimals() {
    }

    /** Appends {@code x} with two decimals ({@code "%.2f"}, {@link Locale#ROOT}) to {@code sb}. */
    static StringBuilder append(StringBuilder sb, double x) {
        double magnitude = Math.abs(x);
        if (!(magnitude < FAST_BELOW)) {
            return sb.append(String.format(Locale.ROOT, "%.2f", x));
        }
        double hundredths = magnitude * 100;
        double whole = Math.floor(hundredths);
        double fraction = hundredths - whole;
        if (Math.abs(fraction - 0.5) < GUARD) {
            return sb.append(String.format(Locale.ROOT, "%.2f", x));
        }
        long rounded = (long) whole + (fraction > 0.5 ? 1 : 0);
        // Formatter keeps the sign of whatever is negative, -0.0 and what rounds to zero included
        if (Double.doubleToRawLongBits(x) < 0) {
            sb.append('-');
        }
        long cents = rounded % 100;
        sb.append(rounded / 100).append('.');
        if (cents < 10) {
            sb.append('0');
        }
        return sb.append(cents);
    }
}

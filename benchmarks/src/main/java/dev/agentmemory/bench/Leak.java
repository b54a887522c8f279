package dev.agentmemory.bench;

import java.util.Optional;

/**
 * Whether any non-trivial part of a string shows up in a text: one of its lines (trimmed, at
 * least {@value #MIN_LINE} characters), any run of {@value #RUN} characters, or, for a string
 * shorter than that run, the whole trimmed string.
 */
final class Leak {

    static final int RUN = 12;
    static final int MIN_LINE = 4;

    private Leak() {
    }

    /** The first part of {@code string} found in {@code text}, if any. */
    static Optional<String> find(String string, String text) {
        if (text.isEmpty()) {
            return Optional.empty();
        }
        for (String line : string.split("\\R")) {
            String t = line.strip();
            if (t.length() >= MIN_LINE && text.contains(t)) {
                return Optional.of(t);
            }
        }
        String whole = string.strip();
        if (whole.length() < RUN) {
            return whole.length() >= MIN_LINE && text.contains(whole) ? Optional.of(whole) : Optional.empty();
        }
        for (int i = 0; i + RUN <= string.length(); i++) {
            String run = string.substring(i, i + RUN);
            if (!run.isBlank() && text.contains(run)) {
                return Optional.of(run);
            }
        }
        return Optional.empty();
    }

    /** {@code text} without its first occurrence of {@code part} (unchanged when absent). */
    static String withoutFirst(String text, String part) {
        int at = text.indexOf(part);
        return at < 0 ? text : text.substring(0, at) + text.substring(at + part.length());
    }

    /** {@code text} cut to {@code max} characters, line breaks shown as {@code \\n}, for messages. */
    static String clip(String text, int max) {
        String one = text.replace("\n", "\\n");
        return one.length() > max ? one.substring(0, max) + "..." : one;
    }
}

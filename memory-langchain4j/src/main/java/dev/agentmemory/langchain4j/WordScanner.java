package dev.agentmemory.langchain4j;

import java.util.Arrays;
import java.util.Locale;

/**
 * Splits text into the words the persistent index is keyed by: the maximal runs of letters and
 * numbers of any script ({@code [\p{L}\p{N}]}) of the text lower-cased with {@link Locale#ROOT},
 * of three UTF-16 chars or more, in order, repeats included.
 *
 * <p>It lower-cases as it goes, code point by code point, into a reused buffer: no lower-cased
 * copy of the text and no string per word. {@link String#toLowerCase(Locale)} maps each code
 * point as {@link Character#toLowerCase(int)} does, but for two that depend on their context or
 * grow ({@code Σ}, final or not, and {@code İ}, which becomes {@code i} and a combining dot): a
 * text holding either is lower-cased whole first, as before. Not thread-safe.
 */
final class WordScanner {

    /**
     * Receives each word: the first {@code length} chars of {@code chars}, valid only during the
     * call, and {@code hash}, what {@link String#hashCode()} of the word is.
     */
    interface Sink {
        void word(char[] chars, int length, int hash);
    }

    private static final char CAPITAL_SIGMA = '\u03A3';
    private static final char CAPITAL_I_WITH_DOT = '\u0130';

    /** The longest buffers kept between texts: a longer text or word gets buffers of its own. */
    private static final int KEPT = 4096;

    private char[] word = new char[32];
    private int length;
    private int hash;
    /** The chars being scanned, copied at once (reading a string char by char checks every index). */
    private char[] source = new char[256];

    /** The words of {@code text}. */
    void scan(String text, Sink sink) {
        if (lowerCasesAlone(text, 0, text.length())) {
            add(text, 0, text.length(), true, sink);
        } else {
            String lower = text.toLowerCase(Locale.ROOT);
            add(lower, 0, lower.length(), false, sink);
        }
        end(sink);
    }

    /**
     * The words of a key's indexed text: its path with each dot a space, a space, and the chars
     * of {@code value} from {@code from} to {@code to}.
     */
    void scanKey(String path, String value, int from, int to, Sink sink) {
        if (lowerCasesAlone(path, 0, path.length()) && lowerCasesAlone(value, from, to)) {
            // a dot and a space both end a word, and neither lower-cases to anything else
            add(path, 0, path.length(), true, sink);
            end(sink);
            add(value, from, to, true, sink);
        } else {
            String lower = (path.replace('.', ' ') + " " + value.substring(from, to)).toLowerCase(Locale.ROOT);
            add(lower, 0, lower.length(), false, sink);
        }
        end(sink);
    }

    /** Whether each code point of the range lower-cases on its own as the whole text would lower-case it. */
    private static boolean lowerCasesAlone(String text, int from, int to) {
        int sigma = text.indexOf(CAPITAL_SIGMA, from);
        int dotted = text.indexOf(CAPITAL_I_WITH_DOT, from);
        return (sigma < 0 || sigma >= to) && (dotted < 0 || dotted >= to);
    }

    /** Adds the range's chars to the word under way, giving each word that ends to {@code sink}. */
    private void add(String text, int from, int to, boolean lowerCase, Sink sink) {
        int n = to - from;
        if (n > source.length && n <= KEPT) {
            source = new char[Math.min(KEPT, Math.max(n, source.length * 2))];
        }
        char[] chars = n <= source.length ? source : new char[n];
        text.getChars(from, to, chars, 0);
        int i = 0;
        while (i < n) {
            char c = chars[i];
            if (c < 128) {
                i++;
                if (c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
                    append(c);
                } else if (c >= 'A' && c <= 'Z') {
                    append(lowerCase ? (char) (c + ('a' - 'A')) : c);
                } else {
                    end(sink);
                }
                continue;
            }
            int cp = Character.codePointAt(chars, i, n);
            i += Character.charCount(cp);
            int lower = lowerCase ? Character.toLowerCase(cp) : cp;
            if (!isWordChar(lower)) {
                end(sink);
            } else if (Character.isBmpCodePoint(lower)) {
                append((char) lower);
            } else {
                append(Character.highSurrogate(lower));
                append(Character.lowSurrogate(lower));
            }
        }
    }

    private void append(char c) {
        if (length == word.length) {
            word = Arrays.copyOf(word, length * 2);
        }
        word[length++] = c;
        hash = 31 * hash + c;
    }

    /** Ends the word under way: gives it to {@code sink} if it has three chars or more. */
    private void end(Sink sink) {
        if (length > 2) {
            sink.word(word, length, hash);
        }
        length = 0;
        hash = 0;
        if (word.length > KEPT) {
            word = new char[32];
        }
    }

    /** What {@code [\p{L}\p{N}]} matches beyond ASCII: a letter or a number of any kind. */
    private static boolean isWordChar(int cp) {
        if (cp < 128) {
            return cp >= 'a' && cp <= 'z' || cp >= '0' && cp <= '9' || cp >= 'A' && cp <= 'Z';
        }
        return switch (Character.getType(cp)) {
            case Character.UPPERCASE_LETTER, Character.LOWERCASE_LETTER, Character.TITLECASE_LETTER,
                 Character.MODIFIER_LETTER, Character.OTHER_LETTER, Character.DECIMAL_DIGIT_NUMBER,
                 Character.LETTER_NUMBER, Character.OTHER_NUMBER -> true;
            default -> false;
        };
    }
}

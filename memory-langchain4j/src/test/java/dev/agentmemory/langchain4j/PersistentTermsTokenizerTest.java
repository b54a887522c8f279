package dev.agentmemory.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The persistent index's word scanner splits text exactly as the regular expression it replaced
 * ({@code [^\p{L}\p{N}]+} after lower-casing, words of three characters or more), on random text
 * mixing scripts, digits of other kinds, letters outside the basic plane, combining marks,
 * letters whose lower case changes length, and lone surrogates.
 */
class PersistentTermsTokenizerTest {

    private static final List<String> PIECES = List.of("a", "Z", "7", " ", ".", "-", "_", "'", "é", "Σ", "ς", "İ",
            "ß", "中", "文", "²", "Ⅻ", "٣", "\u0301", "𝐀", "😀", "\uD800", "\uDC00", "ǅ", "ʰ", "\t", "ab", "xyz",
            "Hotel", "LISBOA", "42", "no", "é\u0301");

    @Test
    void should_find_the_words_the_regular_expression_found() {
        Random random = new Random(11);
        for (int i = 0; i < 20_000; i++) {
            StringBuilder text = new StringBuilder();
            for (int n = random.nextInt(12); n >= 0; n--) {
                text.append(PIECES.get(random.nextInt(PIECES.size())));
            }
            assertThat(PersistentIndex.terms(text.toString())).as("terms of '%s'", text).isEqualTo(byRegex(text.toString()));
        }
    }

    private static Set<String> byRegex(String text) {
        Set<String> out = new HashSet<>();
        for (String t : text.toLowerCase(Locale.ROOT).split("[^\\p{L}\\p{N}]+")) {
            if (t.length() > 2) {
                out.add(t);
            }
        }
        return out;
    }
}

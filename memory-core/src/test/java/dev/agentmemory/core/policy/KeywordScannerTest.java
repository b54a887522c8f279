package dev.agentmemory.core.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class KeywordScannerTest {

    @Test
    void should_report_every_overlapping_occurrence_including_suffixes_and_infixes() {
        // given the textbook set: "he" is a suffix of "she" and a prefix of "hers"
        KeywordScanner scanner = new KeywordScanner(List.of("he", "she", "his", "hers"));

        // when
        TreeMap<String, List<Integer>> hits = hits(scanner, List.of("he", "she", "his", "hers"), "ushers");

        // then
        assertThat(hits).containsOnlyKeys("he", "she", "hers");
        assertThat(hits.get("she")).containsExactly(1);
        assertThat(hits.get("he")).containsExactly(2);
        assertThat(hits.get("hers")).containsExactly(2);
    }

    @Test
    void should_report_self_overlapping_occurrences_of_one_keyword() {
        KeywordScanner scanner = new KeywordScanner(List.of("aa", "a"));

        TreeMap<String, List<Integer>> hits = hits(scanner, List.of("aa", "a"), "aaaa");

        assertThat(hits.get("aa")).containsExactly(0, 1, 2);
        assertThat(hits.get("a")).containsExactly(0, 1, 2, 3);
    }

    @Test
    void should_find_an_infix_keyword_reached_only_through_a_failure_link() {
        // "bcd" is inside "abcde" but the trie path for "abcx" must be left at 'd'
        KeywordScanner scanner = new KeywordScanner(List.of("abcx", "bcd", "c"));

        TreeMap<String, List<Integer>> hits = hits(scanner, List.of("abcx", "bcd", "c"), "abcde abcx");

        assertThat(hits.get("bcd")).containsExactly(1);
        assertThat(hits.get("c")).containsExactly(2, 8);
        assertThat(hits.get("abcx")).containsExactly(6);
    }

    @Test
    void should_find_nothing_in_empty_text_or_with_no_keywords() {
        KeywordHits inEmpty = new KeywordScanner(List.of("ignore", "a")).find("");
        assertThat(inEmpty.size()).isZero();
        assertThat(inEmpty.contains(0)).isFalse();
        assertThat(inEmpty.first(1)).isEqualTo(-1);

        KeywordScanner none = new KeywordScanner(List.of());
        assertThat(none.keywordCount()).isZero();
        assertThat(none.find("any text at all").size()).isZero();
    }

    @Test
    void should_refuse_an_empty_keyword_by_its_index() {
        assertThatThrownBy(() -> new KeywordScanner(List.of("ok", "")))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("keyword 1 is empty");
    }

    @Test
    void should_match_cjk_and_supplementary_keywords_at_char_offsets() {
        // given Chinese keywords, a non-ASCII Latin one and one outside the BMP (two chars)
        List<String> keywords = List.of("忽略", "之前", "指令", "é", "𠀀x");
        KeywordScanner scanner = new KeywordScanner(keywords);
        String text = "请忽略之前的指令 café 𠀀x 𠀁x";

        // when
        TreeMap<String, List<Integer>> hits = hits(scanner, keywords, text);

        // then offsets are UTF-16 indexes, as String.indexOf gives them
        assertThat(hits.get("忽略")).containsExactly(text.indexOf("忽略"));
        assertThat(hits.get("之前")).containsExactly(text.indexOf("之前"));
        assertThat(hits.get("指令")).containsExactly(text.indexOf("指令"));
        assertThat(hits.get("é")).containsExactly(text.indexOf("é"));
        assertThat(hits.get("𠀀x")).containsExactly(text.indexOf("𠀀x"));
    }

    @Test
    void should_match_exact_chars_so_full_width_forms_need_normalizing_first() {
        KeywordScanner scanner = new KeywordScanner(List.of("ignore", "：", ":"));
        String fullWidth = "ＩＧＮＯＲＥ ｉｇｎｏｒｅ：";

        assertThat(hits(scanner, List.of("ignore", "：", ":"), fullWidth)).containsOnlyKeys("：");
        assertThat(hits(scanner, List.of("ignore", "：", ":"), TextNormalizer.normalize(fullWidth)))
                .containsOnlyKeys("ignore", ":");
        assertThat(hits(scanner, List.of("ignore", "：", ":"), TextNormalizer.normalize(fullWidth)).get("ignore"))
                .containsExactly(0, 7);
    }

    @Test
    void should_agree_with_a_naive_search_on_random_texts() {
        Random random = new Random(42);
        String alphabet = "abé忽 ";
        for (int round = 0; round < 300; round++) {
            List<String> keywords = new ArrayList<>(new TreeSet<>(randomStrings(random, alphabet, 1 + random.nextInt(8), 4)));
            String text = randomStrings(random, alphabet, 1, 60).get(0);
            KeywordScanner scanner = new KeywordScanner(keywords);

            TreeMap<String, List<Integer>> found = hits(scanner, keywords, text);

            TreeMap<String, List<Integer>> expected = new TreeMap<>();
            for (String k : keywords) {
                for (int i = text.indexOf(k); i >= 0; i = text.indexOf(k, i + 1)) {
                    expected.computeIfAbsent(k, x -> new ArrayList<>()).add(i);
                }
            }
            assertThat(found).as("keywords %s in '%s'", keywords, text).isEqualTo(expected);
        }
    }

    /** Per keyword that occurs, its start offsets in ascending order. */
    private static TreeMap<String, List<Integer>> hits(KeywordScanner scanner, List<String> keywords, String text) {
        KeywordHits hits = scanner.find(text);
        TreeMap<String, List<Integer>> out = new TreeMap<>();
        for (int k = 0; k < keywords.size(); k++) {
            List<Integer> starts = new ArrayList<>();
            for (int h = hits.first(k); h >= 0; h = hits.next(h)) {
                starts.add(0, hits.start(h));
            }
            if (!starts.isEmpty()) {
                out.put(keywords.get(k), starts);
            }
        }
        return out;
    }

    private static List<String> randomStrings(Random random, String alphabet, int count, int maxLength) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            StringBuilder sb = new StringBuilder();
            for (int j = 1 + random.nextInt(maxLength); j > 0; j--) {
                sb.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
            out.add(sb.toString());
        }
        return out;
    }
}

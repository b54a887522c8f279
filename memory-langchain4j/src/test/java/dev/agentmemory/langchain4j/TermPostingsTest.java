package dev.agentmemory.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The persistent index's term table holds, after any sequence of keys indexed and removed, the
 * same terms and postings as a map of sets does: terms that share a hash ({@code "Aa"} and
 * {@code "BB"}), tables that grow and runs of cells that shift back when a term is dropped.
 */
class TermPostingsTest {

    private static final List<String> WORDS = List.of("AaAa", "BBBB", "AaBB", "BBAa", "tea", "kitchen", "colour",
            "42x", "delivery", "straße", "οδος", "日本語");

    @Test
    void should_hold_what_a_map_of_sets_holds_after_keys_come_and_go() {
        Random random = new Random(5);
        TermPostings table = new TermPostings();
        Map<String, Set<Integer>> expected = new HashMap<>();
        Map<Integer, List<String>> keys = new HashMap<>();
        int nextSlot = 0;
        for (int step = 0; step < 20_000; step++) {
            if (keys.isEmpty() || random.nextInt(3) > 0) {
                // a key with some words, and a word of its own (a number, as most keys have)
                int slot = nextSlot++;
                List<String> words = new ArrayList<>();
                for (int n = random.nextInt(5); n >= 0; n--) {
                    words.add(WORDS.get(random.nextInt(WORDS.size())));
                }
                words.add("n" + random.nextInt(5_000));
                keys.put(slot, words);
                for (String w : words) {
                    table.add(w.toCharArray(), w.length(), w.hashCode(), slot);
                    expected.computeIfAbsent(w, x -> new HashSet<>()).add(slot);
                }
            } else {
                List<Integer> slots = new ArrayList<>(keys.keySet());
                int slot = slots.get(random.nextInt(slots.size()));
                for (String w : keys.remove(slot)) {
                    table.remove(w.toCharArray(), w.length(), w.hashCode(), slot);
                    Set<Integer> holding = expected.get(w);
                    if (holding != null && holding.remove(slot) && holding.isEmpty()) {
                        expected.remove(w);
                    }
                }
            }
            if (step % 500 == 0) {
                assertHolds(table, expected);
            }
        }
        assertHolds(table, expected);
        assertThat(table.termNumber("absent")).isEqualTo(-1);
    }

    private static void assertHolds(TermPostings table, Map<String, Set<Integer>> expected) {
        assertThat(table.size()).isEqualTo(expected.size());
        expected.forEach((term, slots) -> {
            int t = table.termNumber(term);
            assertThat(t).as(term).isNotNegative();
            List<Integer> got = new ArrayList<>();
            for (int k = 0; k < table.count(t); k++) {
                got.add(table.slot(t, k));
            }
            assertThat(got).as(term).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(slots);
        });
    }
}

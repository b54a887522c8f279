package dev.agentmemory.langchain4j.plainwords;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Precision and recall of the plain-words rules on pairs of an older and a newer statement, in
 * English and Chinese. The held-out half ({@code plain-words/held-out.txt}) was written before
 * the rules and never tuned on; the development half ({@code plain-words/development.txt}) was
 * read while writing them. A pair is predicted to supersede when both statements read as the
 * same attribute, and to end when the newer ends the older's value ({@link PlainWords#ends}, the
 * same value or none named: "end:" and the key); it is a true positive when that is the expected key.
 */
class PlainWordsPairsTest {

    record Scores(int pairs, int positives, int truePositives, int predicted, int falseWrites, int nothingPairs,
                  List<String> misses, List<String> wrong) {
        double precision() {
            return predicted == 0 ? 1.0 : (double) truePositives / predicted;
        }

        double recall() {
            return positives == 0 ? 1.0 : (double) truePositives / positives;
        }

        @Override
        public String toString() {
            return String.format(java.util.Locale.ROOT, "%d pairs (%d positive): precision %.3f (%d/%d), recall %.3f (%d/%d),"
                            + " negatives whose newer statement wrote something %d/%d", pairs, positives, precision(),
                    truePositives, predicted, recall(), truePositives, positives, falseWrites, nothingPairs);
        }
    }

    static Set<String> keys(String text) {
        return PlainWords.read(text).stream().map(s -> s.attribute().key().path()).collect(Collectors.toSet());
    }

    /** The keys of the older statement's values that the newer one ends ("end:" plus the key). */
    static Set<String> ended(String older, String newer) {
        List<PlainWords.Statement> held = PlainWords.read(older);
        return PlainWords.ends(newer).stream()
                .filter(e -> held.stream().anyMatch(h -> h.attribute() == e.attribute() && e.ends(h.value())))
                .map(e -> "end:" + e.attribute().key().path()).collect(Collectors.toSet());
    }

    static Scores score(List<PlainWordsPairs.Pair> pairs) {
        int positives = 0;
        int tp = 0;
        int predicted = 0;
        int falseWrites = 0;
        int nothing = 0;
        List<String> misses = new ArrayList<>();
        List<String> wrong = new ArrayList<>();
        for (PlainWordsPairs.Pair p : pairs) {
            Set<String> older = keys(p.older());
            Set<String> newer = keys(p.newer());
            Set<String> shared = older.stream().filter(newer::contains).collect(Collectors.toSet());
            Set<String> ended = ended(p.older(), p.newer());
            shared.addAll(ended);
            if (p.positive()) {
                positives++;
            }
            if (!shared.isEmpty()) {
                predicted++;
                if (p.positive() && shared.contains(p.expected())) {
                    tp++;
                } else {
                    wrong.add(p.line() + ": " + p.older() + " -> " + p.newer() + " read as " + shared);
                }
            }
            if (p.positive() && !shared.contains(p.expected())) {
                misses.add(p.line() + ": " + p.older() + " " + older + " -> " + p.newer() + " " + newer);
            }
            if (p.expected().equals("-")) {
                nothing++;
                if (!newer.isEmpty() || !ended.isEmpty()) {
                    falseWrites++;
                    wrong.add(p.line() + ": " + p.newer() + " wrote " + newer + " ended " + ended);
                }
            }
        }
        return new Scores(pairs.size(), positives, tp, predicted, falseWrites, nothing, misses, wrong);
    }

    @Test
    void should_reach_the_floors_on_the_held_out_pairs_and_print_both_halves() throws IOException {
        List<PlainWordsPairs.Pair> development = PlainWordsPairs.load("/plain-words/development.txt");
        List<PlainWordsPairs.Pair> heldOut = PlainWordsPairs.load("/plain-words/held-out.txt");
        Scores dev = score(development);
        Scores held = score(heldOut);
        System.out.println("plain-words development: " + dev);
        dev.misses().forEach(m -> System.out.println("  dev miss " + m));
        dev.wrong().forEach(m -> System.out.println("  dev wrong " + m));
        System.out.println("plain-words held-out:    " + held);
        held.misses().forEach(m -> System.out.println("  held-out miss " + m));
        held.wrong().forEach(m -> System.out.println("  held-out wrong " + m));

        assertThat(development.size() + heldOut.size()).isGreaterThanOrEqualTo(200);
        assertThat(held.precision()).as("held-out precision").isGreaterThanOrEqualTo(0.95);
        assertThat(held.recall()).as("held-out recall").isGreaterThanOrEqualTo(0.80);
        assertThat(held.falseWrites()).as("held-out negatives that wrote something").isLessThanOrEqualTo(1);
    }
}

package dev.agentmemory.langchain4j.recall;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentmemory.testing.langchain4j.SharedEmbeddingModel;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * Writing many items in one {@link HybridIndex#upsertAll} (what a catch-up or a rebuild from the
 * log does) ends in the same index as writing them one at a time: the same items superseded by
 * the same ones, the same hits with the same scores, whether near-duplicates fall in one batch or
 * in different ones. And a batch costs one refresh of the searchers, not one per near-duplicate.
 */
class BatchedWritesTest {

    private static final Instant T0 = Instant.parse("2024-03-01T09:00:00Z");
    private static final String[] PARTITIONS = {"acme/alice", "acme/bob"};
    private static final String[] SPEAKERS = {"user", "assistant"};

    /** Families of statements that replace each other (near-duplicates, same frames), chat noise, questions and hypotheticals. */
    private static final String[] TEXTS = {
            "My phone number is 555-1234.", "My phone number is now 555-9876.", "My phone number changed to 555-4400.",
            "I live in Lisbon with my sister.", "I moved from Lisbon to Porto last month.", "I live in Porto now.",
            "My favourite colour is green.", "My favourite colour is blue these days.", "My favourite colour is red now.",
            "The dentist appointment is on Friday.", "The dentist appointment moved to Monday.",
            "Nora Fishel is an accomplished violinist.", "Nora Fishel is not a violinist any more.",
            "Nora Fishel first met Tom in Berlin.", "Nora Fishel first met Tom in Vienna.",
            "Our cat is called Miso.", "Our cat is called Miso and she is three.",
            "I work at Acme as an engineer.", "I work at Globex now as an engineer.",
            "Please send the invoice to Priya.", "Send the invoices to Tom from now on.",
            "Great, thanks!", "Thanks, that sounds great.", "I am allergic to peanuts.",
            "Where do I live?", "What is my phone number?", "If I moved to Paris, would I need a visa?",
            "I went hiking in the Alps with my sister.", "We went hiking in the Alps again with my sister.",
    };
    private static final String[] QUESTIONS = {
            "What is my phone number?", "Where do I live?", "What colour do I like?", "When is the dentist?",
            "Who is Nora Fishel?", "Where did Nora meet Tom?", "Where do I work?", "Who gets the invoices?",
            "hiking Alps sister", "cat Miso",
    };
    private static final Map<String, float[]> VECTORS = new ConcurrentHashMap<>();

    private static float[] embed(String text) {
        return VECTORS.computeIfAbsent(text, SharedEmbeddingModel::embed);
    }

    /** One write of a history: a text, said by whom, in which partition, when; {@code id} repeats an earlier id when it rewrites it. */
    record Write(int id, int text, int partition, int speaker, int minutes) {
    }

    /** A history and how it is cut into batches. */
    record History(List<Write> writes, List<Integer> batchSizes, boolean codeScan) {
    }

    @Provide
    Arbitrary<History> histories() {
        Arbitrary<Write> write = Combinators.combine(
                Arbitraries.integers().between(0, 999),
                Arbitraries.integers().between(0, TEXTS.length - 1),
                Arbitraries.integers().between(0, 9).map(p -> p < 8 ? 0 : 1),
                Arbitraries.integers().between(0, 5).map(s -> s < 5 ? 0 : 1),
                // few distinct minutes: many equal times (ordered by id), times out of write order
                Arbitraries.integers().between(0, 40)).as(Write::new);
        Arbitrary<List<Write>> writes = write.list().ofMinSize(20).ofMaxSize(320);
        Arbitrary<List<Integer>> sizes = Arbitraries.of(1, 3, 40, 70, 300).list().ofMinSize(1).ofMaxSize(6);
        return Combinators.combine(writes, sizes, Arbitraries.of(false, true)).as(History::new);
    }

    private static String idOf(List<Write> writes, int at) {
        Write w = writes.get(at);
        // about one write in twenty rewrites the id of an earlier one (an upsert that replaces)
        if (w.id() < 50 && at > 0) {
            return "m" + (w.id() % at);
        }
        return "m" + at;
    }

    private static List<IndexedItem> items(List<Write> writes) {
        List<IndexedItem> out = new ArrayList<>();
        for (int i = 0; i < writes.size(); i++) {
            Write w = writes.get(i);
            String text = TEXTS[w.text()];
            out.add(new IndexedItem(idOf(writes, i), PARTITIONS[w.partition()], text, jitter(embed(text), i),
                    T0.plus(Duration.ofMinutes(w.minutes())), Map.of(HybridIndex.SPEAKER_ATTRIBUTE, SPEAKERS[w.speaker()],
                    HybridIndex.THREAD_ATTRIBUTE, "s" + (i % 3))));
        }
        return out;
    }

    /**
     * The vector moved a little (a cosine of about 0.999 to it), differently for every write: with
     * many copies of a text, the nearest eight of a check by sign codes would otherwise be chosen
     * among equal cosines by document order, which depends on how the index was written.
     */
    private static float[] jitter(float[] vector, int write) {
        java.util.Random random = new java.util.Random(write);
        float[] out = vector.clone();
        for (int i = 0; i < out.length; i++) {
            out[i] += (float) (random.nextGaussian() * 0.002);
        }
        return out;
    }

    private static HybridIndex index(boolean codeScan) {
        HybridIndex.Builder b = HybridIndex.builder(384).serialMerges();
        if (codeScan) {
            // every search and every write-time check by sign codes (the large-partition path)
            b.exactSearchBelow(0);
        }
        return b.build();
    }

    @Property(tries = 40, seed = "27")
    void should_end_in_the_same_index_whether_items_are_written_one_at_a_time_or_in_batches(
            @ForAll("histories") History history) {
        List<IndexedItem> items = items(history.writes());
        try (HybridIndex oneByOne = index(history.codeScan()); HybridIndex batched = index(history.codeScan())) {
            // when: the same items, one per write, and in batches of the history's sizes
            items.forEach(oneByOne::upsert);
            int at = 0;
            for (int b = 0; at < items.size(); b++) {
                int size = history.batchSizes().get(b % history.batchSizes().size());
                batched.upsertAll(items.subList(at, Math.min(items.size(), at + size)));
                at += size;
            }

            // then
            assertSameIndex(items, oneByOne, batched, history.codeScan());
        }
    }

    @Test
    void should_refresh_once_for_a_batch_of_near_duplicates() {
        // given: an index that shows what it holds, and a batch whose statements replace each other
        List<IndexedItem> batch = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            String text = TEXTS[i % 9];
            batch.add(new IndexedItem("n" + i, PARTITIONS[0], text, embed(text), T0.plus(Duration.ofMinutes(i)), Map.of()));
        }
        try (HybridIndex index = index(false); HybridIndex oneByOne = index(false)) {
            index.refresh();
            long before = index.refreshes();

            // when
            index.upsertAll(batch);

            // then: one refresh, and the statements replaced as if written one at a time
            assertThat(index.refreshes() - before).isLessThanOrEqualTo(1);
            batch.forEach(oneByOne::upsert);
            assertSameIndex(batch, oneByOne, index, false);
            assertThat(index.supersededBy("n0")).isPresent();
        }
    }

    private static void assertSameIndex(List<IndexedItem> items, HybridIndex expected, HybridIndex actual, boolean codeScan) {
        Set<String> ids = new LinkedHashSet<>();
        items.forEach(i -> ids.add(i.id()));
        Map<String, Optional<String>> expectedSuperseded = new TreeMap<>();
        Map<String, Optional<String>> actualSuperseded = new TreeMap<>();
        for (String id : ids) {
            expectedSuperseded.put(id, expected.supersededBy(id));
            actualSuperseded.put(id, actual.supersededBy(id));
            assertThat(actual.find(id)).as(id).isEqualTo(expected.find(id));
        }
        assertThat(actualSuperseded).isEqualTo(expectedSuperseded);
        assertThat(actual.size()).isEqualTo(expected.size());
        if (codeScan) {
            // Lucene's own term statistics count deleted documents until a merge removes them
            expected.optimize();
            actual.optimize();
        }
        Instant now = T0.plus(Duration.ofDays(3));
        for (String partition : PARTITIONS) {
            for (String question : QUESTIONS) {
                RecallQuery query = RecallQuery.of(partition, question, embed(question), 15, now);
                assertThat(actual.search(query)).as(question).isEqualTo(expected.search(query));
                assertThat(actual.search(query.withIncludeSuperseded(true))).as(question)
                        .isEqualTo(expected.search(query.withIncludeSuperseded(true)));
            }
        }
    }
}

package dev.agentmemory.langchain4j.recall;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentmemory.testing.langchain4j.SharedEmbeddingModel;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How the default index ranks conversation turns: what a question's words count for, turns that
 * answer the turn a question matches, and dates the question names.
 */
class RecallRankingTest {

    private static final Instant T0 = Instant.parse("2024-05-01T10:00:00Z");
    private static final String ALICE = "acme/alice";

    /**
     * Default ranking; write-time supersession off, since these turns are near one another on
     * purpose and the detector would hide some of them (HybridIndexTest covers it).
     */
    private final HybridIndex index = HybridIndex.builder(384).supersessionDetection(false).build();

    @AfterEach
    void close() {
        index.close();
    }

    private void say(String id, String thread, String text, Instant time) {
        Map<String, String> attributes = new HashMap<>();
        if (thread != null) {
            attributes.put(HybridIndex.THREAD_ATTRIBUTE, thread);
        }
        index.upsert(new IndexedItem(id, ALICE, text, SharedEmbeddingModel.embed(text), time, attributes));
    }

    private List<RecallHit> search(String question, int max) {
        return index.search(RecallQuery.of(ALICE, question, SharedEmbeddingModel.embed(question), max,
                T0.plus(Duration.ofDays(30))));
    }

    private static List<String> ids(List<RecallHit> hits) {
        return hits.stream().map(RecallHit::id).toList();
    }

    @Test
    void should_match_a_question_on_its_subject_not_on_its_question_words() {
        // given: one turn shares only "what" and "did" with the question, one its subject
        say("weekend", "s1", "What did you do at the weekend?", T0);
        say("painting", "s1", "I painted a lake at sunrise.", T0.plusSeconds(1));

        // when: a lexical-only search (no vector: only items sharing a term are found)
        List<RecallHit> hits = index.search(new RecallQuery(ALICE, "What did Melanie paint?", null, 10,
                T0.plus(Duration.ofDays(1)), false, 0));

        // then
        assertThat(ids(hits)).containsExactly("painting");
    }

    @Test
    void should_keep_a_query_made_only_of_question_words_answerable_by_its_vector() {
        say("weekend", "s1", "What did you do at the weekend?", T0);

        List<RecallHit> lexicalOnly = index.search(new RecallQuery(ALICE, "What did you do?", null, 10,
                T0.plus(Duration.ofDays(1)), false, 0));
        List<RecallHit> hybrid = search("What did you do?", 10);

        assertThat(lexicalOnly).isEmpty();
        assertThat(ids(hybrid)).containsExactly("weekend");
    }

    @Test
    void should_rank_the_answer_to_a_matching_question_high_when_it_shares_no_words_with_the_query() {
        // given: the user asked about a book for the flight; the assistant's answer names only the title.
        // Other threads hold turns about flights and reading.
        say("ask", "s1", "Which book should I take on my flight to Oslo?", T0);
        say("answer", "s1", "The Remains of the Day, by Kazuo Ishiguro.", T0.plusSeconds(1));
        say("thanks", "s1", "Thanks, see you tomorrow.", T0.plusSeconds(2));
        say("d1", "s2", "My flight was delayed by two hours.", T0.plus(Duration.ofDays(2)));
        say("d2", "s2", "I like reading on long trips.", T0.plus(Duration.ofDays(2)).plusSeconds(1));
        say("d3", "s3", "The bookshop near the station closed.", T0.plus(Duration.ofDays(4)));
        say("d4", "s3", "I booked a hotel for the conference.", T0.plus(Duration.ofDays(4)).plusSeconds(1));

        // when
        List<RecallHit> hits = search("What book did I take on my flight to Oslo?", 3);

        // then: the question's own turn and its answer, explained
        assertThat(ids(hits)).startsWith("ask").contains("answer");
        RecallHit answer = hits.stream().filter(h -> h.id().equals("answer")).findFirst().orElseThrow();
        assertThat(answer.why()).contains("neighbour");
    }

    @Test
    void should_pass_nothing_across_threads_or_to_items_without_a_thread() {
        // given: right after the matching question in time come a turn of another thread and a fact
        say("ask", "s1", "Which book should I take on my flight to Oslo?", T0);
        say("other-thread", "s2", "The Remains of the Day, by Kazuo Ishiguro.", T0.plusSeconds(1));
        say("fact", null, "favourite.author = Kazuo Ishiguro", T0.plusSeconds(2));

        // when
        List<RecallHit> hits = search("What book did I take on my flight to Oslo?", 3);

        // then
        assertThat(hits).filteredOn(h -> !h.id().equals("ask")).allSatisfy(h -> assertThat(h.why()).doesNotContain("neighbour"));
    }

    @Test
    void should_rank_what_was_said_in_the_month_the_question_names_first() {
        // given: the same kind of event told in May and in July, the July one closer to the question's words
        say("may", "s1", "We camped by the lake last weekend.", Instant.parse("2023-05-20T10:00:00Z"));
        say("july", "s2", "We went camping in the mountains last weekend.", Instant.parse("2023-07-15T10:00:00Z"));

        // when
        List<RecallHit> inMay = search("Where did we go camping in May?", 2);
        List<RecallHit> inJuly = search("Where did we go camping in July 2023?", 2);

        // then
        assertThat(ids(inMay)).containsExactly("may", "july");
        assertThat(inMay.get(0).why()).contains("date");
        assertThat(ids(inJuly)).containsExactly("july", "may");
    }

    @Test
    void should_reject_settings_out_of_range() {
        assertThatThrownBy(() -> HybridIndex.builder(384).neighbourShare(1.5))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("neighbour share");
        assertThatThrownBy(() -> HybridIndex.builder(384).dateWeight(-1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("date weight");
    }
}

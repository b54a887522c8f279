package dev.agentmemory.langchain4j.recall;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentmemory.testing.langchain4j.SharedEmbeddingModel;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The learned read-time rule ({@link UpdateModel}): of two statements about a named subject in
 * common, said at least an hour apart, the older one is left out of a query's results when the
 * newer one gives another answer to the same question, sharing few of its words. Statements said together, about another subject or another attribute,
 * chat turns, questions and hypotheticals are left alone.
 */
class LearnedUpdateRuleTest {

    private static final Instant T0 = Instant.parse("2024-03-01T09:00:00Z");
    private static final List<String> OTHER_FACTS = List.of(
            "Lena Morrow grew up in a small village in Cornwall.",
            "Lena Morrow adopted a rescue greyhound called Pip.",
            "Lena Morrow sings in a community choir on Thursdays.",
            "Lena Morrow is learning to play the cello.");

    /** The ids a query returns (current items only), best first, with frame resolution on or off. */
    private static List<String> search(boolean on, String older, String newer, Duration gap, String question) {
        try (HybridIndex index = HybridIndex.builder(SharedEmbeddingModel.get().dimension())
                // write-time supersession off: only the read-time rules act
                .supersessionDetection(false).frameResolution(on).build()) {
            add(index, "old", older, T0);
            for (int i = 0; i < OTHER_FACTS.size(); i++) {
                add(index, "other-" + i, OTHER_FACTS.get(i), T0.plus(Duration.ofMinutes(i + 1)));
            }
            add(index, "new", newer, T0.plus(gap));
            return index.search(RecallQuery.of("p", question, SharedEmbeddingModel.embed(question), 5,
                    T0.plus(gap).plus(Duration.ofHours(1)))).stream().map(RecallHit::id).toList();
        }
    }

    private static void add(HybridIndex index, String id, String text, Instant time) {
        index.upsert(new IndexedItem(id, "p", text, SharedEmbeddingModel.embed(text), time, Map.of()));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "each went to another university|Both Lena Morrow and Tom Baines are alumni of the University of Bristol."
                    + "|Lena Morrow attended Imperial College, while Tom Baines attended the Glasgow School of Art."
                    + "|Which university did both Lena Morrow and Tom Baines attend?"})
    void should_leave_out_the_older_answer_when_a_later_statement_answers_differently(
            String name, String older, String newer, String question) {
        List<String> on = search(true, older, newer, Duration.ofDays(1), question);
        List<String> off = search(false, older, newer, Duration.ofDays(1), question);

        assertThat(off).as("without read-time resolution").contains("old", "new");
        assertThat(on).as("%s", on).contains("new").doesNotContain("old");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "said in the same hour|Both Lena Morrow and Tom Baines are alumni of the University of Bristol.|PT10M"
                    + "|Lena Morrow attended Imperial College, while Tom Baines attended the Glasgow School of Art."
                    + "|Which university did both Lena Morrow and Tom Baines attend?",
            "another subject|Lena Morrow works as a pediatric nurse in Leeds.|P1D"
                    + "|Tom Baines is now a software engineer at a fintech startup.|What is Lena Morrow's job?",
            "another attribute of the subject|Lena Morrow works as a pediatric nurse in Leeds.|P1D"
                    + "|Lena Morrow took up pottery classes at the weekend.|What is Lena Morrow's job?",
            "chat turns with a speaker|Lena: I work as a pediatric nurse in Leeds.|P1D"
                    + "|Lena: I am now a software engineer at a fintech startup.|What is Lena's job?",
            "a question|Lena Morrow works as a pediatric nurse in Leeds.|P1D"
                    + "|Is Lena Morrow now a software engineer at a fintech startup?|What is Lena Morrow's job?",
            "a hypothetical|Lena Morrow works as a pediatric nurse in Leeds.|P1D"
                    + "|If Lena Morrow became a software engineer, she would earn more.|What is Lena Morrow's job?"})
    void should_keep_the_older_statement(String name, String older, Duration gap, String newer, String question) {
        List<String> on = search(true, older, newer, gap, question);

        assertThat(on).as("%s", on).contains("old");
    }
}

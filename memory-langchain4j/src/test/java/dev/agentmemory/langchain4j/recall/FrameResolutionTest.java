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
 * Read-time resolution by frame: of two statements about the same named subject, the older one
 * is left out of a query's results (superseded for that read) or demoted when the newer one says
 * the same kind of thing about the subject; questions, hypotheticals, another subject and chat
 * turns that open with a speaker leave it alone.
 */
class FrameResolutionTest {

    private static final Instant T0 = Instant.parse("2024-03-01T09:00:00Z");
    private static final String OLD = "Kevin Smythe volunteers at a local animal shelter on weekends.";
    private static final String QUESTION = "Where does Kevin Smythe volunteer on weekends?";

    /** The ids a query returns (current items only), best first, with frame resolution on or off. */
    private static List<String> search(boolean frames, String older, String newer, String question) {
        try (HybridIndex index = HybridIndex.builder(SharedEmbeddingModel.get().dimension())
                // write-time supersession off: only the read-time rule acts
                .supersessionDetection(false).frameResolution(frames).build()) {
            index.upsert(new IndexedItem("old", "p", older, SharedEmbeddingModel.embed(older), T0, Map.of()));
            index.upsert(new IndexedItem("filler", "p", "Kevin Smythe coaches a basketball team on Saturdays.",
                    SharedEmbeddingModel.embed("Kevin Smythe coaches a basketball team on Saturdays."),
                    T0.plus(Duration.ofMinutes(1)), Map.of()));
            index.upsert(new IndexedItem("new", "p", newer, SharedEmbeddingModel.embed(newer), T0.plus(Duration.ofDays(1)),
                    Map.of()));
            return index.search(RecallQuery.of("p", question, SharedEmbeddingModel.embed(question), 5,
                    T0.plus(Duration.ofDays(2)))).stream().map(RecallHit::id).toList();
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "another place|" + OLD + "|Kevin Smythe volunteers at the community library on weekends.|" + QUESTION,
            "another city|Kevin Smythe was born in New York City.|Kevin Smythe was born in Los Angeles."
                    + "|In which city was Kevin Smythe born?"})
    void should_rank_the_newer_statement_first_and_drop_or_demote_the_older(String name, String older, String newer,
                                                                             String question) {
        List<String> on = search(true, older, newer, question);
        List<String> off = search(false, older, newer, question);

        assertThat(off).as("without frames").contains("old");
        assertThat(on.get(0)).as("%s", on).isEqualTo("new");
        // superseded for this read, or demoted below everything the newer statement does not replace
        assertThat(on.indexOf("old") < 0 || on.indexOf("old") > on.indexOf("filler")).as("%s", on).isTrue();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "a question|Does Kevin Smythe volunteer at the community library on weekends?|" + OLD,
            "a hypothetical|If Kevin Smythe volunteered at the community library on weekends, he would say so.|" + OLD,
            "another subject|Maria Lopez volunteers at the community library on weekends.|" + OLD,
            "chat turns with a speaker|Kevin: I volunteer at the community library on weekends.|"
                    + "Kevin: I volunteer at a local animal shelter on weekends.",
            "a pronoun, not a name, opening both|We volunteer at the community library on weekends.|"
                    + "We volunteer at a local animal shelter on weekends.",
            "a possessive pronoun opening both|My brother volunteers at the community library on weekends.|"
                    + "My brother volunteers at a local animal shelter on weekends."})
    void should_leave_the_older_statement_alone(String name, String newer, String older) {
        List<String> on = search(true, older, newer, QUESTION);
        List<String> off = search(false, older, newer, QUESTION);

        assertThat(on).isEqualTo(off);
    }
}

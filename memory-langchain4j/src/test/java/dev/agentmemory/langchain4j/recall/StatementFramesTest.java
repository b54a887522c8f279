package dev.agentmemory.langchain4j.recall;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentmemory.testing.langchain4j.SharedEmbeddingModel;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Keyless knowledge updates about named subjects, through the index: a statement written a day
 * after another replaces it when both open with the same subjects and state the same relation,
 * or when it negates what the other said; other people's facts, other relations, questions and
 * hypotheticals replace nothing. Each pair is also written in the other order (the older one
 * second), which must give the same result: the decision is a function of the pair.
 */
class StatementFramesTest {

    private static final Instant T0 = Instant.parse("2024-05-01T10:00:00Z");

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "same relation, new object|true|Mira Okafor and Tomas Lind first met at a chess club in Bergen."
                    + "|Mira Okafor and Tomas Lind first met on a night ferry to Stockholm.",
            "possessive attribute|true|Priya Raman's favourite band is a jazz trio from Oslo."
                    + "|Priya Raman's favourite band is now an indie rock group.",
            "negation ends the value|true|Ines Duarte won the regional piano prize in 2023."
                    + "|Ines Duarte did not win the regional piano prize in 2023; she came second.",
            "no longer|true|Karl Brandt volunteers at the city animal shelter on Sundays."
                    + "|Karl Brandt no longer volunteers at the city animal shelter.",
            "another person, same relation|false|Mira Okafor plays the cello in a string quartet."
                    + "|Tomas Lind plays the trumpet in a brass band.",
            "same person, another relation|false|Mira Okafor plays the cello in a string quartet."
                    + "|Mira Okafor teaches chemistry at a secondary school.",
            "question|false|Ines Duarte won the regional piano prize in 2023."
                    + "|Did Ines Duarte not win the regional piano prize in 2023?",
            "hypothetical|false|Karl Brandt volunteers at the city animal shelter on Sundays."
                    + "|If Karl Brandt no longer volunteers at the shelter, who walks the dogs?",
            "speaker prefix, not a subject|false|Caroline: I went hiking with my sister last weekend."
                    + "|Caroline: I went to a pottery class yesterday."})
    void should_replace_only_a_statement_of_the_same_frame(String name, boolean replaces, String older, String newer) {
        for (boolean olderFirst : new boolean[] {true, false}) {
            try (HybridIndex index = HybridIndex.inMemory(384)) {
                if (olderFirst) {
                    add(index, "old", older, T0);
                    add(index, "new", newer, T0.plus(Duration.ofDays(1)));
                } else {
                    add(index, "new", newer, T0.plus(Duration.ofDays(1)));
                    add(index, "old", older, T0);
                }

                assertThat(index.supersededBy("old")).as("older first: %s", olderFirst)
                        .isEqualTo(replaces ? Optional.of("new") : Optional.empty());
                assertThat(index.supersededBy("new")).isEmpty();
            }
        }
    }

    private static void add(HybridIndex index, String id, String text, Instant time) {
        index.upsert(new IndexedItem(id, "acme/alice", text, SharedEmbeddingModel.embed(text), time, Map.of()));
    }
}

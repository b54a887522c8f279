package dev.agentmemory.langchain4j.recall;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DateCueTest {

    @ParameterizedTest(name = "{0} at {1}: {2}")
    @CsvSource(delimiter = '|', value = {
            "When did Melanie go camping in June?|2023-06-30T10:00:00Z|true",
            "When did Melanie go camping in June?|2022-06-01T00:00:00Z|true",
            "When did Melanie go camping in June?|2023-07-01T00:00:00Z|false",
            "What did they paint in July 2023?|2023-07-09T10:00:00Z|true",
            "What did they paint in July 2023?|2022-07-09T10:00:00Z|false",
            "What painting did she show on October 13, 2023?|2023-10-13T18:00:00Z|true",
            "What painting did she show on October 13, 2023?|2023-10-14T18:00:00Z|false",
            "What did Gina find on 1 February, 2023?|2023-02-01T09:00:00Z|true",
            "What did Gina find on 1 February, 2023?|2023-02-02T09:00:00Z|false",
            "Who did Maria meet on May 3, 2023?|2023-05-03T09:00:00Z|true",
            "How often did she go to the beach in 2023?|2023-11-30T09:00:00Z|true",
            "How often did she go to the beach in 2023?|2022-11-30T09:00:00Z|false",
    })
    void should_match_items_said_in_the_span_the_question_names(String question, String at, boolean matches) {
        assertThat(DateCue.in(question)).hasValueSatisfying(cue -> assertThat(cue.matches(Instant.parse(at))).isEqualTo(matches));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "May I ask what you painted?",
            "What did you paint? May was busy, I guess.",
            "Which 2023 models did she like?",
            "What did she paint recently?",
    })
    void should_find_no_date_where_none_is_named(String question) {
        // "May" with no preposition before it and no number after it is read as the verb
        assertThat(DateCue.in(question)).isEmpty();
    }
}

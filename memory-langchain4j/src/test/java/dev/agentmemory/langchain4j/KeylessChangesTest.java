package dev.agentmemory.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentmemory.langchain4j.framing.FramedItem;
import dev.agentmemory.testing.TestClock;
import dev.agentmemory.testing.langchain4j.SharedEmbeddingModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Issue 23: changes about other people said in plain words, with few words in common and no key
 * (a third-person change of a relation's object, and a negation that ends what was said), reach
 * the model as changes. Day 1 states the old fact among others about the same people, day 30 the
 * change, day 31 a question: the whole request holds the change and never the old statement as
 * something that holds (it is left out of the episodic layer, since a newer statement replaced
 * it), while the other facts about the same people are still shown; the same after a restart,
 * when the index is rebuilt from the log. Before the statement frames (same named subjects, same
 * relation or a negation), the old statement was shown beside the new one.
 */
class KeylessChangesTest {

    private static final Instant DAY_1 = Instant.parse("2025-02-03T09:00:00Z");

    @TempDir
    Path dir;

    private static SessionRef session(String name) {
        return new SessionRef("acme", "dana", name);
    }

    private static AgentMemory open(Path db, TestClock clock) {
        return AgentMemory.builder().h2File(db).engineSettings(e -> e.clock(clock)).embeddingModel(SharedEmbeddingModel.get())
                .resultsPerLayer(20, 10, 10).build();
    }

    /** The request shows the change and the unrelated fact, and nothing framed says the old statement holds. */
    private static void assertChanged(AgentMemory memory, ChatRequest request, String oldSaid, String newSaid,
                                      String otherFact) {
        List<FramedItem> items = FramedRequests.check(memory, request);
        assertThat(items).as("the change in %s", items).anySatisfy(i -> {
            assertThat(i.text()).contains(newSaid);
            assertThat(i.extra()).containsEntry(FramedItem.LAYER, "episodic");
        });
        assertThat(items).as("the other fact about the same people in %s", items)
                .anySatisfy(i -> assertThat(i.text()).contains(otherFact));
        assertThat(items).filteredOn(i -> i.text().contains(oldSaid)).as("the old statement in %s", items)
                .allSatisfy(i -> assertThat(i.status()).isEqualTo("superseded"));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "third person|Mira Okafor and Tomas Lind first met at a chess club in Bergen."
                    + "|Mira Okafor and Tomas Lind first met on a night ferry to Stockholm."
                    + "|Mira Okafor and Tomas Lind run a small bakery together."
                    + "|Where did Mira Okafor and Tomas Lind first meet?",
            "negation|Ines Duarte won the regional piano prize in 2023."
                    + "|Ines Duarte did not win the regional piano prize in 2023; she came second."
                    + "|Ines Duarte teaches piano to children on Saturdays."
                    + "|Which piano prize did Ines Duarte win in 2023?"})
    void should_show_the_change_and_not_the_old_statement_across_days_and_a_restart(String name, String day1,
            String day30, String otherFact, String question) {
        Path db = dir.resolve("memory-" + name.replace(' ', '-'));
        TestClock clock = new TestClock(DAY_1);
        try (AssistantProcess first = new AssistantProcess(open(db, clock))) {
            // given: day 1, the old statement and another fact about the same people; day 30, the change
            first.turn(session("s1"), day1);
            clock.advance(Duration.ofMinutes(5));
            first.turn(session("s1"), otherFact);
            clock.advance(Duration.ofDays(29));
            first.turn(session("s2"), day30);

            // when: day 31, the question in a session of its own
            clock.advance(Duration.ofDays(1));
            ChatRequest request = first.turn(session("s3"), question);

            // then
            assertChanged(first.memory, request, day1, day30, otherFact);
        }

        // when: the same question after a restart (H2 reopened, the index rebuilt from the log)
        try (AssistantProcess restarted = new AssistantProcess(open(db, clock))) {
            ChatRequest request = restarted.turn(session("s4"), question);
            // then: the same
            assertChanged(restarted.memory, request, day1, day30, otherFact);
        }
    }
}

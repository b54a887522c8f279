package dev.agentmemory.langchain4j;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.ScopeView.KeyState;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.langchain4j.framing.FramedItem;
import dev.agentmemory.testing.TestClock;
import dev.agentmemory.testing.langchain4j.SharedEmbeddingModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 23, item 3, endings: a statement that ends a value without giving a new one ("I no longer
 * work at Acme", 我不再吃素了) ends the key's current version in the log. On day 11 the whole request
 * the model receives shows no {@code current} value of the key (the older statement, if shown, is
 * framed as replaced), also after a restart on an H2 file, while {@code history} and {@code asOf}
 * still give the ended value for the days it held. Negatives (someone else, a question, the past, a
 * different value) leave the value current.
 */
class PlainWordsEndingsTest {

    private static final Instant DAY_1 = Instant.parse("2025-03-03T09:00:00Z");

    @TempDir
    Path dir;

    private static SessionRef session(String name) {
        return new SessionRef("acme", "dana", name);
    }

    private static AgentMemory open(Path db, TestClock clock) {
        return AgentMemory.builder().h2File(db).engineSettings(e -> e.clock(clock))
                .embeddingModel(SharedEmbeddingModel.get()).resultsPerLayer(20, 10, 10).build();
    }

    private static Optional<KeyState> state(List<KeyState> keys, MemoryKey key) {
        return keys.stream().filter(k -> k.key().equals(key)).findFirst();
    }

    /** Nothing in the request frames the ended value as holding. */
    private static void assertEnded(AgentMemory memory, ChatRequest request, String keyPath, String value, String ending) {
        List<FramedItem> items = FramedRequests.items(memory, request);
        assertThat(items).as("the request %s", items)
                .noneMatch(i -> i.text().startsWith(keyPath + " =") && i.status().equals("current"));
        assertThat(items).filteredOn(i -> i.text().contains(value))
                .allSatisfy(i -> assertThat(i.status()).as("%s", i).isIn("superseded", "past"));
        // whatever else names the value (the day-1 message, a summary) is framed as replaced; the ending itself is past
        assertThat(items).filteredOn(i -> i.text().contains(value) && !i.text().equals(ending))
                .allSatisfy(i -> assertThat(i.status()).as("%s", i).isEqualTo("superseded"));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "English employer|user.employer|I work at Acme.|I no longer work at Acme.|Where do I work?|Acme",
            "English diet|user.diet|I'm vegetarian.|I'm not vegetarian anymore.|What do I eat?|vegetarian",
            "English billing|org.billing.contact|Our billing contact is Tom.|Tom is not our billing contact any more."
                    + "|Who is our billing contact?|Tom",
            "Chinese employer|user.employer|我在Acme工作。|我已经不在Acme工作了。|我在哪里工作？|Acme",
            "Chinese diet|user.diet|我吃素。|我不再吃素了。|我吃什么？|吃素",
            "Chinese residence|user.residence|我住在上海。|我搬离了上海。|我住在哪里？|上海"})
    void should_end_the_value_in_every_read_path_across_days_and_a_restart(String name, String keyPath, String day1,
            String day10, String question, String value) {
        MemoryKey key = MemoryKey.of(keyPath);
        Path db = dir.resolve("memory-" + name.replace(' ', '-'));
        TestClock clock = new TestClock(DAY_1);
        Caller caller = session("s1").caller("assistant");
        try (AssistantProcess first = new AssistantProcess(open(db, clock))) {
            first.turn(session("s1"), day1);
            clock.advance(Duration.ofDays(9));
            first.turn(session("s2"), day10);
            clock.advance(Duration.ofDays(1));
            ChatRequest request = first.turn(session("s3"), question);

            assertEnded(first.memory, request, keyPath, value, day10);
            FramedRequests.assertLastRecallMatches(first.memory, session("s3"), FramedRequests.items(first.memory, request));

            MemoryEngine engine = first.memory.engine();
            assertThat(engine.current(caller, caller.persistent(), key)).isEmpty();
            assertThat(state(engine.view(caller, caller.persistent()).keys(), key).filter(k -> k.current() != null)).isEmpty();
            List<MemoryRecord> history = engine.history(caller, caller.persistent(), key);
            assertThat(history).isNotEmpty();
            // history keeps the ended version (the engine's invalidation tombstone: status forgotten, its
            // value left to asOf and the log), from the message that said it
            assertThat(history).singleElement().satisfies(r -> {
                assertThat(r.sourceRef()).isEqualTo("message:s1#0");
                assertThat(r.status()).isEqualTo(MemoryRecord.Status.FORGOTTEN);
            });
            assertThat(engine.admin().readableLog(caller)).anySatisfy(l -> assertThat(l).contains(keyPath));
            assertThat(engine.asOf(caller, caller.persistent(), DAY_1.plus(Duration.ofDays(4))).keys())
                    .filteredOn(k -> k.key().equals(key)).singleElement()
                    .satisfies(k -> assertThat(k.current().value().text()).contains(value));
            assertThat(state(engine.asOf(caller, caller.persistent(), clock.instant()).keys(), key)
                    .filter(k -> k.current() != null)).isEmpty();
        }

        try (AssistantProcess restarted = new AssistantProcess(open(db, clock))) {
            assertEnded(restarted.memory, restarted.turn(session("s4"), question), keyPath, value, day10);
            MemoryEngine engine = restarted.memory.engine();
            assertThat(engine.current(caller, caller.persistent(), key)).isEmpty();
            assertThat(engine.asOf(caller, caller.persistent(), DAY_1.plus(Duration.ofDays(4))).keys())
                    .filteredOn(k -> k.key().equals(key)).singleElement()
                    .satisfies(k -> assertThat(k.current()).isNotNull());
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "a friend|My friend no longer works at Acme.",
            "the past|I didn't work at Acme in 2019.",
            "a question|Do you think I should quit Acme?",
            "another value|I no longer work at Globex.",
            "a plan|I might quit Acme soon.",
            "reported|Tom said he quit Acme.",
            "chinese friend|我朋友已经不在Acme工作了。",
            "chinese question|我不在Acme工作了吗？"})
    void should_leave_the_value_current_for_negatives(String name, String said) {
        TestClock clock = new TestClock(DAY_1);
        Caller caller = session("s1").caller("assistant");
        try (AssistantProcess process = new AssistantProcess(open(dir.resolve("neg-" + name.replace(' ', '-')), clock))) {
            process.turn(session("s1"), "I work at Acme.");
            clock.advance(Duration.ofDays(9));
            process.turn(session("s2"), said);
            clock.advance(Duration.ofDays(1));
            ChatRequest request = process.turn(session("s3"), "Where do I work?");

            assertThat(process.memory.engine().current(caller, caller.persistent(), MemoryKey.of("user.employer")))
                    .hasValueSatisfying(r -> assertThat(r.value().text()).isEqualTo("Acme"));
            List<FramedItem> items = FramedRequests.items(process.memory, request);
            assertThat(items).anySatisfy(i -> {
                assertThat(i.text()).isEqualTo("user.employer = Acme");
                assertThat(i.status()).isEqualTo("current");
            });
        }
    }
}

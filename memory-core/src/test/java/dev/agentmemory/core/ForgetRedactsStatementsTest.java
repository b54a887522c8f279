package dev.agentmemory.core;

import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.engine.MemoryEngine.Messages;
import dev.agentmemory.core.event.StoredMessage;
import dev.agentmemory.core.spi.DerivedData.ForgetRequest;
import dev.agentmemory.core.spi.DerivedData;
import dev.agentmemory.core.spi.StatedValues;
import dev.agentmemory.core.store.InMemoryEventStore;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.core.MemoryRecord.Kind;

/**
 * Regression: forgetting a key left every copy of its value in the chat history (the statement,
 * the tool call that saved it, its result, the assistant's restatements in any session).
 */
class ForgetRedactsStatementsTest {

    static final Caller ALICE = Caller.of("shop", "alice");

    final InMemoryEventStore store = new InMemoryEventStore();
    final List<ForgetRequest> told = new ArrayList<>();
    final MemoryEngine engine = MemoryEngine.builder().store(store).derived(new DerivedData() {
        @Override
        public String name() {
            return "probe";
        }

        @Override
        public int forget(ForgetRequest request) {
            told.add(request);
            return 0;
        }
    }).build();

    private void append(String session, long index, String type, String json, String text) {
        engine.messages().change(ALICE, session, w -> new Messages.WindowChange(List.of(),
                List.of(new StoredMessage(index, index, type, json, text))));
    }

    private static String user(String text) {
        return "{\"contents\":[{\"text\":\"" + text + "\",\"type\":\"TEXT\"}],\"type\":\"USER\"}";
    }

    private static String ai(String text) {
        return "{\"text\":\"" + text + "\",\"type\":\"AI\"}";
    }

    private static final String CALL = "{\"toolExecutionRequests\":[{\"id\":\"c1\",\"name\":\"remember\",\"arguments\":"
            + "\"{\\\"key\\\":\\\"answer.language\\\",\\\"value\\\":\\\"French\\\",\\\"userQuote\\\":\\\"answer in French\\\"}\"}],"
            + "\"type\":\"AI\"}";
    private static final String RESULT = "{\"id\":\"c1\",\"toolName\":\"remember\","
            + "\"text\":\"Saved answer.language = \\\"French\\\".\",\"type\":\"TOOL_EXECUTION_RESULT\"}";

    private void givenFrenchWasSaidEverywhere() {
        append("s1", 0, "USER", user("Please answer in French from now on"), "Please answer in French from now on");
        append("s1", 1, "AI", CALL, "");
        append("s1", 2, "TOOL_EXECUTION_RESULT", RESULT, "Saved answer.language = \"French\".");
        append("s1", 3, "AI", ai("FRENCH."), "FRENCH.");
        append("s1", 4, "USER", user("I met a Frenchman"), "I met a Frenchman");
        append("s1", 5, "SYSTEM", "{\"text\":\"French app\",\"type\":\"SYSTEM\"}", "French app");
        append("s2", 0, "AI", ai("You asked for  french, right?"), "You asked for  french, right?");
        engine.write(ALICE, Proposal.set(ALICE.persistent(), "answer.language", "French").kind(Kind.PREFERENCE)
                .source(Source.USER, "message:s1#0").build());
    }

    @Test
    void should_redact_every_message_stating_the_value_when_its_key_is_forgotten() {
        givenFrenchWasSaidEverywhere();

        ForgetReceipt receipt = engine.forget(ALICE, ForgetTarget.key(ALICE.persistent(), MemoryKey.of("answer.language")),
                ForgetMode.SOFT);

        // then: the statement, the tool call, its result and the restatements (both sessions) are redacted
        assertThat(receipt.redacted()).isEqualTo(5);
        assertThat(receipt.messages()).isZero();
        List<StoredMessage> s1 = engine.messages().window(ALICE, "s1");
        assertThat(s1).extracting(StoredMessage::index).containsExactly(0L, 1L, 2L, 3L, 4L, 5L);
        assertThat(s1.get(0).text()).isEqualTo("[forgotten]");
        assertThat(s1.get(0).json()).isEqualTo(user("[forgotten]"));
        assertThat(s1.get(1).json()).isEqualTo("{\"toolExecutionRequests\":[{\"id\":\"c1\",\"name\":\"remember\",\"arguments\":"
                + "\"{\\\"key\\\":\\\"answer.language\\\",\\\"value\\\":\\\"[forgotten]\\\",\\\"userQuote\\\":\\\"[forgotten]\\\"}\"}],"
                + "\"type\":\"AI\"}");
        assertThat(s1.get(2).json()).contains("\"id\":\"c1\"", "\"toolName\":\"remember\"", "\"text\":\"[forgotten]\"");
        assertThat(s1.get(3).text()).isEqualTo("[forgotten]");
        // not on a word boundary, and the application's system message: left alone
        assertThat(s1.get(4).text()).isEqualTo("I met a Frenchman");
        assertThat(s1.get(5).text()).isEqualTo("French app");
        assertThat(engine.messages().window(ALICE, "s2").get(0).text()).isEqualTo("[forgotten]");
        assertThat(told).singleElement().satisfies(r -> {
            assertThat(r.redacted()).isEqualTo(Map.of("s1", List.of(0L, 1L, 2L, 3L), "s2", List.of(0L)));
            assertThat(r.states("a french reply")).isTrue();
        });
        assertThat(engine.admin().audit(ALICE, Duration.ofDays(1)).replayMatches()).isTrue();
        // soft: the log keeps an audit line without the value
        assertThat(engine.admin().readableLog(ALICE)).anyMatch(l -> l.contains("session s1 redacted 4 message(s)"));
    }

    @Test
    void should_scrub_the_original_bytes_when_a_key_is_hard_forgotten() {
        givenFrenchWasSaidEverywhere();

        ForgetReceipt receipt = engine.forget(ALICE, ForgetTarget.key(ALICE.persistent(), MemoryKey.of("answer.language")),
                ForgetMode.HARD);

        // the receipt shown in the README
        assertThat(receipt.keys()).containsExactly("shop/alice/persistent answer.language");
        assertThat(receipt.messages()).isZero();
        assertThat(receipt.redacted()).isEqualTo(5);
        // the record's write and the four appends that held the stating messages
        assertThat(receipt.eventsScrubbed()).isEqualTo(6);
        assertThat(store.read(new dev.agentmemory.core.spi.Partition("shop", "alice"), 0))
                .allSatisfy(e -> assertThat(e.payload().replace("Frenchman", "").replace("French app", ""))
                        .doesNotContainIgnoringCase("french"));
        assertThat(engine.admin().audit(ALICE, Duration.ofDays(1)).replayMatches()).isTrue();
        // a fresh engine over the same log serves the same redacted window
        MemoryEngine restarted = MemoryEngine.builder().store(store).build();
        assertThat(restarted.messages().window(ALICE, "s1")).isEqualTo(engine.messages().window(ALICE, "s1"));
    }

    @Test
    void should_scrub_the_originals_when_a_soft_forgotten_key_is_forgotten_again_hard() {
        givenFrenchWasSaidEverywhere();
        ForgetTarget language = ForgetTarget.key(ALICE.persistent(), MemoryKey.of("answer.language"));
        engine.forget(ALICE, language, ForgetMode.SOFT);
        assertThat(store.read(new dev.agentmemory.core.spi.Partition("shop", "alice"), 0))
                .anyMatch(e -> e.payload().contains("answer in French"));

        ForgetReceipt receipt = engine.forget(ALICE, language, ForgetMode.HARD);

        assertThat(receipt.redacted()).isZero();
        assertThat(store.read(new dev.agentmemory.core.spi.Partition("shop", "alice"), 0))
                .allSatisfy(e -> assertThat(e.payload().replace("Frenchman", "").replace("French app", ""))
                        .doesNotContainIgnoringCase("french"));
        assertThat(engine.admin().audit(ALICE, Duration.ofDays(1)).replayMatches()).isTrue();
    }

    @Test
    void should_redact_a_short_value_only_in_its_source_message() {
        append("s1", 0, "USER", user("call me Al"), "call me Al");
        append("s1", 1, "AI", ai("Hi Al"), "Hi Al");
        engine.write(ALICE, Proposal.set(ALICE.persistent(), "name", "Al").kind(Kind.PREFERENCE)
                .source(Source.USER, "message:s1#0").build());

        ForgetReceipt receipt = engine.forget(ALICE, ForgetTarget.key(ALICE.persistent(), MemoryKey.of("name")), ForgetMode.SOFT);

        assertThat(receipt.redacted()).isEqualTo(1);
        assertThat(engine.messages().window(ALICE, "s1")).extracting(StoredMessage::text).containsExactly("[forgotten]", "Hi Al");
    }

    @Test
    void should_match_on_word_boundaries_case_and_spacing_ignored() {
        StatedValues v = StatedValues.of(List.of(MemoryValue.of("New  York"), MemoryValue.of("no"), MemoryValue.of(true)));
        assertThat(v.statedIn("I live in NEW\nyork.")).isTrue();
        assertThat(v.statedIn("I live in New Yorkshire")).isFalse();
        assertThat(v.statedIn("no, true")).isFalse();
    }

    @Test
    void should_scrub_a_second_value_from_an_earlier_redaction_when_hard_forgotten() {
        String call = "{\"toolExecutionRequests\":[{\"id\":\"c1\",\"name\":\"remember\",\"arguments\":"
                + "\"{\\\"a\\\":\\\"Paris\\\",\\\"b\\\":\\\"French\\\"}\"}],\"type\":\"AI\"}";
        append("s1", 0, "AI", call, "");
        engine.write(ALICE, Proposal.set(ALICE.persistent(), "city", "Paris").kind(Kind.PREFERENCE).build());
        engine.write(ALICE, Proposal.set(ALICE.persistent(), "lang", "French").kind(Kind.PREFERENCE).build());
        engine.forget(ALICE, ForgetTarget.key(ALICE.persistent(), MemoryKey.of("lang")), ForgetMode.SOFT);

        engine.forget(ALICE, ForgetTarget.key(ALICE.persistent(), MemoryKey.of("city")), ForgetMode.HARD);

        assertThat(engine.messages().window(ALICE, "s1").get(0).json()).doesNotContain("Paris", "French").contains("c1", "remember");
        assertThat(store.read(new dev.agentmemory.core.spi.Partition("shop", "alice"), 0))
                .allSatisfy(e -> assertThat(e.payload()).doesNotContain("Paris"));
        assertThat(engine.admin().audit(ALICE, Duration.ofDays(1)).replayMatches()).isTrue();
    }
}

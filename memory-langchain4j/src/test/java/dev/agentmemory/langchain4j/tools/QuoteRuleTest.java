package dev.agentmemory.langchain4j.tools;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.core.MemoryRecord.Trust;
import dev.agentmemory.core.store.InMemoryEventStore;
import dev.agentmemory.langchain4j.SessionRef;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvFileSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The quote rule, case by case, through the memory tools: the user says the quote, the model
 * calls {@code remember} citing it, and the stored record is trusted only when the quote states
 * the key's meaning. The table (quote-rule/cases.csv) has the expected trust and, for the
 * untrusted cases, a part of the reason the model reads.
 */
class QuoteRuleTest {

    private static final SessionRef REF = SessionRef.of("t/u/s");
    private static final Caller CALLER = REF.caller("assistant");

    @ParameterizedTest(name = "{0} = {1} quoting \"{3}\" -> {4}")
    @CsvFileSource(resources = "/quote-rule/cases.csv", delimiter = '|', numLinesToSkip = 1, maxCharsPerColumn = 400)
    void should_trust_a_quoted_write_only_when_the_quote_states_the_keys_meaning(
            String key, String value, String kind, String quote, String expected, String reason) {
        // given: the user said the quote
        MemoryEngine engine = MemoryEngine.builder().store(new InMemoryEventStore()).build();
        Conversation.user(engine, REF, quote);
        MemoryTools tools = new MemoryTools(engine, "assistant");

        // when the model cites it
        String answer = tools.remember(REF, key, value, kind, quote);

        // then
        MemoryRecord r = engine.current(CALLER, CALLER.persistent(), MemoryKey.of(key)).orElseThrow(
                () -> new AssertionError("nothing stored: " + answer));
        if (expected.equals("trusted")) {
            assertThat(r.trust()).as(answer).isEqualTo(Trust.TRUSTED);
            assertThat(r.source()).isEqualTo(Source.USER);
            assertThat(answer).contains("stated by the user");
        } else {
            assertThat(r.trust()).as(answer).isEqualTo(Trust.UNTRUSTED);
            assertThat(r.source()).isEqualTo(Source.MODEL);
            assertThat(r.tags()).contains(MemoryTools.UNSUPPORTED_QUOTE_TAG);
            assertThat(answer).contains("not recorded as stated by the user because").contains(reason);
        }
    }
}

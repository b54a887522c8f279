package dev.agentmemory.langchain4j.tools;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ForgetMode;
import dev.agentmemory.core.ForgetReceipt;
import dev.agentmemory.core.ForgetTarget;
import dev.agentmemory.core.ScopeView.KeyState;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.Scope.Layer;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.MemoryValue;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.core.MemoryRecord.Trust;
import dev.agentmemory.core.MemoryRecord.Verification;
import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.core.store.InMemoryEventStore;
import dev.agentmemory.store.jdbc.JdbcStores;
import dev.agentmemory.langchain4j.SessionRef;
import dev.agentmemory.testing.TestClock;
import dev.agentmemory.testing.langchain4j.ScriptedChatModel;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.request.ChatRequest;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

class SummarizerTest {

    private static final SessionRef REF = SessionRef.of("t/u/s");
    private static final Caller CALLER = REF.caller("assistant");
    private final TestClock clock = new TestClock(Instant.parse("2024-10-15T10:00:00Z"));

    /** A summarizing model that repeats the excerpt it was given, so a test sees exactly what went in. */
    private static final Function<ChatRequest, AiMessage> ECHO =
            r -> AiMessage.from("Summary of " + ((UserMessage) r.messages().get(1)).singleText());

    private static MemoryEngine engine(String store, TestClock clock) {
        EventStore s = store.equals("h2") ? JdbcStores.h2InMemory("sum-" + UUID.randomUUID()) : new InMemoryEventStore();
        return MemoryEngine.builder().store(s).clock(clock).build();
    }

    private static void conversation(MemoryEngine engine) {
        Conversation.append(engine, REF, "USER", "Hi, I need help with order 20241015");
        Conversation.append(engine, REF, "AI", "Sure, what is wrong with it?");
        Conversation.append(engine, REF, "USER", "please answer in Chinese from now on");
        Conversation.append(engine, REF, "AI", "Of course.");
        Conversation.append(engine, REF, "USER", "I want the white one");
        Conversation.evict(engine, REF, List.of(0L, 1L, 2L, 3L));
    }

    /** Every text any layer would serve for the user. */
    private static List<String> servedTexts(MemoryEngine engine) {
        return java.util.Arrays.stream(Layer.values()).flatMap(l -> engine.servable(CALLER, l).stream())
                .map(KeyState::current).filter(java.util.Objects::nonNull).map(MemoryRecord::text).toList();
    }

    @Test
    void should_write_a_candidate_reference_covering_the_evicted_messages_when_the_window_overflowed() {
        // given
        MemoryEngine engine = engine("memory", clock);
        conversation(engine);
        ScriptedChatModel model = new ScriptedChatModel("sum-model", false, ECHO);
        Summarizer summarizer = Summarizer.builder(engine, model).build();

        // when
        MemoryRecord summary = summarizer.summarize(REF.toString()).orElseThrow();

        // then
        assertThat(summary.key()).isEqualTo(MemoryKey.of("summary.0-3"));
        assertThat(summary.scope()).isEqualTo(CALLER.session("s"));
        assertThat(summary.kind()).isEqualTo(Kind.REFERENCE);
        assertThat(summary.source()).isEqualTo(Source.MODEL);
        assertThat(summary.trust()).isEqualTo(Trust.UNTRUSTED);
        assertThat(summary.verification()).isEqualTo(Verification.CANDIDATE);
        assertThat(summary.sourceRef()).isEqualTo("messages:s#0-3");
        assertThat(summary.extraction().model()).isEqualTo("sum-model");
        assertThat(summary.extraction().promptVersion()).isEqualTo(Summarizer.PROMPT_VERSION);
        assertThat(Summarizer.coveredMessages(summary)).containsExactly(0L, 1L, 2L, 3L);
        assertThat(Summarizer.summaryText(summary)).isEqualTo("Summary of "
                + "[{\"index\":0,\"type\":\"USER\",\"text\":\"Hi, I need help with order 20241015\"},"
                + "{\"index\":1,\"type\":\"AI\",\"text\":\"Sure, what is wrong with it?\"},"
                + "{\"index\":2,\"type\":\"USER\",\"text\":\"please answer in Chinese from now on\"},"
                + "{\"index\":3,\"type\":\"AI\",\"text\":\"Of course.\"}]");
        assertThat(engine.messages().history(CALLER, "s").get(2L).text()).isEqualTo("please answer in Chinese from now on");
        assertThat(summarizer.summaries(REF)).containsExactly(summary);
        // nothing new to summarize: no second model call
        assertThat(summarizer.summarize(REF)).isEmpty();
        assertThat(model.requests()).hasSize(1);
    }

    @Test
    void should_not_call_the_model_when_fewer_messages_than_the_minimum_left_the_window() {
        MemoryEngine engine = engine("memory", clock);
        conversation(engine);
        ScriptedChatModel model = new ScriptedChatModel("m", false);
        assertThat(Summarizer.builder(engine, model).minMessages(5).build().summarize(REF)).isEmpty();
        assertThat(model.requests()).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"memory", "h2"})
    void should_drop_the_summary_and_rebuild_without_the_message_when_a_covered_message_is_forgotten(String store) {
        // given
        MemoryEngine engine = engine(store, clock);
        conversation(engine);
        ScriptedChatModel model = new ScriptedChatModel("m", false, ECHO, ECHO);
        Summarizer summarizer = Summarizer.builder(engine, model).minMessages(2).build();
        MemoryRecord first = summarizer.summarize(REF).orElseThrow();

        // when
        ForgetReceipt receipt = engine.forget(CALLER, ForgetTarget.messages("s", List.of(2L)), ForgetMode.HARD);
        MemoryRecord rebuilt = summarizer.summarize(REF).orElseThrow();

        // then
        assertThat(receipt.derived()).containsEntry("summaries", 1);
        assertThat(engine.history(CALLER, CALLER.session("s"), first.key()).get(0).value()).isNull();
        assertThat(Summarizer.coveredMessages(rebuilt)).containsExactly(0L, 1L, 3L);
        assertThat(rebuilt.key()).isEqualTo(MemoryKey.of("summary.0-3"));
        assertThat(summarizer.summaries(REF)).containsExactly(rebuilt);
        assertThat(String.join("\n", servedTexts(engine))).doesNotContain("Chinese");
        assertThat(engine.admin().log(CALLER).toString()).doesNotContain("Chinese");
    }

    @ParameterizedTest
    @ValueSource(strings = {"memory", "h2"})
    void should_drop_the_summary_and_never_resummarize_the_source_when_a_fact_it_was_built_from_is_forgotten(String store) {
        // given
        MemoryEngine engine = engine(store, clock);
        conversation(engine);
        engine.write(CALLER, Proposal.set(CALLER.persistent(), MemoryKey.of("answer.language"), MemoryValue.of("Chinese"))
                .kind(Kind.PREFERENCE).source(Source.USER, "message:s#2").build());
        ScriptedChatModel model = new ScriptedChatModel("m", false, ECHO, ECHO);
        Summarizer summarizer = Summarizer.builder(engine, model).minMessages(2).build();
        MemoryRecord first = summarizer.summarize(REF).orElseThrow();
        assertThat(Summarizer.summaryText(first)).contains("Chinese");

        // when
        ForgetReceipt receipt = engine.forget(CALLER, ForgetTarget.key(CALLER.persistent(), MemoryKey.of("answer.language")),
                ForgetMode.SOFT);
        MemoryRecord rebuilt = summarizer.summarize(REF).orElseThrow();

        // then
        assertThat(receipt.derived()).containsEntry("summaries", 1);
        assertThat(engine.current(CALLER, CALLER.session("s"), MemoryKey.of(Summarizer.EXCLUDED_KEY)).orElseThrow()
                .value().json()).isEqualTo("[2]");
        assertThat(Summarizer.coveredMessages(rebuilt)).containsExactly(0L, 1L, 3L);
        assertThat(Summarizer.summaryText(rebuilt)).doesNotContain("Chinese");
        assertThat(String.join("\n", servedTexts(engine))).doesNotContain("Chinese");
        // the message that stated it keeps its place in the history, redacted (issue 11: forget reaches the window)
        assertThat(engine.messages().history(CALLER, "s").get(2L).text()).isEqualTo("[forgotten]");
        assertThat(engine.admin().audit(CALLER, java.time.Duration.ofDays(1)).consistent()).isTrue();
    }

    @Test
    void should_drop_the_summary_when_a_fact_whose_text_it_mentions_is_forgotten() {
        // given: a fact with no message reference, whose value occurs in a covered message
        MemoryEngine engine = engine("memory", clock);
        conversation(engine);
        engine.write(CALLER, Proposal.set(CALLER.session("s"), "order.current", "20241015").build());
        ScriptedChatModel model = new ScriptedChatModel("m", false, ECHO, ECHO);
        Summarizer summarizer = Summarizer.builder(engine, model).minMessages(2).build();
        summarizer.summarize(REF).orElseThrow();

        // when
        engine.forget(CALLER, ForgetTarget.key(CALLER.session("s"), MemoryKey.of("order.current")), ForgetMode.SOFT);

        // then
        assertThat(summarizer.summaries(REF)).isEmpty();
        MemoryRecord rebuilt = summarizer.summarize(REF).orElseThrow();
        assertThat(Summarizer.coveredMessages(rebuilt)).containsExactly(1L, 2L, 3L);
        assertThat(String.join("\n", servedTexts(engine))).doesNotContain("20241015");
    }

    @Test
    void should_keep_the_summary_when_an_unrelated_key_is_forgotten() {
        MemoryEngine engine = engine("memory", clock);
        conversation(engine);
        engine.write(CALLER, Proposal.set(CALLER.session("s"), "exchange.size", "XL").build());
        Summarizer summarizer = Summarizer.builder(engine, new ScriptedChatModel("m", false, ECHO)).build();
        MemoryRecord summary = summarizer.summarize(REF).orElseThrow();

        ForgetReceipt receipt = engine.forget(CALLER, ForgetTarget.key(CALLER.session("s"), MemoryKey.of("exchange.size")),
                ForgetMode.SOFT);

        assertThat(receipt.derived()).containsEntry("summaries", 0);
        assertThat(summarizer.summaries(REF)).containsExactly(summary);
        assertThat(engine.current(CALLER, CALLER.session("s"), MemoryKey.of(Summarizer.EXCLUDED_KEY))).isEmpty();
    }
}

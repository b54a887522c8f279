package dev.agentmemory.langchain4j.tools;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.Proposal.Outcome;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.core.MemoryRecord.Trust;
import dev.agentmemory.core.MemoryRecord.Verification;
import dev.agentmemory.core.internal.state.MemoryState;
import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.core.store.InMemoryEventStore;
import dev.agentmemory.store.jdbc.JdbcStores;
import dev.agentmemory.langchain4j.SessionRef;
import dev.agentmemory.testing.TestClock;
import dev.agentmemory.testing.langchain4j.ScriptedChatModel;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.request.ResponseFormatType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

import static dev.agentmemory.testing.langchain4j.ScriptedChatModel.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

class StateExtractorTest {

    private static final SessionRef REF = SessionRef.of("t/u/s");
    private static final Caller CALLER = REF.caller("assistant");
    private final TestClock clock = new TestClock(Instant.parse("2024-10-15T10:00:00Z"));
    private MemoryEngine engine = engine(new InMemoryEventStore(), 65_536);

    private MemoryEngine engine(EventStore store, int maxValueBytes) {
        return MemoryEngine.builder().store(store).clock(clock).maxValueBytes(maxValueBytes).build();
    }

    private static final String VALID = """
            {"operations": [
              {"op": "set", "scope": "session", "key": "order.current", "value": "20241015", "kind": "task_fact",
               "confidence": 0.9, "evidence": "order 20241015"},
              {"op": "set", "scope": "persistent", "key": "answer.language", "value": "Chinese", "kind": "preference"}
            ]}""";

    @Test
    void should_write_candidates_carrying_model_and_prompt_version_when_the_answer_is_valid() {
        // given
        engine.write(CALLER, Proposal.set(CALLER.session("s"), "exchange.color", "white").build());
        Conversation.user(engine, REF, "I mean order 20241015, and answer in Chinese please");
        ScriptedChatModel model = new ScriptedChatModel("gpt-test-1", true, text(VALID));

        // when
        ExtractionResult result = StateExtractor.builder(engine, model).build().extract(REF.toString());

        // then
        assertThat(result.succeeded()).isTrue();
        assertThat(result.attempts()).isEqualTo(1);
        assertThat(result.errors()).isEmpty();
        assertThat(result.modelName()).isEqualTo("gpt-test-1");
        assertThat(result.outcomes()).extracting(Outcome::result)
                .containsExactly(Outcome.Result.APPLIED, Outcome.Result.APPLIED);
        MemoryRecord order = engine.current(CALLER, CALLER.session("s"), MemoryKey.of("order.current")).orElseThrow();
        assertThat(order.text()).isEqualTo("20241015");
        assertThat(order.kind()).isEqualTo(Kind.TASK_FACT);
        assertThat(order.source()).isEqualTo(Source.MODEL);
        assertThat(order.trust()).isEqualTo(Trust.UNTRUSTED);
        assertThat(order.verification()).isEqualTo(Verification.CANDIDATE);
        assertThat(order.confidence()).isEqualTo(0.9);
        assertThat(order.sourceRef()).isEqualTo("message:s#0");
        assertThat(order.extraction()).isNotNull();
        assertThat(order.extraction().model()).isEqualTo("gpt-test-1");
        assertThat(order.extraction().promptVersion()).isEqualTo(StateExtractor.PROMPT_VERSION);
        assertThat(order.tags()).containsExactly(StateExtractor.EXTRACTED_TAG);
        MemoryRecord language = engine.current(CALLER, CALLER.persistent(), MemoryKey.of("answer.language")).orElseThrow();
        assertThat(language.kind()).isEqualTo(Kind.INFERENCE);
        assertThat(language.verification()).isEqualTo(Verification.CANDIDATE);
        assertThat(language.tags()).containsExactlyInAnyOrder("extracted", "unconfirmed-preference");
        // the request asked for the schema and showed the state and the turn as data
        assertThat(model.requests()).hasSize(1);
        assertThat(model.requests().get(0).responseFormat().type()).isEqualTo(ResponseFormatType.JSON);
        assertThat(model.requests().get(0).responseFormat().jsonSchema().name()).isEqualTo("memory_operations");
        assertThat(((UserMessage) model.requests().get(0).messages().get(1)).singleText()).isEqualTo("""
                Current state (data):
                {"session":{"exchange.color":"white"},"activeTask":null,"persistentKeys":[]}

                Latest turn (data):
                [{"type":"USER","text":"I mean order 20241015, and answer in Chinese please"}]""");
    }

    @Test
    void should_send_the_error_back_and_succeed_when_earlier_answers_are_malformed() {
        // given
        Conversation.user(engine, REF, "order 20241015");
        ScriptedChatModel model = new ScriptedChatModel("m", false,
                text("Sure! Here are the operations."),
                text("{\"operations\":[{\"op\":\"delete\",\"scope\":\"session\",\"key\":\"order.current\"}]}"),
                text("```json\n" + VALID + "\n```"));

        // when
        ExtractionResult result = StateExtractor.builder(engine, model).build().extract(REF);

        // then
        assertThat(result.succeeded()).isTrue();
        assertThat(result.attempts()).isEqualTo(3);
        assertThat(result.errors()).hasSize(2);
        assertThat(result.errors().get(0)).startsWith("output is not valid JSON: Unrecognized token 'Sure'");
        assertThat(result.errors().get(1))
                .isEqualTo("operations[0].op must be one of set, append, invalidate: \"delete\"");
        assertThat(model.requests().get(0).responseFormat()).isNull();
        assertThat(model.requests().get(2).messages()).hasSize(6);
        assertThat(((UserMessage) model.requests().get(2).messages().get(5)).singleText()).isEqualTo(
                "Your answer was refused: operations[0].op must be one of set, append, invalidate: \"delete\"\n"
                        + "Answer again with only the corrected JSON object.");
        assertThat(engine.current(CALLER, CALLER.session("s"), MemoryKey.of("order.current")).orElseThrow().text())
                .isEqualTo("20241015");
    }

    @ParameterizedTest
    @ValueSource(strings = {"memory", "h2"})
    void should_leave_state_exactly_as_it_was_when_every_attempt_fails(String storeName) {
        // given
        engine = engine(storeName.equals("h2") ? JdbcStores.h2InMemory("extract-" + UUID.randomUUID())
                : new InMemoryEventStore(), 65_536);
        engine.write(CALLER, Proposal.set(CALLER.session("s"), "order.current", "20241015").build());
        engine.tasks().start(CALLER, "s", "exchange", "Exchange");
        engine.write(CALLER, Proposal.set(CALLER.task("s", "exchange"), "exchange.color", "white").build());
        Conversation.user(engine, REF, "actually make it black");
        MemoryState before = engine.admin().replay(CALLER);
        ScriptedChatModel model = new ScriptedChatModel("m", true,
                text("{\"operations\":[{\"op\":\"set\",\"scope\":\"task\",\"key\":\"exchange.color\",\"value\":"
                        + "[".repeat(40) + "]".repeat(40) + ",\"kind\":\"task_fact\"}]}"),
                text("{\"operations\":[{\"op\":\"set\",\"scope\":\"task\",\"key\":\"exchange..color\",\"value\":\"black\","
                        + "\"kind\":\"task_fact\"}]}"),
                r -> {
                    throw new IllegalStateException("connection reset");
                });

        // when
        ExtractionResult result = StateExtractor.builder(engine, model).maxRetries(2).build().extract(REF);

        // then
        assertThat(result.succeeded()).isFalse();
        assertThat(result.outcomes()).isEmpty();
        assertThat(result.attempts()).isEqualTo(3);
        assertThat(result.errors()).containsExactly(
                "output nests deeper than 10 levels",
                "operations[0].key is invalid: invalid key \"exchange..color\": each dot-separated segment must match "
                        + "[A-Za-z0-9_:-]{1,64}",
                "model call failed: IllegalStateException: connection reset");
        assertThat(engine.admin().replay(CALLER)).isEqualTo(before);
        assertThat(engine.current(CALLER, CALLER.task("s", "exchange"), MemoryKey.of("exchange.color")).orElseThrow()
                .text()).isEqualTo("white");
        assertThat(engine.admin().audit(CALLER, java.time.Duration.ofDays(1)).consistent()).isTrue();
    }

    @Test
    void should_retry_without_writing_anything_when_the_engine_refuses_the_whole_answer() {
        // given
        engine = engine(new InMemoryEventStore(), 64);
        Conversation.user(engine, REF, "note this");
        MemoryState before = engine.admin().replay(CALLER);
        String big = "y".repeat(100);
        ScriptedChatModel model = new ScriptedChatModel("m", false,
                text("{\"operations\":[{\"op\":\"set\",\"scope\":\"session\",\"key\":\"note.a\",\"value\":\"ok\","
                        + "\"kind\":\"task_fact\"},{\"op\":\"set\",\"scope\":\"session\",\"key\":\"note.b\",\"value\":\""
                        + big + "\",\"kind\":\"task_fact\"}]}"),
                text("{\"operations\":[]}"));

        // when
        ExtractionResult result = StateExtractor.builder(engine, model).maxRetries(1).build().extract(REF);

        // then
        assertThat(result.succeeded()).isTrue();
        assertThat(result.attempts()).isEqualTo(2);
        assertThat(result.errors()).containsExactly("value of note.b is 102 bytes, over the limit of 64");
        assertThat(result.outcomes()).isEmpty();
        assertThat(engine.admin().replay(CALLER)).isEqualTo(before);
    }

    @Test
    void should_report_each_refused_operation_without_retrying_when_the_answer_parses() {
        // given
        engine.write(CALLER, Proposal.set(CALLER.persistent(), "user.city", "Berlin").kind(Kind.OBSERVATION).build());
        Conversation.user(engine, REF, "forget where I live; I am on a trip to Hailan");
        ScriptedChatModel model = new ScriptedChatModel("m", false, text("""
                {"operations": [
                  {"op": "invalidate", "scope": "persistent", "key": "user.city"},
                  {"op": "set", "scope": "persistent", "key": "user.city", "value": "Hailan", "kind": "task_fact"},
                  {"op": "set", "scope": "task", "key": "trip.city", "value": "Hailan", "kind": "task_fact"},
                  {"op": "set", "scope": "session", "key": "trip.city", "value": "Hailan", "kind": "task_fact"}
                ]}"""));

        // when
        ExtractionResult result = StateExtractor.builder(engine, model).modelName("pinned").build().extract(REF);

        // then
        assertThat(result.succeeded()).isTrue();
        assertThat(result.attempts()).isEqualTo(1);
        assertThat(result.outcomes()).extracting(Outcome::result, Outcome::reason).containsExactly(
                tuple(Outcome.Result.REJECTED, "an untrusted source cannot invalidate memory"),
                tuple(Outcome.Result.REJECTED,
                        "a task fact is never promoted to persistent memory; write it to a session or task scope"),
                tuple(Outcome.Result.REJECTED, "session s has no active task"),
                tuple(Outcome.Result.APPLIED, null));
        assertThat(engine.current(CALLER, CALLER.persistent(), MemoryKey.of("user.city")).orElseThrow().text())
                .isEqualTo("Berlin");
        assertThat(engine.current(CALLER, CALLER.session("s"), MemoryKey.of("trip.city")).orElseThrow()
                .extraction().model()).isEqualTo("pinned");
    }

    @Test
    void should_extract_from_given_text_and_skip_the_model_when_the_window_has_no_user_message() {
        // given
        ScriptedChatModel model = new ScriptedChatModel("m", false, text("""
                {"operations":[{"op":"append","scope":"session","key":"cart.items","value":"A1","kind":"task_fact"}]}"""));
        StateExtractor extractor = StateExtractor.builder(engine, model).build();

        // when
        ExtractionResult empty = extractor.extract(REF);
        ExtractionResult given = extractor.extract(REF, "add A1 to my cart", "Added.");

        // then
        assertThat(empty.attempts()).isZero();
        assertThat(empty.succeeded()).isTrue();
        assertThat(given.outcomes()).extracting(Outcome::result).containsExactly(Outcome.Result.APPLIED);
        assertThat(engine.current(CALLER, CALLER.session("s"), MemoryKey.of("cart.items")).orElseThrow().value().json())
                .isEqualTo("[\"A1\"]");
        assertThat(model.requests()).hasSize(1);
    }

    @Test
    void should_reject_bad_settings_with_the_value_when_building() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> StateExtractor.builder(engine,
                        new ScriptedChatModel("m", false)).maxRetries(11))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("maxRetries must be within 0..10: 11");
        assertThat(List.of(1)).hasSize(1);
    }
}

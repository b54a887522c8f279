package dev.agentmemory.langchain4j.tools;

import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class OperationParserTest {

    @Test
    void should_parse_every_field_when_output_is_well_formed() {
        // given
        String output = """
                {"operations": [
                  {"op": "set", "scope": "session", "key": "order.current", "value": "20241015",
                   "kind": "task_fact", "confidence": 0.9, "evidence": "my order 20241015"},
                  {"op": "append", "scope": "task", "key": "exchange.items", "value": {"sku": "A1", "n": 2},
                   "kind": "decision"},
                  {"op": "invalidate", "scope": "persistent", "key": "answer.language", "reason": "user changed it"}
                ]}""";

        // when
        List<ExtractedOperation> ops = OperationParser.parse(output);

        // then
        assertThat(ops).containsExactly(
                new ExtractedOperation(ExtractedOperation.Op.SET, ExtractedOperation.Target.SESSION,
                        MemoryKey.of("order.current"), MemoryValue.of("20241015"), Kind.TASK_FACT, 0.9,
                        "my order 20241015", null),
                new ExtractedOperation(ExtractedOperation.Op.APPEND, ExtractedOperation.Target.TASK,
                        MemoryKey.of("exchange.items"), MemoryValue.parse("{\"n\":2,\"sku\":\"A1\"}"), Kind.DECISION, 1.0,
                        null, null),
                new ExtractedOperation(ExtractedOperation.Op.INVALIDATE, ExtractedOperation.Target.PERSISTENT,
                        MemoryKey.of("answer.language"), null, Kind.INFERENCE, 1.0, null, "user changed it"));
    }

    @Test
    void should_accept_one_code_fence_and_an_empty_list_when_the_model_adds_markdown() {
        assertThat(OperationParser.parse("```json\n{\"operations\": []}\n```")).isEmpty();
        assertThat(OperationParser.parse("  {\"operations\": []}  \n")).isEmpty();
    }

    static Stream<Arguments> malformed() {
        String deep = "{\"operations\":[{\"op\":\"set\",\"scope\":\"session\",\"key\":\"a\",\"kind\":\"inference\",\"value\":"
                + "[".repeat(20) + "]".repeat(20) + "}]}";
        return Stream.of(
                Arguments.of("", "output is empty: a JSON object with an \"operations\" array expected"),
                Arguments.of("```json {\"operations\":[]}```", "output has a malformed code fence: expected ``` and a "
                        + "line break, the JSON object, then a closing ```"),
                Arguments.of("[1]", "output must be a JSON object with an \"operations\" array, got an array"),
                Arguments.of("\"x\"", "output must be a JSON object with an \"operations\" array, got a string"),
                Arguments.of("{}", "missing \"operations\" array"),
                Arguments.of("{\"operations\":{}}", "\"operations\" must be an array, got an object"),
                Arguments.of("{\"operations\":[],\"note\":1}",
                        "unknown field \"note\" at the top level (only \"operations\" is allowed)"),
                Arguments.of("{\"operations\":[] } trailing", null),
                Arguments.of("{\"operations\":[7]}", "operations[0] must be an object, got a number"),
                Arguments.of("{\"operations\":[{\"op\":\"set\",\"x\":1}]}", "operations[0] has unknown field \"x\" "
                        + "(allowed: op, scope, key, value, kind, confidence, evidence, reason)"),
                Arguments.of("{\"operations\":[{\"scope\":\"session\"}]}", "operations[0] is missing \"op\""),
                Arguments.of("{\"operations\":[{\"op\":3}]}", "operations[0].op must be a string, got a number"),
                Arguments.of("{\"operations\":[{\"op\":\"delete\"}]}",
                        "operations[0].op must be one of set, append, invalidate: \"delete\""),
                Arguments.of("{\"operations\":[{\"op\":\"set\",\"scope\":\"global\"}]}",
                        "operations[0].scope must be one of persistent, session, task: \"global\""),
                Arguments.of("{\"operations\":[{\"op\":\"set\",\"scope\":\"task\",\"key\":\"bad key\"}]}",
                        "operations[0].key is invalid: invalid key \"bad key\": each dot-separated segment must match "
                                + "[A-Za-z0-9_:-]{1,64}"),
                Arguments.of("{\"operations\":[{\"op\":\"set\",\"scope\":\"task\",\"key\":\"a\",\"kind\":\"fact\"}]}",
                        "operations[0].value is required for set"),
                Arguments.of("{\"operations\":[{\"op\":\"set\",\"scope\":\"task\",\"key\":\"a\",\"value\":null}]}",
                        "operations[0].value must not be null (use op \"invalidate\" to end a value)"),
                Arguments.of("{\"operations\":[{\"op\":\"invalidate\",\"scope\":\"task\",\"key\":\"a\",\"value\":1}]}",
                        "operations[0].value must be absent for invalidate"),
                Arguments.of("{\"operations\":[{\"op\":\"set\",\"scope\":\"task\",\"key\":\"a\",\"value\":1,\"kind\":\"rule\"}]}",
                        "operations[0].kind must be one of preference, task_fact, observation, inference, decision, "
                                + "reference: \"rule\""),
                Arguments.of("{\"operations\":[{\"op\":\"set\",\"scope\":\"task\",\"key\":\"a\",\"value\":1}]}",
                        "operations[0] is missing \"kind\""),
                Arguments.of("{\"operations\":[{\"op\":\"set\",\"scope\":\"task\",\"key\":\"a\",\"value\":1,"
                        + "\"kind\":\"inference\",\"confidence\":\"high\"}]}",
                        "operations[0].confidence must be a number, got a string"),
                Arguments.of("{\"operations\":[{\"op\":\"set\",\"scope\":\"task\",\"key\":\"a\",\"value\":1,"
                        + "\"kind\":\"inference\",\"confidence\":1.5}]}",
                        "operations[0].confidence must be within 0..1: 1.5"),
                Arguments.of("{\"operations\":[{\"op\":\"set\",\"scope\":\"task\",\"key\":\"a\",\"value\":1,"
                        + "\"kind\":\"inference\",\"evidence\":" + "\"" + "x".repeat(513) + "\"}]}",
                        "operations[0].evidence is longer than 512 characters: 513"),
                Arguments.of("{\"operations\":[{\"op\":\"set\",\"scope\":\"task\",\"key\":\"a\",\"value\":\"\\ud800\","
                        + "\"kind\":\"inference\"}]}",
                        "operations[0].value is invalid: value holds a lone surrogate at index 0"),
                Arguments.of("{\"operations\":[" + "{\"op\":\"invalidate\",\"scope\":\"task\",\"key\":\"a\"},".repeat(32)
                        + "{\"op\":\"invalidate\",\"scope\":\"task\",\"key\":\"a\"}]}", "too many operations: 33 (at most 32)"),
                Arguments.of(deep, "output nests deeper than 10 levels"),
                Arguments.of("x".repeat(OperationParser.MAX_CHARS + 1), "output is longer than 65536 characters: 65537"));
    }

    @ParameterizedTest
    @MethodSource("malformed")
    void should_fail_with_an_exact_message_when_output_is_malformed(String output, String message) {
        var thrown = assertThatThrownBy(() -> OperationParser.parse(output)).isInstanceOf(OperationParseException.class);
        if (message != null) {
            thrown.hasMessage(message);
        } else {
            thrown.hasMessageStartingWith("output is not valid JSON: ");
        }
    }

    @Test
    void should_name_the_parser_fault_when_output_is_not_json() {
        assertThatThrownBy(() -> OperationParser.parse("{\"operations\": [}"))
                .hasMessageStartingWith("output is not valid JSON: Unexpected close marker '}'");
        assertThatThrownBy(() -> OperationParser.parse("{\"operations\":[],\"operations\":[]}"))
                .hasMessage("output is not valid JSON: Duplicate field 'operations'");
    }
}

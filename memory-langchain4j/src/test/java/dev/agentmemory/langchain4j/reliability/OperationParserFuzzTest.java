package dev.agentmemory.langchain4j.reliability;

import dev.agentmemory.langchain4j.tools.ExtractedOperation;
import dev.agentmemory.langchain4j.tools.OperationParseException;
import dev.agentmemory.langchain4j.tools.OperationParser;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 6, test 3 (plugin side): the model's JSON operations, mutated at random (bytes deleted,
 * duplicated, replaced by hostile characters, unknown operation types and kinds, deep nesting,
 * huge strings, lone surrogates). Every output parses or fails with an
 * {@link OperationParseException} naming the fault; nothing else escapes.
 */
class OperationParserFuzzTest {

    private static final String VALID = "{\"operations\": ["
            + "{\"op\": \"set\", \"scope\": \"session\", \"key\": \"order.current\", \"value\": \"20241015\","
            + " \"kind\": \"task_fact\", \"confidence\": 0.9, \"evidence\": \"my order 20241015\"},"
            + "{\"op\": \"invalidate\", \"scope\": \"task\", \"key\": \"exchange.color\", \"reason\": \"changed\"}]}";

    private static final String[] INSERTS = {"\"", "{", "}", "[", "]", ",", ":", "\\", "\u0000", "\uD800", "\uDC00",
            "null", "\"drop\"", "\"PREFERENCE\"", "\"rule\"", "1e999", "-1", "NaN", "'; DROP TABLE x; --", "../",
            "\n", "```", "[[[[[[[[[[[[", "\"op\":\"delete\"", "\"kind\":\"system\"", "\"scope\":\"global\""};

    @Test
    void should_parse_or_fail_with_a_named_parse_error_when_model_output_is_mutated() {
        // given
        Random random = new Random(42);
        List<String> outputs = new ArrayList<>(List.of("", " ", "null", "[]", "{}", "{\"operations\":null}",
                "{\"operations\":{}}", "{\"operations\":[null]}", "{\"operations\":[1]}", "```json\n" + VALID + "\n```",
                VALID + VALID, "[".repeat(100_000), "{\"operations\":[" + "{\"op\":\"set\"},".repeat(40) + "{}]}",
                VALID.replace("20241015\",", "\"" + "x".repeat(70_000) + "\","),
                VALID.replace("task_fact", "TASK_FACT"), VALID.replace("\"set\"", "\"upsert\""),
                VALID.replace("order.current", "order..current"), VALID.replace("order.current", "../../etc/passwd"),
                VALID.replace("0.9", "1.5"), VALID.replace("0.9", "\"high\""), VALID.replace("20241015\"", "\\uD800\"")));
        for (int i = 0; i < 3000; i++) {
            StringBuilder b = new StringBuilder(VALID);
            for (int m = 0; m <= random.nextInt(3); m++) {
                int at = random.nextInt(b.length());
                switch (random.nextInt(3)) {
                    case 0 -> b.deleteCharAt(at);
                    case 1 -> b.insert(at, INSERTS[random.nextInt(INSERTS.length)]);
                    default -> b.setCharAt(at, (char) random.nextInt(0x3000));
                }
            }
            outputs.add(b.toString());
        }

        // when
        int parsed = 0;
        int refused = 0;
        List<String> escaped = new ArrayList<>();
        for (String out : outputs) {
            try {
                List<ExtractedOperation> ops = OperationParser.parse(out);
                assertThat(ops).isNotNull().doesNotContainNull();
                parsed++;
            } catch (OperationParseException e) {
                assertThat(e.getMessage()).as("message for %s", out.length() > 80 ? out.substring(0, 80) : out).isNotBlank();
                refused++;
            } catch (RuntimeException e) {
                escaped.add(e + " for " + (out.length() > 120 ? out.substring(0, 120) : out));
            }
        }

        // then
        System.out.printf("BAD INPUT (OperationParser): cases=%d, parsed=%d, refused with OperationParseException=%d, "
                + "other exceptions=%d%n", outputs.size(), parsed, refused, escaped.size());
        escaped.forEach(e -> System.out.println("  ESCAPED " + e));
        assertThat(escaped).isEmpty();
        assertThat(refused).isGreaterThan(1000);
    }
}

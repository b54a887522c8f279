package dev.agentmemory.core;

import com.fasterxml.jackson.databind.ObjectMapper;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A value's JSON is canonical whichever way it was checked: scalars that are canonical already
 * (what the log and snapshots hold) skip the parse and must come out exactly as the parse gives
 * them. The parse is forced by a leading space (which the check of canonical scalars refuses), so
 * each case compares the two ways on the same text: the same JSON, or the same refusal.
 */
class MemoryValueCanonicalTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Provide
    Arbitrary<String> texts() {
        return Arbitraries.oneOf(Arbitraries.strings().all().ofMaxLength(40),
                Arbitraries.strings().withChars("ab\"\\\u0000\u001f\u007f\u2028é中🎧").ofMaxLength(12),
                Arbitraries.strings().withCharRange('\ud800', '\udfff').withChars("ab").ofMaxLength(4));
    }

    @Property(tries = 2_000)
    void should_hold_a_string_as_its_parse_does(@ForAll("texts") String text) throws Exception {
        // as Jackson writes it, and with every character left as it is
        for (String json : List.of(JSON.writeValueAsString(text), "\"" + text + "\"")) {
            assertSameAsParsed(json);
        }
    }

    @Property(tries = 1_000)
    void should_hold_a_number_or_flag_as_its_parse_does(@ForAll long n, @ForAll("numberTexts") String text) {
        for (String json : List.of(Long.toString(n), text, "true", "false", "0", "-0", "null")) {
            assertSameAsParsed(json);
        }
    }

    @Provide
    Arbitrary<String> numberTexts() {
        return Arbitraries.strings().withChars("-0123456789.eE+").ofMinLength(1).ofMaxLength(22);
    }

    @Test
    void should_keep_canonical_scalars_and_sort_objects() {
        assertThat(new MemoryValue("\"héllo 🎧\"").json()).isEqualTo("\"héllo 🎧\"");
        assertThat(new MemoryValue("-0").json()).isEqualTo("0");
        assertThat(new MemoryValue("123456789012345678901234").json()).isEqualTo("123456789012345678901234");
        assertThat(new MemoryValue("\"\\u00e9\"").json()).isEqualTo("\"é\"");
        assertThat(new MemoryValue("{\"b\":1,\"a\":\"\\u00e9\"}").json()).isEqualTo("{\"a\":\"é\",\"b\":1}");
    }

    private static void assertSameAsParsed(String json) {
        String parsed;
        try {
            parsed = new MemoryValue(" " + json).json();
        } catch (IllegalArgumentException refused) {
            try {
                new MemoryValue(json);
            } catch (IllegalArgumentException alsoRefused) {
                assertThat(alsoRefused).hasMessage(refused.getMessage());
                return;
            }
            throw new AssertionError("accepted " + json + " which the parse refuses: " + refused.getMessage());
        }
        assertThat(new MemoryValue(json).json()).as(json).isEqualTo(parsed);
    }
}

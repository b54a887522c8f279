package dev.agentmemory.core.spi;

import dev.agentmemory.core.MemoryValue;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class StatedValuesTest {

    private static boolean states(String value, String text) {
        return StatedValues.of(List.of(MemoryValue.of(value))).statedIn(text);
    }

    @Test
    void should_match_a_value_on_word_boundaries_ignoring_case_and_width() {
        assertThat(states("French", "Please answer in FRENCH.")).isTrue();
        assertThat(states("French", "ask the Frenchman")).isFalse();
        assertThat(states("French", "ｆｒｅｎｃｈ please")).isTrue();
    }

    @Test
    void should_match_a_chinese_value_inside_chinese_text_which_has_no_spaces() {
        assertThat(states("海岚", "这次 11 月去海岚出差")).isTrue();
        assertThat(states("中文", "以后请用中文回答")).isTrue();
        assertThat(states("海岚", "这次去临川")).isFalse();
    }

    @Test
    void should_not_match_values_too_short_to_mean_anything() {
        assertThat(states("no", "no problem")).isFalse();
        assertThat(states("海", "去海边")).isFalse();
    }
}

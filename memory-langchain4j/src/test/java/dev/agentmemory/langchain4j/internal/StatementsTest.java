package dev.agentmemory.langchain4j.internal;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class StatementsTest {

    @Test
    void should_state_a_value_only_as_whole_consecutive_words_ignoring_case() {
        assertThat(Statements.states("Please answer in French from now on", "French")).isTrue();
        assertThat(Statements.states("PLEASE ANSWER IN FRENCH.", "french")).isTrue();
        assertThat(Statements.states("I met a Frenchman", "French")).isFalse();
        assertThat(Statements.states("the white one, size 42", "white one")).isTrue();
        assertThat(Statements.states("one white", "white one")).isFalse();
    }

    @Test
    void should_not_match_values_shorter_than_three_letters_or_digits() {
        assertThat(Statements.states("no, I said no", "no")).isFalse();
        assertThat(Statements.states("size 42 please", "42")).isFalse();
        assertThat(Statements.states("size 420 please", "420")).isTrue();
    }

    @Test
    void should_treat_each_han_character_as_a_word_and_normalise_width() {
        assertThat(Statements.states("请用中文回答", "中文")).isTrue();
        assertThat(Statements.states("ＷＨＩＴＥ please", "white")).isTrue();
    }
}

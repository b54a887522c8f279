package dev.agentmemory.langchain4j.oracle;

import static dev.agentmemory.langchain4j.oracle.Step.Kind.ASK;
import static dev.agentmemory.langchain4j.oracle.Step.Kind.ECHO_FRAME;
import static dev.agentmemory.langchain4j.oracle.Step.Kind.END_TASK;
import static dev.agentmemory.langchain4j.oracle.Step.Kind.FACT;
import static dev.agentmemory.langchain4j.oracle.Step.Kind.FORGET_PREFERENCE;
import static dev.agentmemory.langchain4j.oracle.Step.Kind.FORGET_TASK_STATE;
import static dev.agentmemory.langchain4j.oracle.Step.Kind.MALFORMED_TOOL_CALL;
import static dev.agentmemory.langchain4j.oracle.Step.Kind.MODEL_FAILS;
import static dev.agentmemory.langchain4j.oracle.Step.Kind.PREFERENCE;
import static dev.agentmemory.langchain4j.oracle.Step.Kind.START_TASK;
import static dev.agentmemory.langchain4j.oracle.Step.Kind.TASK_STATE;
import static dev.agentmemory.langchain4j.oracle.Step.Kind.TIME_PASSES;
import static dev.agentmemory.langchain4j.oracle.Step.Kind.UNKNOWN_TOOL;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * The shortest lifecycles in which the prompt oracle found each kind of failure (issue 11), kept
 * as fixed cases so that each fix can be checked on its own: every test asserts only the
 * invariant its failure broke. In the steps, choice 1 means "the model quotes the user", choice 0
 * of MODEL_FAILS "throws on the first call", of MALFORMED_TOOL_CALL "truncated JSON", of
 * ECHO_FRAME "echoes the whole block in its reply".
 */
class PromptOracleReproductionsTest {

    private static final Lifecycle.Config CAREFUL = new Lifecycle.Config(false, true, false);
    private static final Lifecycle.Config BARE = new Lifecycle.Config(false, false, false);
    private static final Lifecycle.Config SUMMARIES = new Lifecycle.Config(false, true, true);

    private static Step s1(Step.Kind kind, int choice) {
        return new Step(kind, 0, 0, choice);
    }

    private static Step s2(Step.Kind kind, int choice) {
        return new Step(kind, 0, 1, choice);
    }

    private static void assertHolds(Invariant invariant, Lifecycle.Config config, Step... steps) {
        assertHolds(invariant, v -> true, config, steps);
    }

    private static void assertHolds(Invariant invariant, Predicate<Violation> which, Lifecycle.Config config,
                                    Step... steps) {
        Lifecycle.Result r = PromptOraclePropertyTest.run(config, List.of(steps));
        List<Violation> broken = r.violations().stream().filter(v -> v.invariant() == invariant).filter(which).toList();
        assertThat(broken).withFailMessage(() -> broken.size() + " violation(s) of " + invariant + ", first:\n"
                + r.story(broken.get(0))).isEmpty();
    }

    @Test
    void should_not_send_a_forgotten_preference_in_the_window_of_the_session_where_it_was_said() {
        assertHolds(Invariant.FORGOTTEN, CAREFUL, s1(PREFERENCE, 1), s1(FORGET_PREFERENCE, 0));
    }

    @Test
    void should_not_recall_the_assistants_restatement_of_forgotten_task_state_in_another_session() {
        // only the framed (recalled) copies in session s2; the window of s1 is the previous test's failure
        assertHolds(Invariant.FORGOTTEN, v -> v.step() == 4 && v.where().contains("framed item"), CAREFUL,
                s1(START_TASK, 1), s1(TASK_STATE, 1), s1(FORGET_TASK_STATE, 0), s2(ASK, 0));
    }

    @Test
    void should_not_label_a_summary_stating_a_superseded_preference_current() {
        assertHolds(Invariant.STALE_AS_CURRENT, SUMMARIES, s1(PREFERENCE, 1), s1(ASK, 0), s1(ASK, 0), s1(ASK, 0),
                s1(PREFERENCE, 1), s1(ASK, 0));
    }

    @Test
    void should_not_label_state_of_a_suspended_task_current_in_another_session() {
        assertHolds(Invariant.STALE_AS_CURRENT, CAREFUL, s1(START_TASK, 1), s1(TASK_STATE, 1), s1(START_TASK, 1),
                s2(ASK, 0));
    }

    @Test
    void should_not_label_state_of_an_ended_task_current_in_another_session() {
        assertHolds(Invariant.STALE_AS_CURRENT, CAREFUL, s1(START_TASK, 1), s1(TASK_STATE, 1), s1(END_TASK, 1),
                s2(ASK, 0));
    }

    @Test
    void should_say_so_when_a_recalled_past_message_states_a_superseded_preference() {
        assertHolds(Invariant.STALE_UNMARKED, CAREFUL, s1(PREFERENCE, 1), s2(PREFERENCE, 1), s2(ASK, 0));
    }

    @Test
    void should_say_so_when_a_recalled_past_message_states_an_expired_fact() {
        assertHolds(Invariant.STALE_UNMARKED, CAREFUL, s1(FACT, 1), s1(TIME_PASSES, 0), s2(ASK, 0));
    }

    @Test
    void should_not_label_a_fact_restated_after_its_deadline_current_under_a_second_key() {
        // the model's remember(home.city) passed its re-verify deadline; the user says it again:
        // the plain-words rules must treat home.city as the attribute's key, not open user.residence
        assertHolds(Invariant.STALE_AS_CURRENT, CAREFUL, s2(FACT, 2), s1(TIME_PASSES, 0), s1(FACT, 2), s1(ASK, 0),
                s2(FACT, 3));
    }

    @Test
    void should_name_the_task_and_its_status_on_task_state_items() {
        assertHolds(Invariant.TASK_ITEM_UNNAMED, CAREFUL, s1(START_TASK, 1), s1(TASK_STATE, 1), s1(ASK, 0));
    }

    @Test
    void should_not_resend_the_framed_block_of_a_turn_whose_model_call_failed() {
        assertHolds(Invariant.FRAME_PLACEMENT, CAREFUL, s1(PREFERENCE, 1), s1(MODEL_FAILS, 0), s1(ASK, 0));
    }

    @Test
    void should_not_resend_a_framed_block_the_model_echoed_in_its_reply() {
        assertHolds(Invariant.FRAME_PLACEMENT, CAREFUL, s1(PREFERENCE, 1), s1(ECHO_FRAME, 0), s1(ASK, 0));
    }

    @Test
    void should_store_each_message_once_when_the_window_repeats_itself() {
        // the user switches between two languages: the window's content becomes periodic
        Step[] steps = new Step[14];
        Arrays.fill(steps, s1(PREFERENCE, 1));
        assertHolds(Invariant.HISTORY_GROWTH, CAREFUL, steps);
    }

    @Test
    void should_answer_every_tool_call_after_malformed_arguments_without_error_handlers() {
        assertHolds(Invariant.TOOL_PAIRING, BARE, s1(MALFORMED_TOOL_CALL, 0), s1(ASK, 0));
    }

    @Test
    void should_answer_every_tool_call_after_an_unknown_tool_name_without_a_strategy() {
        assertHolds(Invariant.TOOL_PAIRING, BARE, s1(UNKNOWN_TOOL, 0), s1(ASK, 0));
    }
}

package dev.agentmemory.core;

import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.TaskInfo;
import dev.agentmemory.testing.TestClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.groups.Tuple.tuple;
import dev.agentmemory.core.MemoryRecord.Status;
import dev.agentmemory.core.Scope.Layer;
import dev.agentmemory.core.Proposal.Outcome;
import dev.agentmemory.core.ScopeView.KeyState;

class TaskLifecycleTest {

    static final Caller ALICE = Caller.of("shop", "alice");

    final TestClock clock = TestClock.start();
    final MemoryEngine engine = MemoryEngine.builder().clock(clock).build();
    final Scope refund = ALICE.task("s1", "refund");
    final Scope trip = ALICE.task("s1", "trip");

    @Test
    void should_suspend_active_task_when_another_starts() {
        // given
        engine.tasks().start(ALICE, "s1", "refund", "refund the earbuds");
        clock.advance(Duration.ofMinutes(5));

        // when
        TaskInfo started = engine.tasks().start(ALICE, "s1", "trip", "plan a trip");

        // then
        assertThat(started).isEqualTo(new TaskInfo("s1", "trip", "plan a trip", TaskInfo.Status.ACTIVE, clock.instant()));
        assertThat(engine.tasks().list(ALICE, "s1")).extracting(TaskInfo::task, TaskInfo::status, TaskInfo::title)
                .containsExactly(tuple("refund", TaskInfo.Status.SUSPENDED, "refund the earbuds"),
                        tuple("trip", TaskInfo.Status.ACTIVE, "plan a trip"));
        assertThat(engine.tasks().active(ALICE, "s1")).contains(started);
    }

    @Test
    void should_restore_task_state_exactly_when_resumed() {
        // given
        engine.tasks().start(ALICE, "s1", "refund", null);
        engine.write(ALICE, Proposal.set(refund, "order", "20241015").build());
        engine.write(ALICE, Proposal.set(refund, "color", "black").build());
        engine.write(ALICE, Proposal.set(refund, "color", "white").build());
        List<KeyState> before = engine.view(ALICE, refund).keys();

        // when: the user switches to a trip and comes back
        engine.tasks().start(ALICE, "s1", "trip", null);
        engine.write(ALICE, Proposal.set(trip, "destination", "Hailan").build());
        clock.advance(Duration.ofHours(2));
        TaskInfo resumed = engine.tasks().resume(ALICE, "s1", "refund");

        // then
        assertThat(resumed.status()).isEqualTo(TaskInfo.Status.ACTIVE);
        assertThat(engine.view(ALICE, refund).keys()).isEqualTo(before);
        assertThat(engine.tasks().list(ALICE, "s1")).extracting(TaskInfo::status)
                .containsExactly(TaskInfo.Status.ACTIVE, TaskInfo.Status.SUSPENDED);
    }

    @Test
    void should_serve_only_the_active_task_when_another_is_suspended() {
        // regression: servable(TASK) served suspended tasks' state, leaking one task into the next
        engine.tasks().start(ALICE, "s1", "refund", null);
        engine.write(ALICE, Proposal.set(refund, "color", "white").build());
        engine.tasks().start(ALICE, "s1", "trip", null);
        engine.write(ALICE, Proposal.set(trip, "destination", "Hailan").build());

        assertThat(engine.servable(ALICE, Layer.TASK)).extracting(k -> k.key().path()).containsExactly("destination");

        engine.tasks().resume(ALICE, "s1", "refund");
        assertThat(engine.servable(ALICE, Layer.TASK)).extracting(k -> k.key().path()).containsExactly("color");
    }

    @Test
    void should_archive_state_out_of_active_view_when_task_ends() {
        // given
        engine.tasks().start(ALICE, "s1", "refund", null);
        engine.write(ALICE, Proposal.set(refund, "color", "white").build());

        // when
        TaskInfo ended = engine.tasks().end(ALICE, "s1", "refund");

        // then
        assertThat(ended.status()).isEqualTo(TaskInfo.Status.ENDED);
        assertThat(engine.view(ALICE, refund).keys()).isEmpty();
        assertThat(engine.servable(ALICE, Layer.TASK)).isEmpty();
        assertThat(engine.tasks().active(ALICE, "s1")).isEmpty();
        assertThat(engine.view(ALICE, refund, ReadOptions.withArchived()).text("color")).contains("white");
        assertThat(engine.history(ALICE, refund, MemoryKey.of("color"))).extracting(MemoryRecord::status)
                .containsExactly(Status.ACTIVE);
    }

    @Test
    void should_reject_writes_to_ended_task() {
        engine.tasks().start(ALICE, "s1", "refund", null);
        engine.tasks().end(ALICE, "s1", "refund");
        long logSize = engine.admin().log(ALICE).size();

        Outcome outcome = engine.propose(ALICE, Proposal.set(refund, "color", "red").build());

        assertThat(outcome.result()).isEqualTo(Outcome.Result.REJECTED);
        assertThat(outcome.reason()).isEqualTo("task refund has ended; its state is archived");
        assertThatThrownBy(() -> engine.write(ALICE, Proposal.set(refund, "color", "red").build()))
                .isInstanceOf(MemoryException.InvalidProposal.class)
                .hasMessage("color: task refund has ended; its state is archived");
        assertThat(engine.admin().log(ALICE)).hasSize((int) logSize);
    }

    @Test
    void should_reject_writes_to_task_never_started() {
        Outcome outcome = engine.propose(ALICE, Proposal.set(refund, "color", "red").build());

        assertThat(outcome.reason()).isEqualTo("task refund was never started in session s1");
        assertThat(engine.admin().log(ALICE)).isEmpty();
    }

    @Test
    void should_refuse_invalid_transitions_naming_the_task_and_its_status() {
        engine.tasks().start(ALICE, "s1", "refund", null);
        engine.tasks().end(ALICE, "s1", "refund");

        assertThatThrownBy(() -> engine.tasks().resume(ALICE, "s1", "refund"))
                .isInstanceOf(IllegalStateException.class).hasMessage("task refund is ended; cannot make it active");
        assertThatThrownBy(() -> engine.tasks().suspend(ALICE, "s1", "refund"))
                .isInstanceOf(IllegalStateException.class).hasMessage("task refund is ended; cannot make it suspended");
        assertThatThrownBy(() -> engine.tasks().start(ALICE, "s1", "refund", null))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("task refund already exists in session s1 (ended); resume it instead");
        assertThatThrownBy(() -> engine.tasks().end(ALICE, "s1", "nope"))
                .isInstanceOf(IllegalStateException.class).hasMessage("no task nope in session s1 or another session of this user");
        assertThat(engine.admin().log(ALICE)).hasSize(2);
    }

    @Test
    void should_keep_tasks_of_sessions_apart() {
        engine.tasks().start(ALICE, "s1", "refund", null);
        engine.tasks().start(ALICE, "s2", "refund", null);

        assertThat(engine.tasks().active(ALICE, "s1")).get().extracting(TaskInfo::session).isEqualTo("s1");
        assertThat(engine.tasks().active(ALICE, "s2")).get().extracting(TaskInfo::session).isEqualTo("s2");
    }
}

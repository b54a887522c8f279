package dev.agentmemory.store.jdbc.engine;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.Scope.Layer;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.TaskInfo;
import dev.agentmemory.core.engine.MemoryEngine.Tasks;
import dev.agentmemory.core.TaskInfo.Status;
import dev.agentmemory.store.jdbc.JdbcStores;
import dev.agentmemory.testing.TestClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.groups.Tuple.tuple;

/** A task is a frame of the user's work: it can be resumed from any of the user's sessions, and moves there. */
class TasksAcrossSessionsTest {

    static final Caller LIN = Caller.of("acme", "lin");
    static final Caller MALLORY = Caller.of("acme", "mallory");

    final TestClock clock = TestClock.start();
    final MemoryEngine engine = MemoryEngine.builder().clock(clock).build();

    @Test
    void should_resume_a_task_suspended_in_another_session_and_move_it_there() {
        // given: day 1, a trip started and suspended in wx-chat
        engine.tasks().start(LIN, "wx-chat", "trip-hailan", "business trip to Hailan");
        engine.write(LIN, Proposal.set(LIN.task("wx-chat", "trip-hailan"), "trip.destination", "海岚").build());
        engine.tasks().suspend(LIN, "wx-chat", "trip-hailan");
        clock.advance(Duration.ofDays(1));

        // when: day 2, a new chat resumes it
        TaskInfo resumed = engine.tasks().resume(LIN, "web-2", "trip-hailan");

        // then: web-2 holds it, active, with its state; wx-chat no longer treats it as its own
        assertThat(resumed.status()).isEqualTo(TaskInfo.Status.ACTIVE);
        assertThat(resumed.heldBy()).isEqualTo("web-2");
        assertThat(resumed.session()).isEqualTo("wx-chat");
        TaskInfo active = engine.tasks().active(LIN, "web-2").orElseThrow();
        assertThat(engine.current(LIN, LIN.task(active.session(), active.task()), MemoryKey.of("trip.destination")))
                .map(MemoryRecord::text).contains("海岚");
        assertThat(engine.tasks().list(LIN, "wx-chat")).isEmpty();
        assertThat(engine.tasks().active(LIN, "wx-chat")).isEmpty();
        assertThat(engine.servable(LIN, Layer.TASK)).extracting(k -> k.current().text()).containsExactly("海岚");
        assertThat(engine.admin().audit(LIN, Duration.ofDays(30)).consistent()).isTrue();
        assertThat(engine.admin().readableLog(LIN)).anyMatch(l -> l.contains("task wx-chat/trip-hailan moved to session web-2"));
    }

    @Test
    void should_keep_two_suspended_trips_apart_and_suspend_the_active_one_on_resume() {
        // given: two trips in two chats, both suspended; a refund active in web-2
        engine.tasks().start(LIN, "wx-chat", "trip-hailan", "Hailan");
        engine.write(LIN, Proposal.set(LIN.task("wx-chat", "trip-hailan"), "trip.destination", "海岚").build());
        engine.tasks().suspend(LIN, "wx-chat", "trip-hailan");
        engine.tasks().start(LIN, "app-1", "trip-lisbon", "Lisbon");
        engine.write(LIN, Proposal.set(LIN.task("app-1", "trip-lisbon"), "trip.destination", "Lisbon").build());
        engine.tasks().suspend(LIN, "app-1", "trip-lisbon");
        engine.tasks().start(LIN, "web-2", "refund", null);

        // when
        engine.tasks().resume(LIN, "web-2", "trip-lisbon");

        // then
        assertThat(engine.tasks().list(LIN, "web-2")).extracting(TaskInfo::task, TaskInfo::status)
                .containsExactly(tuple("trip-lisbon", TaskInfo.Status.ACTIVE), tuple("refund", TaskInfo.Status.SUSPENDED));
        assertThat(engine.servable(LIN, Layer.TASK)).extracting(k -> k.current().text()).containsExactly("Lisbon");
        assertThat(engine.tasks().userTasks(LIN)).extracting(TaskInfo::task, TaskInfo::status, TaskInfo::heldBy)
                .containsExactlyInAnyOrder(tuple("trip-hailan", TaskInfo.Status.SUSPENDED, "wx-chat"),
                        tuple("trip-lisbon", TaskInfo.Status.ACTIVE, "web-2"), tuple("refund", TaskInfo.Status.SUSPENDED, "web-2"));
    }

    @Test
    void should_name_the_sessions_when_two_open_tasks_share_an_id() {
        // given
        engine.tasks().start(LIN, "a", "trip", null);
        engine.tasks().start(LIN, "b", "trip", null);

        // then
        assertThatThrownBy(() -> engine.tasks().resume(LIN, "c", "trip"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("task trip is open in several sessions of this user: started in a, held by a, active;"
                        + " started in b, held by b, active; name the session it was started in");
        assertThat(engine.tasks().resume(LIN, "c", "b", "trip").heldBy()).isEqualTo("c");
        assertThat(engine.tasks().active(LIN, "b")).isEmpty();
        assertThat(engine.tasks().active(LIN, "a")).map(TaskInfo::task).contains("trip");
    }

    @Test
    void should_never_resume_another_users_task() {
        // given
        engine.tasks().start(LIN, "wx-chat", "trip-hailan", null);
        engine.tasks().suspend(LIN, "wx-chat", "trip-hailan");

        // then
        assertThatThrownBy(() -> engine.tasks().resume(MALLORY, "web-2", "trip-hailan"))
                .hasMessage("no task trip-hailan in session web-2 or another session of this user");
        assertThat(engine.tasks().userTasks(MALLORY)).isEmpty();
    }

    @Test
    void should_refuse_to_resume_an_ended_task_from_another_session() {
        engine.tasks().start(LIN, "wx-chat", "trip-hailan", null);
        engine.tasks().end(LIN, "wx-chat", "trip-hailan");

        assertThatThrownBy(() -> engine.tasks().resume(LIN, "web-2", "trip-hailan"))
                .hasMessage("task trip-hailan is ended; cannot make it active");
        assertThatThrownBy(() -> engine.tasks().resume(LIN, "web-2", "wx-chat", "trip-hailan"))
                .hasMessage("task trip-hailan is ended; cannot make it active");
    }

    @Test
    void should_end_a_moved_task_from_the_chat_that_started_it_and_leave_it_held_where_it_was() {
        // given: the trip started in wx-chat, continued in web-2
        Tasks tasks = engine.tasks();
        tasks.start(LIN, "wx-chat", "trip-hailan", "business trip to Hailan");
        engine.write(LIN, Proposal.set(LIN.task("wx-chat", "trip-hailan"), "trip.destination", "海岚").build());
        tasks.resume(LIN, "web-2", "trip-hailan");

        // when: back in wx-chat, the user closes it
        TaskInfo ended = tasks.end(LIN, "wx-chat", "trip-hailan");

        // then: ended where it was held; its state is archived, out of every active view
        assertThat(ended.status()).isEqualTo(TaskInfo.Status.ENDED);
        assertThat(ended.heldBy()).isEqualTo("web-2");
        assertThat(ended.session()).isEqualTo("wx-chat");
        assertThat(tasks.active(LIN, "web-2")).isEmpty();
        assertThat(tasks.list(LIN, "web-2")).extracting(TaskInfo::task, TaskInfo::status)
                .containsExactly(tuple("trip-hailan", TaskInfo.Status.ENDED));
        assertThat(engine.servable(LIN, Layer.TASK)).isEmpty();
        assertThatThrownBy(() -> tasks.end(LIN, "app-3", "trip-hailan"))
                .isInstanceOf(IllegalStateException.class).hasMessage("task trip-hailan is ended; cannot make it ended");
        assertThat(engine.admin().audit(LIN, Duration.ofDays(30)).consistent()).isTrue();
    }

    @Test
    void should_suspend_a_task_held_by_another_chat_and_resume_it_back() {
        // given: started in a, moved to b where it is active
        Tasks tasks = engine.tasks();
        tasks.start(LIN, "a", "refund-7", null);
        tasks.resume(LIN, "b", "refund-7");

        // when: a suspends it, then takes it back
        TaskInfo suspended = tasks.suspend(LIN, "a", "refund-7");
        TaskInfo resumed = tasks.resume(LIN, "a", "refund-7");

        // then
        assertThat(suspended.status()).isEqualTo(TaskInfo.Status.SUSPENDED);
        assertThat(suspended.heldBy()).isEqualTo("b");
        assertThat(resumed.heldBy()).isEqualTo("a");
        assertThat(tasks.active(LIN, "a")).map(TaskInfo::task).contains("refund-7");
        assertThat(tasks.list(LIN, "b")).isEmpty();
    }

    @Test
    void should_list_the_candidates_and_change_nothing_when_two_chats_have_an_open_task_of_that_id() {
        // given: "trip" started in a and moved to c; another "trip" started in b
        Tasks tasks = engine.tasks();
        tasks.start(LIN, "a", "trip", "Hailan");
        tasks.resume(LIN, "c", "trip");
        tasks.start(LIN, "b", "trip", "Lisbon");
        tasks.suspend(LIN, "b", "trip");
        int events = engine.admin().log(LIN).size();

        // then: from a fourth chat the id is ambiguous, for end, suspend and resume alike
        String candidates = "task trip is open in several sessions of this user: started in a (\"Hailan\"), held by c,"
                + " active; started in b (\"Lisbon\"), held by b, suspended; name the session it was started in";
        assertThatThrownBy(() -> tasks.end(LIN, "d", "trip")).isInstanceOf(IllegalStateException.class).hasMessage(candidates);
        assertThatThrownBy(() -> tasks.suspend(LIN, "d", "trip")).hasMessage(candidates);
        assertThatThrownBy(() -> tasks.resume(LIN, "d", "trip")).hasMessage(candidates);
        assertThat(engine.admin().log(LIN)).hasSize(events);

        // and the chat holding one means its own; naming where it was started picks the other
        assertThat(tasks.suspend(LIN, "c", "trip")).extracting(TaskInfo::session, TaskInfo::status)
                .containsExactly("a", TaskInfo.Status.SUSPENDED);
        assertThat(tasks.end(LIN, "d", "b", "trip")).extracting(TaskInfo::session, TaskInfo::heldBy, TaskInfo::status)
                .containsExactly("b", "b", TaskInfo.Status.ENDED);
        assertThat(tasks.end(LIN, "d", "trip")).extracting(TaskInfo::session, TaskInfo::status)
                .containsExactly("a", TaskInfo.Status.ENDED);
        assertThatThrownBy(() -> tasks.end(LIN, "d", "nowhere", "trip"))
                .hasMessage("no task trip started in session nowhere of this user");
    }

    @Test
    void should_never_end_or_suspend_a_task_of_another_user_or_tenant() {
        // given: Lin's trip, moved to web-2
        Tasks tasks = engine.tasks();
        tasks.start(LIN, "wx-chat", "trip-hailan", null);
        tasks.resume(LIN, "web-2", "trip-hailan");
        Caller linElsewhere = Caller.of("globex", "lin");

        // then: neither Mallory nor a user named lin in another tenant reaches it, even naming its session
        for (Caller other : java.util.List.of(MALLORY, linElsewhere)) {
            assertThatThrownBy(() -> tasks.end(other, "wx-chat", "trip-hailan"))
                    .hasMessage("no task trip-hailan in session wx-chat or another session of this user");
            assertThatThrownBy(() -> tasks.suspend(other, "web-2", "trip-hailan"))
                    .hasMessage("no task trip-hailan in session web-2 or another session of this user");
            assertThatThrownBy(() -> tasks.end(other, "x", "wx-chat", "trip-hailan"))
                    .hasMessage("no task trip-hailan started in session wx-chat of this user");
            assertThat(engine.admin().log(other)).isEmpty();
        }
        assertThat(tasks.active(LIN, "web-2")).map(TaskInfo::task).contains("trip-hailan");
    }

    @Test
    void should_keep_where_a_task_is_held_across_a_restart(@TempDir Path dir) {
        try (MemoryEngine first = MemoryEngine.builder().store(JdbcStores.h2File(dir.resolve("m"))).clock(clock).build()) {
            first.tasks().start(LIN, "wx-chat", "trip-hailan", "Hailan");
            first.tasks().suspend(LIN, "wx-chat", "trip-hailan");
            first.tasks().resume(LIN, "web-2", "trip-hailan");
        }
        try (MemoryEngine second = MemoryEngine.builder().store(JdbcStores.h2File(dir.resolve("m"))).clock(clock).build()) {
            assertThat(second.tasks().active(LIN, "web-2")).map(TaskInfo::heldBy).contains("web-2");
            assertThat(second.tasks().list(LIN, "wx-chat")).isEmpty();
            assertThat(second.admin().audit(LIN, Duration.ofDays(30)).consistent()).isTrue();
        }
    }
}

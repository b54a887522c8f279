package dev.agentmemory.core;

import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.event.Change;
import dev.agentmemory.core.event.LoggedEvent;
import dev.agentmemory.testing.TestClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import dev.agentmemory.core.MemoryRecord.Kind;

class EventLogTest {

    static final Caller ALICE = Caller.of("shop", "alice");

    final TestClock clock = TestClock.start();

    @Test
    void should_log_every_change_with_sequence_time_actor_and_trace() {
        // given
        MemoryEngine engine = MemoryEngine.builder().clock(clock).build();
        engine.write(ALICE.as("planner"), Proposal.set(ALICE.session("s1"), "color", "white").build());
        clock.advance(Duration.ofSeconds(30));

        // when: one call that makes two events
        engine.tasks().start(ALICE, "s1", "t1", null);
        engine.tasks().start(ALICE, "s1", "t2", null);

        // then
        List<LoggedEvent> log = engine.admin().log(ALICE);
        assertThat(log).extracting(LoggedEvent::seq).containsExactly(1L, 2L, 3L, 4L);
        assertThat(log).extracting(LoggedEvent::actor).containsExactly("planner", "assistant", "assistant", "assistant");
        assertThat(log.get(0).at()).isEqualTo(clock.instant().minusSeconds(30));
        assertThat(log.get(3).at()).isEqualTo(clock.instant());
        assertThat(log.get(2).traceId()).isEqualTo(log.get(3).traceId()).isNotEqualTo(log.get(1).traceId());
        assertThat(log.get(2).change()).isEqualTo(new Change.TaskChanged("s1", "t1", dev.agentmemory.core.TaskInfo.Status.SUSPENDED, null));
        assertThat(engine.admin().readableLog(ALICE).get(0))
                .startsWith("#1 2024-10-15T10:00:00Z by planner [")
                .endsWith("wrote shop/alice/session/s1 color v1 = \"white\" (task_fact, user, trusted, active)");
    }

    @Test
    void should_redact_sensitive_values_in_readable_log_by_flag_kind_or_key_pattern() {
        // given
        MemoryEngine engine = MemoryEngine.builder().clock(clock).sensitiveKind(Kind.PREFERENCE)
                .sensitiveKeys("card\\..*").build();
        Scope s = ALICE.session("s1");
        engine.write(ALICE, Proposal.set(s, "passport", "P-1234567").sensitive().build());
        engine.write(ALICE, Proposal.set(ALICE.persistent(), "diet", "halal-diet").kind(Kind.PREFERENCE).build());
        engine.write(ALICE, Proposal.set(s, "card.number", "4111-1111").build());
        engine.write(ALICE, Proposal.set(s, "color", "white").build());

        // when
        String readable = String.join("\n", engine.admin().readableLog(ALICE));

        // then
        assertThat(readable).doesNotContain("P-1234567", "halal-diet", "4111-1111").contains("\"white\"");
        assertThat(engine.admin().readableLog(ALICE)).filteredOn(l -> l.contains("= [redacted]")).hasSize(3);
        assertThat(engine.view(ALICE, s).text("passport")).contains("P-1234567");
        assertThat(engine.current(ALICE, s, MemoryKey.of("card.number"))).get().extracting(MemoryRecord::sensitive).isEqualTo(true);
    }

    @Test
    void should_reject_invalid_sensitive_key_pattern_naming_the_problem() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> MemoryEngine.builder().sensitiveKeys("card.(["))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("sensitiveKeys is not a valid regular expression: ");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> MemoryEngine.builder().encryptionKey(new byte[7]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("encryption key must be 16, 24 or 32 bytes: 7");
    }
}

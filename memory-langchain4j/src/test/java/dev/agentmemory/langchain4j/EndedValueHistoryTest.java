package dev.agentmemory.langchain4j;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.KeyVersion;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.ScopeView.KeyState;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.testing.TestClock;
import dev.agentmemory.testing.langchain4j.SharedEmbeddingModel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 23: a value ended in plain words ("I no longer work at Globex") stays in the key's history
 * with its value and its end (when, why, by which message), and {@code asOf} gives it for every
 * time before the end and nothing after. A table over times with a clock moved through the days,
 * through AiServices, checked before and after a restart on an H2 file (the state replayed from
 * the log).
 */
class EndedValueHistoryTest {

    private static final Instant DAY_1 = Instant.parse("2025-03-03T09:00:00Z");
    private static final MemoryKey EMPLOYER = MemoryKey.of("user.employer");

    @TempDir
    Path dir;

    private static SessionRef session(String name) {
        return new SessionRef("acme", "dana", name);
    }

    private static AgentMemory open(Path db, TestClock clock) {
        return AgentMemory.builder().h2File(db).engineSettings(e -> e.clock(clock))
                .embeddingModel(SharedEmbeddingModel.get()).build();
    }

    private static void moveTo(TestClock clock, Instant t) {
        clock.advance(Duration.between(clock.instant(), t));
    }

    private static Instant day(int n) {
        return DAY_1.plus(Duration.ofDays(n - 1));
    }

    /** time of the read, and the employer {@code asOf} that time gives ("" for none). */
    private static final List<Object[]> AS_OF = List.of(
            new Object[] {DAY_1.minusSeconds(1), ""},
            new Object[] {day(1), "Acme"},
            new Object[] {day(3), "Acme"},
            new Object[] {day(5).minusSeconds(1), "Acme"},
            new Object[] {day(5), "Globex"},
            new Object[] {day(9), "Globex"},
            new Object[] {day(10).minusSeconds(1), "Globex"},
            new Object[] {day(10), ""},
            new Object[] {day(12), ""});

    @Test
    void should_keep_the_ended_value_in_history_and_in_reads_of_the_past_across_a_restart() {
        Path db = dir.resolve("memory");
        TestClock clock = new TestClock(DAY_1);
        Caller caller = session("s1").caller("assistant");
        try (AssistantProcess first = new AssistantProcess(open(db, clock))) {
            first.turn(session("s1"), "I work at Acme.");
            moveTo(clock, day(5));
            first.turn(session("s2"), "I started at Globex.");
            moveTo(clock, day(10));
            first.turn(session("s3"), "I no longer work at Globex.");
            moveTo(clock, day(12));
            assertHistoryAndPast(first.memory.engine(), caller);
        }
        try (AgentMemory memory = open(db, clock)) {
            assertHistoryAndPast(memory.engine(), caller);
        }
    }

    @Test
    void should_keep_no_value_for_a_version_the_user_asked_to_forget() {
        TestClock clock = new TestClock(DAY_1);
        Caller caller = session("s1").caller("assistant");
        try (AssistantProcess process = new AssistantProcess(open(dir.resolve("forget"), clock))) {
            AgentMemory memory = process.memory;
            process.turn(session("s1"), "I work at Acme.");
            moveTo(clock, day(3));
            memory.engine().forget(caller, dev.agentmemory.core.ForgetTarget.key(caller.persistent(), EMPLOYER),
                    dev.agentmemory.core.ForgetMode.SOFT);

            List<KeyVersion> versions = memory.engine().versions(caller, caller.persistent(), EMPLOYER);
            assertThat(versions).singleElement().satisfies(v -> {
                assertThat(v.record().value()).isNull();
                assertThat(v.ended()).isEmpty();
            });
        }
    }

    private static void assertHistoryAndPast(MemoryEngine engine, Caller caller) {
        assertThat(engine.current(caller, caller.persistent(), EMPLOYER)).isEmpty();

        List<KeyVersion> versions = engine.versions(caller, caller.persistent(), EMPLOYER);
        assertThat(versions).hasSize(2);
        KeyVersion acme = versions.get(0);
        assertThat(acme.record().value().text()).contains("Acme");
        assertThat(acme.record().status()).isEqualTo(MemoryRecord.Status.SUPERSEDED);
        assertThat(acme.ended()).isEmpty();
        KeyVersion globex = versions.get(1);
        assertThat(globex.record().value().text()).contains("Globex");
        assertThat(globex.record().sourceRef()).isEqualTo("message:s2#0");
        assertThat(globex.record().status()).isEqualTo(MemoryRecord.Status.ACTIVE);
        assertThat(globex.ended()).hasValueSatisfying(end -> {
            assertThat(end.at()).isEqualTo(day(10));
            assertThat(end.by()).isEqualTo("message:s3#0");
            assertThat(end.reason()).startsWith("ended in plain words");
        });
        // history() still holds the ended version as the state does: a tombstone from then on
        assertThat(engine.history(caller, caller.persistent(), EMPLOYER)).extracting(MemoryRecord::status)
                .containsExactly(MemoryRecord.Status.SUPERSEDED, MemoryRecord.Status.FORGOTTEN);

        for (Object[] row : AS_OF) {
            Instant at = (Instant) row[0];
            String expected = (String) row[1];
            Optional<KeyState> state = engine.asOf(caller, caller.persistent(), at).keys().stream()
                    .filter(k -> k.key().equals(EMPLOYER) && k.current() != null).findFirst();
            if (expected.isEmpty()) {
                assertThat(state).as("asOf %s", at).isEmpty();
            } else {
                assertThat(state).as("asOf %s", at)
                        .hasValueSatisfying(k -> assertThat(k.current().value().text()).contains(expected));
            }
        }
    }
}

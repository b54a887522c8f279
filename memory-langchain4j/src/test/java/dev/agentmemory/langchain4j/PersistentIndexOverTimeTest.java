package dev.agentmemory.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord.Access;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.core.MemoryValue;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.ScopeView.KeyState;
import dev.agentmemory.langchain4j.PersistentIndex.Ranked;
import dev.agentmemory.testing.TestClock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * With nothing written, only the clock moving, a key enters and leaves the persistent ranking
 * exactly when its validity window opens or closes or its TTL passes, as {@code servable} says:
 * one index, asked just before, at and just after every boundary. One key's readable version is
 * hidden from the assistant while another agent's private version applies (a window that opens
 * and closes at no other key's boundary), and served again
 * when that window ends (the boundary comes from a version the assistant cannot read).
 */
class PersistentIndexOverTimeTest {

    private static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");
    private static final Set<String> QUERY = PersistentIndex.terms("trip deadline switch");

    /** Minutes after T0, then the label of each key for the assistant ({@code -}: not served). */
    private static final List<Object[]> TABLE = List.of(
            new Object[] {0, "upcoming", "current", "current"},
            new Object[] {59, "upcoming", "current", "current"},
            new Object[] {60, "current", "current", "current"},
            new Object[] {61, "current", "current", "current"},
            new Object[] {89, "current", "current", "current"},
            new Object[] {90, "current", "current", "-"},
            new Object[] {91, "current", "current", "-"},
            new Object[] {119, "current", "current", "-"},
            new Object[] {120, "current", "reverify", "-"},
            new Object[] {121, "current", "reverify", "-"},
            new Object[] {149, "current", "reverify", "-"},
            new Object[] {150, "current", "reverify", "current"},
            new Object[] {151, "current", "reverify", "current"},
            new Object[] {179, "current", "reverify", "current"},
            new Object[] {180, "ended", "reverify", "current"},
            new Object[] {181, "ended", "reverify", "current"});

    @Test
    void should_serve_each_key_exactly_while_servable_says_so_as_the_clock_moves() {
        TestClock clock = new TestClock(T0);
        try (AgentMemory memory = AgentMemory.builder().engineSettings(e -> e.clock(clock)).build()) {
            Caller assistant = new Caller("acme", "alice", "assistant");
            Caller auditor = assistant.as("auditor");
            write(memory, assistant, Proposal.set(assistant.persistent(), "trip.window", "trip to Lisbon")
                    .kind(Kind.OBSERVATION).validity(T0.plus(Duration.ofHours(1)), T0.plus(Duration.ofHours(3))));
            write(memory, assistant, Proposal.set(assistant.persistent(), "deadline.ttl", "deadline is friday")
                    .kind(Kind.DECISION).ttl(Duration.ofHours(2)));
            write(memory, assistant, Proposal.set(assistant.persistent(), "switch.hidden", "switch plan A")
                    .kind(Kind.OBSERVATION));
            write(memory, auditor, Proposal.set(auditor.persistent(), MemoryKey.of("switch.hidden"),
                            MemoryValue.of("switch plan B")).kind(Kind.OBSERVATION).access(Access.PRIVATE)
                    .validity(T0.plus(Duration.ofMinutes(90)), T0.plus(Duration.ofMinutes(150))));
            PersistentIndex index = new PersistentIndex(memory.engine());
            index.attach();

            Instant at = T0;
            for (Object[] row : TABLE) {
                // when
                Instant next = T0.plus(Duration.ofMinutes((Integer) row[0]));
                clock.advance(Duration.between(at, next));
                at = next;

                // then
                List<Ranked> ranked = index.top(assistant, QUERY, 10);
                Map<String, String> expected = new LinkedHashMap<>();
                expected.put("trip.window", (String) row[1]);
                expected.put("deadline.ttl", (String) row[2]);
                expected.put("switch.hidden", (String) row[3]);
                expected.values().removeIf("-"::equals);
                Map<String, String> labels = new LinkedHashMap<>();
                ranked.forEach(r -> labels.put(r.key().key().path(), label(r.key())));
                assertThat(labels).as("at +%s min", row[0]).containsExactlyInAnyOrderEntriesOf(expected);
                for (Caller caller : List.of(assistant, auditor)) {
                    assertThat(index.top(caller, QUERY, 10)).as("at +%s min, %s", row[0], caller.agent())
                            .isEqualTo(PersistentIndexEquivalenceTest.bySortingServable(memory.engine(), caller, QUERY, 10));
                }
            }
            assertThat(index.builds()).as("built once per agent, then only the keys time changed").isEqualTo(2);
            index.detach();
        }
    }

    private static void write(AgentMemory memory, Caller caller, Proposal.Builder proposal) {
        memory.engine().write(caller, proposal.source(Source.USER).build());
    }

    private static String label(KeyState k) {
        if (k.current() != null) {
            return "current";
        }
        if (k.needsReverification() != null) {
            return "reverify";
        }
        return !k.upcoming().isEmpty() ? "upcoming" : !k.noLongerValid().isEmpty() ? "ended" : "conflict";
    }
}

package dev.agentmemory.core;

import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.event.LoggedEvent;
import dev.agentmemory.core.store.InMemoryEventStore;
import dev.agentmemory.core.testing.FaultyEventStore;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 15, item 1: a write whose append fails is never served, the error says what failed first
 * and names the store, and the next write after the fault clears works.
 */
class FailedWriteTest {

    private static final Caller ALICE = Caller.of("shop", "alice");
    private static final MemoryKey COLOR = MemoryKey.of("color");
    private static final Scope S1 = ALICE.session("s1");

    private final FaultyEventStore store = new FaultyEventStore(new InMemoryEventStore()).alone();
    private final MemoryEngine engine = MemoryEngine.builder().store(store).build();
    private final List<LoggedEvent> heard = new ArrayList<>();

    {
        engine.admin().addListener((p, events) -> heard.addAll(events));
    }

    private MemoryRecord set(String value) {
        return engine.write(ALICE, Proposal.set(S1, COLOR, MemoryValue.of(value)).build());
    }

    private String current() {
        return engine.current(ALICE, S1, COLOR).orElseThrow().value().text();
    }

    @Test
    void an_append_that_fails_while_reads_fail_too_leaves_the_value_as_it_was() {
        set("white");
        store.down(); // disk full: the database closed itself, so a reload would fail as well

        assertThatThrownBy(() -> set("black"))
                .isInstanceOf(MemoryException.class)
                .isNotInstanceOf(StaleVersionException.class)
                .hasMessageContaining("No space left on device")
                .hasMessageContaining(store.toString());
        assertThat(current()).isEqualTo("white");
        assertThat(heard).hasSize(1);

        store.up();
        assertThat(set("red").version()).isEqualTo(2);
        assertThat(current()).isEqualTo("red");
        assertThat(engine.admin().log(ALICE)).hasSize(2);
        assertThat(heard).extracting(LoggedEvent::seq).containsExactly(1L, 2L);
    }

    @Test
    void a_refused_append_of_a_batch_leaves_every_key_as_it_was() {
        set("white");
        store.refuseNextAppends(1);
        assertThatThrownBy(() -> engine.propose(ALICE, List.of(
                Proposal.set(S1, COLOR, MemoryValue.of("black")).build(),
                Proposal.set(S1, "size", "M").build())))
                .hasMessageContaining("Connection reset");
        assertThat(current()).isEqualTo("white");
        assertThat(engine.current(ALICE, S1, MemoryKey.of("size"))).isEmpty();
        assertThat(set("red").version()).isEqualTo(2);
    }

    @Test
    void an_append_kept_by_the_store_whose_acknowledgement_was_lost_is_found_by_the_next_write() {
        set("white");
        store.loseNextAcknowledgements(1);

        assertThatThrownBy(() -> set("black")).hasMessageContaining("Connection reset");
        assertThat(current()).as("not acknowledged: not served").isEqualTo("white");
        assertThat(heard).hasSize(1);

        MemoryRecord red = set("red"); // no StaleVersionException: the write reads the stored tail first
        assertThat(red.version()).isEqualTo(3);
        assertThat(engine.history(ALICE, S1, COLOR)).extracting(r -> r.value().text())
                .containsExactly("white", "black", "red");
        assertThat(heard).extracting(LoggedEvent::seq).containsExactly(1L, 2L, 3L);
        assertThat(engine.admin().audit(ALICE, java.time.Duration.ofDays(1)).replayMatches()).isTrue();
    }

    @Test
    void when_the_tail_cannot_be_read_the_next_write_fails_and_serves_nothing_new() {
        set("white");
        store.loseNextAcknowledgements(1);
        assertThatThrownBy(() -> set("black")).isInstanceOf(MemoryException.class);
        store.down();
        assertThatThrownBy(() -> set("red")).hasMessageContaining("The database has been closed");
        assertThat(current()).isEqualTo("white");
        store.up();
        assertThat(set("red").version()).isEqualTo(3);
    }
}

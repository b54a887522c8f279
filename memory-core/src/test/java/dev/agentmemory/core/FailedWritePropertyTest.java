package dev.agentmemory.core;

import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.internal.hooks.EventListener;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.core.spi.StoredEvent;
import dev.agentmemory.core.store.InMemoryEventStore;
import dev.agentmemory.core.testing.FaultyEventStore;
import dev.agentmemory.testing.TestClock;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static dev.agentmemory.core.ReplayPropertyTest.ALICE;
import static dev.agentmemory.core.ReplayPropertyTest.KEYS;
import static dev.agentmemory.core.ReplayPropertyTest.SCOPES;
import static org.assertj.core.api.Assertions.assertThat;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.Scope.Layer;

/**
 * Random writes, forgets, task changes, messages and ledger entries (ReplayPropertyTest's
 * operations) with random store faults before each: an append refused, an append stored whose
 * acknowledgement is lost, the store down for reads and appends alike (the reload a failed append
 * used to make fails too). After each step:
 * <ul>
 *   <li>a step that failed left every public read exactly as it was before the step;</li>
 *   <li>the live state is a replay of a prefix of the stored log (a fresh engine on that prefix
 *       serves the same views, histories, tasks, window, ledger and aliases) that holds every
 *       acknowledged append, and, after a step that succeeded, all of the stored log;</li>
 *   <li>listeners heard exactly the events the live state holds: never a failed append's,
 *       and an in-doubt append's once the engine found it stored.</li>
 * </ul>
 */
class FailedWritePropertyTest {

    /** A fault set up before one operation. */
    enum Fault { NONE, REFUSE_APPEND, LOSE_ACK, STORE_DOWN }

    record Step(Fault fault, ReplayPropertyTest.Op op) {
    }

    @Provide
    Arbitrary<List<Step>> steps() {
        Arbitrary<Fault> fault = Arbitraries.frequency(Tuple.of(5, Fault.NONE), Tuple.of(2, Fault.REFUSE_APPEND),
                Tuple.of(2, Fault.LOSE_ACK), Tuple.of(2, Fault.STORE_DOWN));
        Arbitrary<ReplayPropertyTest.Op> op = new ReplayPropertyTest().operations().map(ops -> ops.get(0));
        return Combinators.combine(fault, op).as(Step::new).list().ofMinSize(1).ofMaxSize(25);
    }

    @Property(tries = 80, seed = "20261202")
    void live_state_is_the_replay_of_what_the_store_holds_whatever_fails(@ForAll("steps") List<Step> steps) {
        TestClock clock = TestClock.start();
        FaultyEventStore store = new FaultyEventStore(new InMemoryEventStore()).alone();
        List<Long> heard = new ArrayList<>();
        EventListener listener = (p, events) -> events.forEach(e -> heard.add(e.seq()));
        MemoryEngine engine = MemoryEngine.builder().store(store).clock(clock).ttl(Kind.OBSERVATION, Duration.ofHours(2))
                .build();
        engine.admin().addListener(listener);
        Partition alice = new Partition(ALICE.tenant(), ALICE.user());

        for (Step step : steps) {
            if (step.op() instanceof ReplayPropertyTest.Advance a) {
                clock.advance(Duration.ofHours(a.hours())); // time moves whether or not the expiry is logged
            }
            Map<String, Object> before = reads(engine);
            switch (step.fault()) {
                case NONE -> { }
                case REFUSE_APPEND -> store.refuseNextAppends(1);
                case LOSE_ACK -> store.loseNextAcknowledgements(1);
                case STORE_DOWN -> store.down();
            }
            boolean failed = false;
            try {
                if (step.op() instanceof ReplayPropertyTest.Advance) {
                    engine.verification().expireDue(ALICE);
                } else {
                    step.op().apply(engine, clock);
                }
            } catch (MemoryException e) {
                failed = true;
                assertThat(e).as("a failed store call says what failed and names the store")
                        .hasMessageContaining("FaultyEventStore");
            } finally {
                store.up();
            }
            long stored = store.underlying().lastSequence(alice);
            if (failed) {
                assertThat(reads(engine)).as("after %s failed under %s, reads are as before", step.op(), step.fault())
                        .isEqualTo(before);
            }

            long live = engine.view(ALICE, SCOPES.get(0)).seq();
            assertThat(live).as("live seq after %s", step).isBetween(store.acknowledged(alice), stored);
            if (!failed && step.fault() == Fault.NONE && writes(step.op())) {
                assertThat(live).as("a write that succeeded continues the whole stored log").isEqualTo(stored);
            }
            assertThat(reads(engine)).as("live reads == replay of the first %d stored events, after %s", live, step)
                    .isEqualTo(reads(replayOf(store, alice, live, clock)));
            if (live == stored) {
                assertThat(engine.admin().audit(ALICE, Duration.ofDays(1)).replayMatches()).isTrue();
            }
            assertThat(heard).as("listeners heard exactly what the live state holds, once, in order")
                    .isEqualTo(java.util.stream.LongStream.rangeClosed(1, live).boxed().toList());
        }
    }

    /** Whether the operation always reaches the store's append path (not a no-op by its own rules). */
    private static boolean writes(ReplayPropertyTest.Op op) {
        return op instanceof ReplayPropertyTest.Message;
    }

    /** A fresh engine on the first {@code upTo} events the store holds. */
    private static MemoryEngine replayOf(FaultyEventStore store, Partition p, long upTo, TestClock clock) {
        InMemoryEventStore copy = new InMemoryEventStore();
        List<StoredEvent> events = store.underlying().read(p, 0).subList(0, (int) upTo);
        if (!events.isEmpty()) {
            copy.append(p, 0, events);
        }
        return MemoryEngine.builder().store(copy).clock(clock).ttl(Kind.OBSERVATION, Duration.ofHours(2)).build();
    }

    /** Everything the public read API serves of ALICE, from the live state. */
    static Map<String, Object> reads(MemoryEngine engine) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (Scope s : SCOPES) {
            out.put("view " + s, engine.view(ALICE, s));
            for (MemoryKey k : KEYS) {
                out.put("history " + s + " " + k, engine.history(ALICE, s, k));
            }
        }
        out.put("tasks", engine.tasks().userTasks(ALICE));
        out.put("window s1", engine.messages().window(ALICE, "s1"));
        for (int i = 1; i <= 3; i++) {
            out.put("action " + i, engine.ledger().action(ALICE, "op-" + i));
        }
        for (String alias : List.of("my earbuds", "the order ending in 15", "the jacket")) {
            try {
                out.put("alias " + alias, engine.aliases().resolve(ALICE, alias));
            } catch (RuntimeException ambiguous) {
                out.put("alias " + alias, ambiguous.getMessage());
            }
        }
        out.put("revision-free record count", engine.servable(ALICE, Layer.PERSISTENT).size());
        return out;
    }
}

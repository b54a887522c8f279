package dev.agentmemory.core;

import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.engine.MemoryEngine.Messages;
import dev.agentmemory.core.event.LoggedEvent;
import dev.agentmemory.core.internal.state.MemoryState;
import dev.agentmemory.core.event.StoredMessage;
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

import static org.assertj.core.api.Assertions.assertThat;
import dev.agentmemory.core.MemoryRecord.Status;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.ScopeView.KeyState;

/**
 * For random operation sequences, the state the engine serves equals a replay of its log at
 * every sequence number: after each operation the live state equals replay(log) (the audit
 * compares them), and at the end, for every sequence the live engine passed through, the
 * replay of the log prefix equals the state seen then and {@code asOfSequence} serves exactly
 * the views that were served live.
 */
class ReplayPropertyTest {

    static final Caller ALICE = Caller.of("shop", "alice");
    static final List<Scope> SCOPES = List.of(ALICE.persistent(), ALICE.session("s1"), ALICE.session("s2"),
            ALICE.task("s1", "t1"), ALICE.task("s1", "t2"));
    static final List<MemoryKey> KEYS = List.of(MemoryKey.of("a"), MemoryKey.of("b"), MemoryKey.of("order:1.color"));
    static final List<String> TASKS = List.of("t1", "t2");

    /** One random operation. */
    sealed interface Op {
        void apply(MemoryEngine engine, TestClock clock);
    }

    record Set(int scope, int key, String value, Kind kind, Source source) implements Op {
        public void apply(MemoryEngine engine, TestClock clock) {
            engine.propose(ALICE, Proposal.set(SCOPES.get(scope), KEYS.get(key), MemoryValue.of(value)).kind(kind)
                    .source(source).build());
        }
    }

    record Append(int scope, int key, String value) implements Op {
        public void apply(MemoryEngine engine, TestClock clock) {
            engine.propose(ALICE, Proposal.append(SCOPES.get(scope), KEYS.get(key), MemoryValue.of(value))
                    .kind(Kind.OBSERVATION).build());
        }
    }

    record Invalidate(int scope, int key) implements Op {
        public void apply(MemoryEngine engine, TestClock clock) {
            engine.propose(ALICE, Proposal.invalidate(SCOPES.get(scope), KEYS.get(key)).build());
        }
    }

    record TaskStep(int step, int task) implements Op {
        public void apply(MemoryEngine engine, TestClock clock) {
            String t = TASKS.get(task);
            try {
                switch (step) {
                    case 0 -> engine.tasks().start(ALICE, "s1", t, "task " + t);
                    case 1 -> engine.tasks().suspend(ALICE, "s1", t);
                    case 2 -> engine.tasks().resume(ALICE, "s1", t);
                    default -> engine.tasks().end(ALICE, "s1", t);
                }
            } catch (IllegalStateException invalidTransition) {
                // part of the random walk: the state must not have moved
            }
        }
    }

    record ForgetSoft(int what, int scope, int key) implements Op {
        public void apply(MemoryEngine engine, TestClock clock) {
            ForgetTarget target = switch (what) {
                case 0 -> ForgetTarget.key(SCOPES.get(scope), KEYS.get(key));
                case 1 -> ForgetTarget.scope(SCOPES.get(scope));
                default -> ForgetTarget.messages("s1", List.of((long) key));
            };
            engine.forget(ALICE, target, ForgetMode.SOFT);
        }
    }

    record Alias(int entity, String alias) implements Op {
        public void apply(MemoryEngine engine, TestClock clock) {
            engine.aliases().register(ALICE, "order:" + entity, alias);
        }
    }

    record Action(boolean complete, int id) implements Op {
        public void apply(MemoryEngine engine, TestClock clock) {
            String op = "op-" + id;
            if (complete) {
                if (engine.ledger().action(ALICE, op).isPresent()) {
                    engine.ledger().complete(ALICE, op, id % 2 == 0, MemoryValue.of("done " + id));
                }
            } else {
                engine.ledger().begin(ALICE, op, "refund", MemoryValue.of(id));
            }
        }
    }

    record Message(String text, boolean evictOldest) implements Op {
        public void apply(MemoryEngine engine, TestClock clock) {
            engine.messages().change(ALICE, "s1", window -> {
                long next = engine.admin().replay(ALICE).history("s1").isEmpty() ? 0
                        : engine.admin().replay(ALICE).history("s1").lastKey() + 1;
                List<Long> evicted = evictOldest && !window.isEmpty() ? List.of(window.get(0).index()) : List.of();
                return new Messages.WindowChange(evicted,
                        List.of(new StoredMessage(next, next, "USER", "{\"text\":\"" + text + "\"}", text)));
            });
        }
    }

    record Advance(int hours) implements Op {
        public void apply(MemoryEngine engine, TestClock clock) {
            clock.advance(Duration.ofHours(hours));
            engine.verification().expireDue(ALICE);
        }
    }

    record ConfirmLatest() implements Op {
        public void apply(MemoryEngine engine, TestClock clock) {
            List<MemoryRecord> live = engine.admin().replay(ALICE).records().stream()
                    .filter(r -> r.status() != Status.FORGOTTEN).toList();
            if (!live.isEmpty()) {
                engine.verification().confirm(ALICE, live.get(live.size() - 1).id());
            }
        }
    }

    record Collect() implements Op {
        public void apply(MemoryEngine engine, TestClock clock) {
            engine.admin().collect(ALICE);
        }
    }

    @Provide
    Arbitrary<List<Op>> operations() {
        Arbitrary<Integer> scope = Arbitraries.integers().between(0, SCOPES.size() - 1);
        Arbitrary<Integer> key = Arbitraries.integers().between(0, KEYS.size() - 1);
        Arbitrary<String> value = Arbitraries.of("white", "black", "red", "42");
        Arbitrary<Op> set = Combinators.combine(scope, key, value, Arbitraries.of(Kind.class), Arbitraries.of(Source.class))
                .as(Set::new);
        Arbitrary<Op> append = Combinators.combine(scope, key, value).as(Append::new);
        Arbitrary<Op> invalidate = Combinators.combine(scope, key).as(Invalidate::new);
        Arbitrary<Op> task = Combinators.combine(Arbitraries.integers().between(0, 3),
                Arbitraries.integers().between(0, TASKS.size() - 1)).as(TaskStep::new);
        Arbitrary<Op> forget = Combinators.combine(Arbitraries.integers().between(0, 2), scope, key).as(ForgetSoft::new);
        Arbitrary<Op> alias = Combinators.combine(Arbitraries.integers().between(1, 3),
                Arbitraries.of("my earbuds", "the order ending in 15", "the jacket")).as(Alias::new);
        Arbitrary<Op> action = Combinators.combine(Arbitraries.of(true, false), Arbitraries.integers().between(1, 3))
                .as(Action::new);
        Arbitrary<Op> message = Combinators.combine(Arbitraries.of("hi", "white please", "thanks"), Arbitraries.of(true, false))
                .as(Message::new);
        Arbitrary<Op> advance = Arbitraries.integers().between(1, 3).map(Advance::new);
        Arbitrary<Op> confirm = Arbitraries.just(new ConfirmLatest());
        Arbitrary<Op> collect = Arbitraries.just(new Collect());
        return Arbitraries.frequencyOf(
                Tuple.of(8, set), Tuple.of(3, append), Tuple.of(2, invalidate), Tuple.of(4, task), Tuple.of(2, forget),
                Tuple.of(1, alias), Tuple.of(2, action), Tuple.of(2, message), Tuple.of(2, advance), Tuple.of(1, confirm),
                Tuple.of(1, collect)).list().ofMinSize(1).ofMaxSize(30);
    }

    @Property(tries = 120)
    void live_state_equals_replay_of_the_log_at_every_sequence(@ForAll("operations") List<Op> ops) {
        TestClock clock = TestClock.start();
        MemoryEngine engine = MemoryEngine.builder().clock(clock).ttl(Kind.OBSERVATION, Duration.ofHours(2)).build();
        Map<Long, MemoryState> stateAt = new LinkedHashMap<>();
        Map<Long, List<ScopeView>> viewsAt = new LinkedHashMap<>();
        long seen = 0;

        for (Op op : ops) {
            op.apply(engine, clock);

            assertThat(engine.admin().audit(ALICE, Duration.ofDays(1)).replayMatches()).as("live == replay(log) after %s", op).isTrue();
            long seq = engine.admin().log(ALICE).size();
            if (seq > seen) {
                stateAt.put(seq, engine.admin().replay(ALICE));
                List<ScopeView> views = new ArrayList<>();
                SCOPES.forEach(s -> views.add(engine.view(ALICE, s)));
                viewsAt.put(seq, views);
                seen = seq;
            }
        }

        List<LoggedEvent> log = engine.admin().log(ALICE);
        assertThat(log).extracting(LoggedEvent::seq).containsExactlyElementsOf(
                java.util.stream.LongStream.rangeClosed(1, log.size()).boxed().toList());
        java.util.Set<String> erased = new java.util.HashSet<>();
        log.forEach(e -> {
            if (e.change() instanceof dev.agentmemory.core.event.Change.RecordsForgotten f && f.erased()) {
                erased.addAll(f.ids());
            }
        });
        for (long seq = 0; seq <= log.size(); seq++) {
            MemoryState prefix = MemoryState.replay(log.subList(0, (int) seq));
            assertThat(prefix.lastSeq()).isEqualTo(seq);
            if (stateAt.containsKey(seq)) {
                assertThat(prefix).as("replay of the first %d events", seq).isEqualTo(stateAt.get(seq));
                for (int i = 0; i < SCOPES.size(); i++) {
                    assertThat(engine.asOfSequence(ALICE, SCOPES.get(i), seq)).as("%s as of seq %d", SCOPES.get(i), seq)
                            .isEqualTo(withoutErased(viewsAt.get(seq).get(i), erased));
                }
            }
        }
    }

    /** What a read of the past serves of a view seen live: values the user later forgot are gone from it too. */
    private static ScopeView withoutErased(ScopeView live, java.util.Set<String> erased) {
        List<KeyState> keys = new ArrayList<>();
        for (KeyState k : live.keys()) {
            MemoryRecord current = k.current() != null && erased.contains(k.current().id()) ? null : k.current();
            MemoryRecord expired = k.needsReverification() != null && erased.contains(k.needsReverification().id())
                    ? null : k.needsReverification();
            List<MemoryRecord> conflicts = k.conflicts().stream().filter(r -> !erased.contains(r.id())).toList();
            KeyState kept = new KeyState(k.scope(), k.key(), current, conflicts, expired);
            if (!kept.isEmpty()) {
                keys.add(kept);
            }
        }
        return new ScopeView(live.scope(), keys, live.seq());
    }
}

package dev.agentmemory.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ForgetMode;
import dev.agentmemory.core.ForgetTarget;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord.Access;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.core.MemoryValue;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.Scope.Layer;
import dev.agentmemory.core.ScopeView.KeyState;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.langchain4j.PersistentIndex.Ranked;
import dev.agentmemory.testing.TestClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * One pass over the servable keys ({@link PersistentScan}) ranks exactly what an index built
 * from scratch over the same keys ranks, the same list in the same order with the same scores,
 * in every state of a random history: keys written and rewritten at the same instant and at
 * others (ties broken by key), preferences, validity windows and TTLs as the clock moves, a
 * model's candidates, another agent's private versions, forgets; for queries sharing no term,
 * some, or all of a key's (in other cases, from a char that lower-cases to ASCII, in the key's
 * path), the empty query, and keeps of 0, 1, a few, about the key count and
 * more than every key. And an index that never gets built (each build off the request path
 * fails) answers every query by that pass, as a fresh index would.
 */
class PersistentScanEquivalenceTest {

    private static final List<String> AGENTS = List.of("assistant", "auditor");
    private static final String[] WORDS = {"red", "Blue", "shoes", "order", "delivery", "TUESDAY", "refund", "size",
        "kitchen", "colour", "garden", "hotel", "ΣΟΦΙΑ", "İstanbul", "café", "k12",
        // lower-cases to "kitchen" (a Kelvin sign first): an ASCII term from a non-ASCII char
        "\u212Aitchen", "GardenHotel"};
    private static final List<String> QUERIES = List.of("", "red shoes", "the delivery of my red shoes on tuesday?",
        "nothing matches here", "topic k3 k12 garden", "sofia istanbul café", "blue blue blue", "size",
        "kitchen colour garden hotel refund order shoes");
    private static final int[] KEEPS = {0, 1, 3, 7, 20, 45, 1000};
    private static final int KEYS = 40;
    private static final int STEPS = 120;

    private final TestClock clock = new TestClock(Instant.parse("2026-03-01T10:00:00Z"));

    @ParameterizedTest
    @ValueSource(longs = {11, 12, 13, 14, 15, 16, 17, 18})
    void should_rank_like_a_fresh_index_in_every_state(long seed) {
        try (AgentMemory memory = AgentMemory.builder()
                .engineSettings(e -> e.clock(clock).ttl(Kind.DECISION, Duration.ofHours(5))).build()) {
            MemoryEngine engine = memory.engine();
            // every query needs a build (an empty scope too), every build fails: every query is answered by the pass
            PersistentIndex scanning = new PersistentIndex(engine, PersistentIndex.COMPACT_ABOVE, -1);
            scanning.beforePuttingInPlace(() -> {
                throw new IllegalStateException("planted: this index is never built");
            });
            scanning.attach();
            Random random = new Random(seed);
            long queries = 0;
            for (int step = 0; step < STEPS; step++) {
                String done = act(engine, random);
                for (String agent : AGENTS) {
                    Caller caller = new Caller("acme", "alice", agent);
                    List<KeyState> servable = engine.servableUnordered(caller, Layer.PERSISTENT);
                    for (String query : QUERIES) {
                        Set<String> terms = PersistentIndex.terms(query);
                        for (int keep : KEEPS) {
                            String where = "seed " + seed + " step " + step + " (" + done + "), " + agent + ", '"
                                    + query + "', keep " + keep + ", " + servable.size() + " keys";
                            List<Ranked> fresh = PersistentIndex.fromScratch(engine, caller, terms, keep);
                            assertThat(PersistentScan.top(servable, terms, keep)).as(where).isEqualTo(fresh);
                            if (keep == 3 || keep == 1000) {
                                assertThat(scanning.top(caller, terms, keep)).as(where + ", by the index").isEqualTo(fresh);
                                queries++;
                            }
                        }
                    }
                }
            }
            scanning.detach();
            assertThat(scanning.builds()).as("builds over every key").isZero();
            assertThat(scanning.scans()).as("queries answered by the pass").isEqualTo(queries);
        }
    }

    /** One random operation; says what it was. */
    private String act(MemoryEngine engine, Random random) {
        String agent = AGENTS.get(random.nextInt(4) == 0 ? 1 : 0);
        Caller caller = new Caller("acme", "alice", agent);
        MemoryKey key = MemoryKey.of("topic.k" + random.nextInt(KEYS));
        int op = random.nextInt(100);
        try {
            if (op < 60) {
                // several writes at one instant: ties of recordedAt, broken by key
                int writes = 1 + random.nextInt(4);
                for (int i = 0; i < writes; i++) {
                    write(engine, caller, i == 0 ? key : MemoryKey.of("topic.k" + random.nextInt(KEYS)), random);
                }
                return writes + " writes from " + key + " by " + agent;
            } else if (op < 80) {
                Duration by = Duration.ofMinutes(random.nextInt(180));
                clock.advance(by);
                return "clock +" + by;
            } else if (op < 86) {
                engine.forget(caller, ForgetTarget.key(caller.persistent(), key),
                        random.nextBoolean() ? ForgetMode.HARD : ForgetMode.SOFT);
                return "forget " + key;
            } else if (op < 88) {
                engine.forget(caller, ForgetTarget.scope(caller.persistent()), ForgetMode.SOFT);
                return "forget the persistent scope";
            } else if (op < 95) {
                return "expire due: " + engine.verification().expireDue(caller);
            } else {
                engine.write(caller, Proposal.set(caller.session("s1"), key, MemoryValue.of(words(random)))
                        .kind(Kind.DECISION).source(Source.USER).build());
                return "session write " + key;
            }
        } catch (RuntimeException e) {
            return "refused: " + e.getMessage();
        }
    }

    private void write(MemoryEngine engine, Caller caller, MemoryKey key, Random random) {
        Proposal.Builder p = Proposal.set(caller.persistent(), key, MemoryValue.of(words(random)));
        int kind = random.nextInt(10);
        p.kind(kind < 2 ? Kind.PREFERENCE : kind < 4 ? Kind.OBSERVATION : Kind.DECISION);
        p.source(kind < 2 || random.nextInt(5) > 0 ? Source.USER : Source.MODEL);
        if (random.nextInt(4) == 0) {
            Instant from = clock.instant().plus(Duration.ofMinutes(random.nextInt(240) - 120));
            p.validity(from, random.nextBoolean() ? from.plus(Duration.ofMinutes(20 + random.nextInt(200))) : null);
        }
        if (random.nextInt(5) == 0) {
            p.ttl(Duration.ofMinutes(10 + random.nextInt(200)));
        }
        if (random.nextInt(5) == 0) {
            p.access(Access.PRIVATE);
        }
        engine.propose(caller, p.build());
    }

    private static String words(Random random) {
        StringBuilder s = new StringBuilder();
        for (int i = 1 + random.nextInt(4); i > 0; i--) {
            s.append(WORDS[random.nextInt(WORDS.length)]).append(random.nextInt(6) == 0 ? ", " : " ");
        }
        return s.toString().strip();
    }
}

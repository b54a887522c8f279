package dev.agentmemory.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ForgetMode;
import dev.agentmemory.core.ForgetTarget;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
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
import java.util.UUID;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The persistent index, kept up to date change by change, ranks after every step of a random
 * history exactly what a build from scratch ranks and what sorting {@link MemoryEngine#servable}
 * by {@link PersistentIndex#RANKING} gives: writes and updates of a few keys (preferences,
 * decisions, a model's candidates, private records of another agent, validity windows, TTLs),
 * forgets of a key, of the scope and of the user, verifications, the clock moving across
 * windows and deadlines, tasks and aliases, reloads of the engine's state, and a second instance
 * on the same database whose writes the first one follows.
 */
class PersistentIndexEquivalenceTest {

    private static final String TENANT = "acme";
    private static final String USER = "alice";
    private static final List<String> AGENTS = List.of("assistant", "auditor");
    private static final String[] WORDS = {"red", "blue", "shoes", "order", "delivery", "tuesday", "refund", "size",
        "kitchen", "colour", "garden", "hotel"};
    private static final List<String> QUERIES = List.of("when is the delivery of my red shoes?", "refund size",
        "kitchen colour garden hotel", "nothing matches here", "", "topic k3 tuesday");
    /** Values that are not plain strings, or strings with escapes: their text is read another way. */
    private static final List<String> JSON_VALUES = List.of("\"the \\\"red\\\" shoes\"", "\"size\\\\refund\"",
            "{\"colour\":\"blue\",\"size\":42}", "[\"garden\",\"hotel\"]", "12345", "true", "\"tab\\there delivery\"",
            "\"\"", "\"kitchen \\u00e9t\u00e9\"");
    private static final int KEYS = 14;
    private static final int STEPS = 160;

    private final TestClock clock = new TestClock(Instant.parse("2026-03-01T10:00:00Z"));

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6})
    void should_rank_like_a_fresh_build_and_like_servable_after_every_step(long seed) {
        JdbcDataSource database = new JdbcDataSource();
        database.setURL("jdbc:h2:mem:pidx-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        try (AgentMemory a = instance(database); AgentMemory b = instance(database)) {
            List<MemoryEngine> engines = List.of(a.engine(), b.engine());
            // odd seeds sort every key again after two changes, to exercise that too
            int compactAbove = seed % 2 == 1 ? 2 : PersistentIndex.COMPACT_ABOVE;
            List<PersistentIndex> indexes = List.of(attached(a.engine(), compactAbove), attached(b.engine(), compactAbove));
            Random random = new Random(seed);
            int userForgets = 0;
            int unknownChanges = 0;
            for (int step = 0; step < STEPS; step++) {
                int on = random.nextInt(4) == 0 ? 1 : 0;
                String done = act(engines.get(on), random);
                if (random.nextInt(12) == 0) {
                    // the other instance writes, and this one reloads the user from the store before
                    // anything follows that write: its index cannot tell what changed and builds again
                    done += "; " + act(engines.get(1 - on), random) + " on the other, then reload";
                    engines.get(on).admin().invalidateCache();
                    unknownChanges++;
                }
                userForgets += done.contains("forget the user") ? 1 : 0;
                for (int i = 0; i < engines.size(); i++) {
                    for (String agent : AGENTS) {
                        Caller caller = new Caller(TENANT, USER, agent);
                        for (String query : QUERIES) {
                            for (int keep : new int[] {1, 4, 100}) {
                                String where = "seed " + seed + " step " + step + " (" + done + " on " + on
                                        + "), instance " + i + ", " + agent + ", '" + query + "', keep " + keep;
                                Set<String> terms = PersistentIndex.terms(query);
                                List<Ranked> expected = bySortingServable(engines.get(i), caller, terms, keep);
                                List<Ranked> got = indexes.get(i).top(caller, terms, keep);
                                assertThat(got).as(where).isEqualTo(expected);
                                assertThat(PersistentIndex.fromScratch(engines.get(i), caller, terms, keep)).as(where)
                                        .isEqualTo(expected);
                            }
                        }
                    }
                }
            }
            // and kept up to date change by change: built again only when the user was forgotten whole
            for (PersistentIndex index : indexes) {
                assertThat(index.builds()).as("full builds").isLessThanOrEqualTo((userForgets + unknownChanges + 1L) * AGENTS.size());
            }
            indexes.forEach(PersistentIndex::detach);
        }
    }

    private AgentMemory instance(JdbcDataSource database) {
        return AgentMemory.builder().dataSource(database)
                .engineSettings(e -> e.clock(clock).ttl(Kind.DECISION, Duration.ofHours(5))).build();
    }

    private static PersistentIndex attached(MemoryEngine engine, int compactAbove) {
        PersistentIndex index = new PersistentIndex(engine, compactAbove);
        index.attach();
        return index;
    }

    /** One random operation on {@code engine}; says what it was. */
    private String act(MemoryEngine engine, Random random) {
        String agent = AGENTS.get(random.nextInt(AGENTS.size()));
        Caller caller = new Caller(TENANT, USER, agent);
        MemoryKey key = MemoryKey.of("topic.k" + random.nextInt(KEYS));
        int op = random.nextInt(100);
        try {
            if (op < 45) {
                MemoryValue value = random.nextInt(8) == 0 ? MemoryValue.parse(JSON_VALUES.get(random.nextInt(JSON_VALUES.size())))
                        : MemoryValue.of(words(random));
                Proposal.Builder p = Proposal.set(caller.persistent(), key, value);
                int kind = random.nextInt(10);
                p.kind(kind == 0 ? Kind.PREFERENCE : kind < 3 ? Kind.OBSERVATION : Kind.DECISION);
                p.source(kind == 0 ? Source.USER : random.nextInt(5) == 0 ? Source.MODEL : Source.USER);
                if (random.nextInt(4) == 0) {
                    Instant from = clock.instant().plus(Duration.ofMinutes(random.nextInt(360) - 120));
                    p.validity(from, random.nextBoolean() ? from.plus(Duration.ofMinutes(30 + random.nextInt(300))) : null);
                }
                if (random.nextInt(5) == 0) {
                    p.ttl(Duration.ofMinutes(10 + random.nextInt(200)));
                }
                if (random.nextInt(6) == 0) {
                    p.access(Access.PRIVATE);
                }
                Proposal.Outcome outcome = engine.propose(caller, p.build());
                return "write " + key + " by " + agent + ": " + outcome.result();
            } else if (op < 60) {
                Duration by = Duration.ofMinutes(random.nextInt(240));
                clock.advance(by);
                return "clock +" + by;
            } else if (op < 65) {
                engine.forget(caller, ForgetTarget.key(caller.persistent(), key),
                        random.nextBoolean() ? ForgetMode.HARD : ForgetMode.SOFT);
                return "forget " + key;
            } else if (op < 66) {
                engine.forget(caller, ForgetTarget.scope(caller.persistent()), ForgetMode.SOFT);
                return "forget the persistent scope";
            } else if (op < 67) {
                engine.forget(caller, ForgetTarget.user(), ForgetMode.HARD);
                return "forget the user";
            } else if (op < 75) {
                List<KeyState> servable = engine.servable(caller, Layer.PERSISTENT);
                if (servable.isEmpty()) {
                    return "nothing to verify";
                }
                MemoryRecord r = PersistentIndex.representative(servable.get(random.nextInt(servable.size())));
                if (random.nextBoolean()) {
                    engine.verification().confirm(caller, r.id());
                    return "confirm " + r.key();
                }
                engine.verification().refute(caller, r.id(), "not so");
                return "refute " + r.key();
            } else if (op < 80) {
                return "expire due: " + engine.verification().expireDue(caller);
            } else if (op < 85) {
                String task = "t" + random.nextInt(3);
                if (random.nextBoolean()) {
                    engine.tasks().start(caller, "s1", task, null);
                    return "start " + task;
                }
                engine.tasks().end(caller, "s1", task);
                return "end " + task;
            } else if (op < 88) {
                engine.aliases().register(caller, "order:" + random.nextInt(5), "the " + WORDS[random.nextInt(WORDS.length)]);
                return "alias";
            } else if (op < 93) {
                engine.admin().invalidateCache();
                return "reload";
            } else {
                engine.write(caller, Proposal.set(caller.session("s1"), key, MemoryValue.of(words(random)))
                        .kind(Kind.DECISION).source(Source.USER).build());
                return "session write " + key;
            }
        } catch (RuntimeException e) {
            // a refused operation (an unknown task, a forgotten record to verify) changes nothing
            return "refused: " + e.getMessage();
        }
    }

    private static String words(Random random) {
        StringBuilder s = new StringBuilder();
        for (int i = 1 + random.nextInt(3); i > 0; i--) {
            s.append(WORDS[random.nextInt(WORDS.length)]).append(' ');
        }
        return s.toString().strip();
    }

    /** The documented ranking, applied by sorting every servable key of the layer. */
    static List<Ranked> bySortingServable(MemoryEngine engine, Caller caller, Set<String> terms, int keep) {
        List<Ranked> all = new ArrayList<>();
        for (KeyState k : engine.servable(caller, Layer.PERSISTENT)) {
            MemoryRecord r = PersistentIndex.representative(k);
            Set<String> item = PersistentIndex.terms(k.key().path().replace('.', ' ') + " " + r.text());
            long shared = terms.stream().filter(item::contains).count();
            all.add(new Ranked(k, terms.isEmpty() ? 0 : (double) shared / terms.size(), r.kind() == Kind.PREFERENCE,
                    r.recordedAt()));
        }
        all.sort(PersistentIndex.RANKING);
        return all.subList(0, Math.min(keep, all.size()));
    }
}

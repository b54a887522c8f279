package dev.agentmemory.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ForgetMode;
import dev.agentmemory.core.ForgetTarget;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.langchain4j.PersistentIndex.Ranked;
import dev.agentmemory.testing.TestClock;
import java.time.Duration;
import java.time.Instant;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.rag.query.Metadata;
import dev.langchain4j.rag.query.Query;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Above {@code scanAbove} servable keys, the first query passes over the keys and the index is
 * built on the index's own thread; the queries after the build use it (no further pass, no
 * further build) and rank what a fresh index ranks, whatever happened around the build: a
 * commit before it, during it (after the key states it is built from were read, before it is in
 * place) or after it, a forget of a key or of the whole user during it, the clock passing a
 * validity window's edge during it, queries during it (after a change, after the clock passed
 * an edge, with nothing changed), more changes during it than the index
 * follows, a build that fails. "During" is made deterministic by holding the builder's thread
 * between the build and putting it in place. The builder's thread ends with {@code detach}, and
 * so with {@link AgentMemory#close} for the memory's own index.
 */
class PersistentIndexBackgroundBuildTest {

    private static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");
    private static final int KEYS = 30;
    private static final int SCAN_ABOVE = 10;
    private static final Set<String> QUERY = PersistentIndex.terms("the garden trip, zebrafish and a filler note");
    /** Largest first: a query during the build that ranks from stale key states shows it at once. */
    private static final int[] KEEPS = {100, 3, 1, 0};

    /** One row: what happens before the first query, while the build is held, after it is in place. */
    record Case(String name, Step before, Step during, Step after, boolean firstBuildFails, long builds, long scans) {
        @Override
        public String toString() {
            return name;
        }
    }

    @FunctionalInterface
    interface Step {
        void run(World w);
    }

    /** The memory, the index under test and its clock. */
    record World(AgentMemory memory, PersistentIndex index, TestClock clock, Caller caller) {
        MemoryEngine engine() {
            return memory.engine();
        }

        void write(String key, String value) {
            engine().write(caller, Proposal.set(caller.persistent(), key, value).kind(Kind.DECISION)
                    .source(Source.USER).build());
        }

        /** Asks the index and a fresh build the same queries; they must agree. */
        void ranksLikeFresh(String when) {
            for (int keep : KEEPS) {
                List<Ranked> fresh = PersistentIndex.fromScratch(engine(), caller, QUERY, keep);
                assertThat(index.top(caller, QUERY, keep)).as(when + ", keep " + keep).isEqualTo(fresh);
            }
        }

        /** One query (a second one might find a build under way, or not). */
        void ranksOnceLikeFresh(String when) {
            assertThat(index.top(caller, QUERY, 5)).as(when).isEqualTo(PersistentIndex.fromScratch(engine(), caller, QUERY, 5));
        }

        /** Whether the index ranks {@code key} with a current value. */
        boolean current(String key) {
            return index.top(caller, QUERY, 1000).stream().anyMatch(r -> r.key().key().path().equals(key)
                    && r.key().current() != null);
        }

        List<String> keys() {
            return index.top(caller, QUERY, 1000).stream().map(r -> r.key().key().path()).toList();
        }
    }

    private static final Step NOTHING = w -> { };

    static Stream<Case> cases() {
        return Stream.of(
                new Case("commit before the build", w -> w.write("note.before", "garden before"), NOTHING,
                        w -> assertThat(w.keys()).contains("note.before"), false, 1, 1),
                new Case("commits during the build", NOTHING, w -> {
                    w.write("note.during", "garden during");
                    w.write("topic.k3", "rewritten trip");
                }, w -> assertThat(w.keys()).contains("note.during"), false, 1, 1),
                new Case("commit after the build", NOTHING, NOTHING, w -> {
                    w.write("note.after", "garden after");
                    assertThat(w.keys()).contains("note.after");
                }, false, 1, 1),
                new Case("forget of a key during the build", NOTHING, w -> w.engine().forget(w.caller(),
                        ForgetTarget.key(w.caller().persistent(), MemoryKey.of("secret.pin")), ForgetMode.HARD), w -> {
                    assertThat(w.index().holdsTerm(w.caller(), "zebrafish")).as("a forgotten value's term").isFalse();
                    assertThat(w.keys()).doesNotContain("secret.pin");
                }, false, 1, 1),
                new Case("forget of the user during the build: the build is dropped", NOTHING,
                        w -> w.engine().forget(w.caller(), ForgetTarget.user(), ForgetMode.HARD), w -> {
                    assertThat(w.index().builds()).as("the dropped build").isZero();
                    assertThat(w.index().holdsTerm(w.caller(), "filler")).isFalse();
                    // no key left: the next query builds the (empty) index itself
                    assertThat(w.keys()).isEmpty();
                }, false, 1, 1),
                new Case("a window's edge passes during the build",
                        w -> assertThat(PersistentIndex.fromScratch(w.engine(), w.caller(), QUERY, 1000).stream()
                                .anyMatch(r -> r.key().key().path().equals("trip.window") && r.key().current() != null))
                                .as("current before").isTrue(),
                        w -> w.clock().advance(Duration.ofMinutes(15)),
                        w -> assertThat(w.current("trip.window")).as("current after its window closed").isFalse(), false, 1, 1),
                new Case("a query during the build passes over the keys again", NOTHING, w -> {
                    w.write("note.during", "garden during");
                    assertTimeoutPreemptively(Duration.ofMinutes(2), () -> w.ranksLikeFresh("while the build is held"),
                            "a query waited for the build");
                    assertThat(w.index().scans()).isEqualTo(1 + KEEPS.length);
                }, NOTHING, false, 1, 1 + KEEPS.length),
                new Case("queries during the build with nothing changed pass over the same key states", NOTHING,
                        w -> w.ranksLikeFresh("while the build is held"), NOTHING, false, 1, 1 + KEEPS.length),
                new Case("a window's edge passes, then queries during the build", NOTHING, w -> {
                    w.clock().advance(Duration.ofMinutes(15));
                    w.ranksLikeFresh("after the edge, while the build is held");
                }, w -> assertThat(w.current("trip.window")).isFalse(), false, 1, 1 + KEEPS.length),
                new Case("more changes during the build than the index follows: built again", NOTHING, w -> {
                    for (int i = 0; i < 70; i++) {
                        w.write("note.many" + i, "filler " + i);
                    }
                }, w -> {
                    // the first build is in place but cannot tell what changed: a pass and a second build
                    w.ranksOnceLikeFresh("after the first build");
                    awaitBuilds(w.index());
                }, false, 2, 2),
                new Case("the first build fails: the next query builds again", NOTHING, NOTHING, w -> {
                    assertThat(w.index().builds()).isZero();
                    w.ranksOnceLikeFresh("after the failed build");
                    awaitBuilds(w.index());
                }, true, 1, 2));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void should_use_the_index_built_off_the_request_path_with_what_happened_meanwhile(Case c) throws Exception {
        TestClock clock = new TestClock(T0);
        try (AgentMemory memory = AgentMemory.builder().engineSettings(e -> e.clock(clock)).build()) {
            Caller caller = new Caller("acme", "alice", "assistant");
            PersistentIndex index = new PersistentIndex(memory.engine(), PersistentIndex.COMPACT_ABOVE, SCAN_ABOVE);
            index.attach();
            World w = new World(memory, index, clock, caller);
            fill(w);
            c.before().run(w);
            CountDownLatch built = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            AtomicReference<Thread> builder = new AtomicReference<>();
            AtomicBoolean failed = new AtomicBoolean();
            index.beforePuttingInPlace(() -> {
                builder.set(Thread.currentThread());
                if (c.firstBuildFails() && failed.compareAndSet(false, true)) {
                    built.countDown();
                    throw new IllegalStateException("planted: the first build fails");
                }
                built.countDown();
                awaitUninterruptibly(release);
            });

            // when: the first query, with a build needed over more than SCAN_ABOVE keys
            List<Ranked> first = index.top(caller, QUERY, 100);

            // then: answered by a pass, like a fresh index, while the build is held before it is in place
            assertThat(first).isEqualTo(PersistentIndex.fromScratch(memory.engine(), caller, QUERY, 100));
            assertThat(index.scans()).isEqualTo(1);
            assertThat(index.builds()).isZero();
            built.await();
            assertThat(builder.get().getName()).isEqualTo(index.builderThread()).startsWith(PersistentIndex.BUILDER_THREAD);
            assertThat(builder.get().isDaemon()).isTrue();
            c.during().run(w);
            release.countDown();
            index.awaitBuilds();
            c.after().run(w);

            // then: later queries use the index, with every change, and build nothing more
            w.ranksLikeFresh(c.name() + ", after the build");
            w.ranksLikeFresh(c.name() + ", again");
            assertThat(index.builds()).as("builds over every key").isEqualTo(c.builds());
            assertThat(index.scans()).as("queries answered by a pass over the keys").isEqualTo(c.scans());

            // and: detach ends the builder's thread
            index.detach();
            assertThat(builder.get().isAlive()).as("the builder's thread after detach").isFalse();
        }
    }

    @Test
    void should_start_the_build_a_request_asked_for_only_when_the_request_returns() throws Exception {
        TestClock clock = new TestClock(T0);
        try (AgentMemory memory = AgentMemory.builder().engineSettings(e -> e.clock(clock)).build()) {
            Caller caller = new Caller("acme", "alice", "assistant");
            PersistentIndex index = new PersistentIndex(memory.engine(), PersistentIndex.COMPACT_ABOVE, SCAN_ABOVE);
            index.attach();
            World w = new World(memory, index, clock, caller);
            fill(w);

            // when: a request's queries need the index (more than SCAN_ABOVE keys)
            List<Ranked> inRequest = index.deferringBuilds(() -> {
                List<Ranked> first = index.top(caller, QUERY, 5);
                // a nested request leaves the start to the outer one
                index.deferringBuilds(() -> index.top(caller, QUERY, 5));
                // then: nothing was handed to the builder while the request runs
                assertThat(index.builderStarted()).as("a builder started during the request").isFalse();
                return first;
            });

            // then: answered by passes over the keys, and the build starts once the request returned
            assertThat(inRequest).isEqualTo(PersistentIndex.fromScratch(memory.engine(), caller, QUERY, 5));
            assertThat(index.scans()).isEqualTo(2);
            assertThat(index.builderStarted()).isTrue();
            index.awaitBuilds();
            assertThat(index.builds()).isEqualTo(1);
            w.ranksLikeFresh("after the deferred build");
            assertThat(index.scans()).as("no pass after the build").isEqualTo(2);
            index.detach();
        }
    }

    @Test
    void should_end_the_builders_thread_when_the_memory_closes() {
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        List<Thread> started;
        SessionRef session = new SessionRef("acme", "bob", "chat");
        try (AgentMemory memory = AgentMemory.builder().build()) {
            Caller caller = memory.caller(session);
            // given: more keys than are indexed on the request path
            for (int i = 0; i <= PersistentIndex.SCAN_ABOVE; i++) {
                memory.engine().write(caller, Proposal.set(caller.persistent(), "topic.k" + i, "filler note " + i)
                        .kind(Kind.DECISION).source(Source.USER).build());
            }
            String question = "which filler note?";

            // when: a recall ranks them
            memory.contentRetriever().retrieve(Query.from(question, Metadata.builder()
                    .chatMessage(UserMessage.from(question))
                    .invocationContext(InvocationContext.builder().chatMemoryId(session).build()).build()));

            // then: the memory's index is built on a thread of its own
            started = Thread.getAllStackTraces().keySet().stream().filter(t -> !before.contains(t))
                    .filter(t -> t.getName().startsWith(PersistentIndex.BUILDER_THREAD)).toList();
            assertThat(started).hasSize(1);
        }
        // and: the thread ends with the memory
        assertThat(started.get(0).isAlive()).as("the builder's thread after close").isFalse();
    }

    private static void fill(World w) {
        for (int i = 0; i < KEYS; i++) {
            w.write("topic.k" + i, (i % 3 == 0 ? "garden " : "") + "filler note " + i);
        }
        w.write("secret.pin", "zebrafish marmalade");
        w.engine().write(w.caller(), Proposal.set(w.caller().persistent(), "trip.window", "garden trip")
                .kind(Kind.OBSERVATION).source(Source.USER).validity(T0.minus(Duration.ofHours(1)),
                        T0.plus(Duration.ofMinutes(10))).build());
        w.engine().write(w.caller(), Proposal.set(w.caller().persistent(), "style.tone", "short answers")
                .kind(Kind.PREFERENCE).source(Source.USER).build());
    }

    private static void awaitBuilds(PersistentIndex index) {
        try {
            index.awaitBuilds();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        boolean interrupted = false;
        while (true) {
            try {
                latch.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}

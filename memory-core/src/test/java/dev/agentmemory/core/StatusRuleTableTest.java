package dev.agentmemory.core;

import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.TaskInfo;
import dev.agentmemory.testing.TestClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.Proposal.Outcome;
import dev.agentmemory.core.StatusRule.ItemStatus;
import dev.agentmemory.core.ScopeView.KeyState;

/**
 * The README's table "How a read labels an item", checked over every combination of what the
 * record is (the version that stands, one replaced since, one followed by a version whose window
 * has not begun, a conflict candidate), its task (none, active, suspended, ended, moved to another
 * session and put aside there), its re-verify deadline (none, ahead, passed), its validity window
 * (none, not begun, in window, ended) and the form it reaches the model in (session or task state,
 * persistent memory, a past message stating it, a summary built from it). Each case is written
 * through the engine with a clock that is then moved to the time of the read; the expected status
 * is the first row of the table that matches. The engine's own reads (current, keyState, view,
 * applicableAt, asOf) must agree with the status.
 */
class StatusRuleTableTest {

    enum Version { STANDS, REPLACED, BEFORE_UPCOMING, CONFLICT_CANDIDATE }

    enum Task { NONE, ACTIVE, SUSPENDED, ENDED, MOVED }

    enum Expiry { NONE, AHEAD, PASSED }

    enum Validity { NONE, NOT_BEGUN, IN_WINDOW, ENDED }

    enum Form { STATE, PERSISTENT, MESSAGE, SUMMARY }

    record Case(Version version, Task task, Expiry expiry, Validity validity, Form form) {
        boolean taskState() {
            return task != Task.NONE;
        }
    }

    /** One row of the README table: when it matches, the status it gives. */
    record Row(String when, Predicate<Case> matches, ItemStatus status) {
    }

    /** What the record's own window says at the time of the read. */
    static boolean windowNotBegun(Case c) {
        return c.validity() == Validity.NOT_BEGUN;
    }

    static boolean windowEnded(Case c) {
        return c.validity() == Validity.ENDED;
    }

    /** Whether the record is the version of its key that applies at the time of the read. */
    static boolean applies(Case c) {
        return (c.version() == Version.STANDS || c.version() == Version.BEFORE_UPCOMING)
                && !windowNotBegun(c) && !windowEnded(c);
    }

    /** The README table, top row first; the first row that matches decides. */
    static final List<Row> TABLE = List.of(
            new Row("replaced by a version that applies now (or refuted)", c -> c.version() == Version.REPLACED,
                    ItemStatus.SUPERSEDED),
            new Row("state of a task that ended", c -> c.task() == Task.ENDED, ItemStatus.ARCHIVED),
            new Row("its validity window ended", StatusRuleTableTest::windowEnded, ItemStatus.NO_LONGER_VALID),
            new Row("applies, past its re-verify deadline", c -> applies(c) && c.expiry() == Expiry.PASSED,
                    ItemStatus.NEEDS_REVERIFICATION),
            new Row("its validity window has not begun", StatusRuleTableTest::windowNotBegun, ItemStatus.UPCOMING),
            new Row("a conflict candidate", c -> c.version() == Version.CONFLICT_CANDIDATE, ItemStatus.CONFLICT),
            new Row("state of a suspended task (here or moved elsewhere)",
                    c -> c.task() == Task.SUSPENDED || c.task() == Task.MOVED, ItemStatus.PAST),
            new Row("a past message stating what applies", c -> c.form() == Form.MESSAGE, ItemStatus.PAST),
            new Row("applies", c -> true, ItemStatus.CURRENT));

    static ItemStatus expected(Case c) {
        return TABLE.stream().filter(r -> r.matches().test(c)).findFirst().orElseThrow().status();
    }

    static final Caller ALICE = Caller.of("shop", "alice");
    static final MemoryKey KEY = MemoryKey.of("billing.contact");
    static final Duration TO_READ = Duration.ofDays(5);

    @Test
    void should_label_every_combination_as_the_table_says() {
        List<String> wrong = new ArrayList<>();
        int cases = 0;
        for (Version v : Version.values()) {
            for (Task t : Task.values()) {
                for (Expiry e : Expiry.values()) {
                    for (Validity w : Validity.values()) {
                        for (Form f : Form.values()) {
                            if (f == Form.PERSISTENT && t != Task.NONE) {
                                continue; // persistent memory has no task
                            }
                            Case c = new Case(v, t, e, w, f);
                            cases++;
                            check(c, wrong);
                        }
                    }
                }
            }
        }
        assertThat(cases).isEqualTo(4 * 3 * 4 * (4 + 4 * 3));
        assertThat(wrong).as("cases that disagree with the table").isEmpty();
    }

    private static void check(Case c, List<String> wrong) {
        TestClock clock = TestClock.start();
        Instant read = clock.instant().plus(TO_READ);
        try (MemoryEngine engine = MemoryEngine.builder().clock(clock).build()) {
            Scope scope = scope(engine, c);
            MemoryRecord r = write(engine, clock, scope, c, read);
            settleTask(engine, c);
            clock.advance(Duration.between(clock.instant(), read));

            StatusRule.Form form = switch (c.form()) {
                case STATE, PERSISTENT -> StatusRule.Form.RECORD;
                case MESSAGE -> StatusRule.Form.MESSAGE;
                case SUMMARY -> StatusRule.Form.SUMMARY;
            };
            StatusRule.Judgement j = engine.judge(ALICE, form, List.of(r.id()), null);
            ItemStatus want = expected(c);
            if (j.status() != want) {
                wrong.add(c + ": " + j.status().label() + ", table says " + want.label());
                return;
            }
            // a moved task is held by a session with an active task: its state is not served as a record
            boolean served = !(form == StatusRule.Form.RECORD && want == ItemStatus.PAST && c.task() == Task.MOVED);
            if (j.served() != served) {
                wrong.add(c + ": served " + j.served());
            }
            if (want == ItemStatus.SUPERSEDED && (j.replacedBy().isEmpty() || j.replacedBy().get(0).version() != 2)) {
                wrong.add(c + ": superseded without naming v2: " + j.replacedBy());
            }
            if (form == StatusRule.Form.RECORD) {
                checkEngineReads(engine, c, scope, r, read, wrong);
            }
        }
    }

    /** current(), keyState(), view(), applicableAt() and asOf() agree with the rule (a scope read sees its own frame). */
    private static void checkEngineReads(MemoryEngine engine, Case c, Scope scope, MemoryRecord r, Instant read,
                                         List<String> wrong) {
        KeyState k = engine.keyState(ALICE, scope, KEY, ReadOptions.DEFAULT);
        // a scope read sees the scope's own frame: the status the record would have in an active task
        TaskInfo asActive = c.taskState() ? new TaskInfo("s1", "t1", null, TaskInfo.Status.ACTIVE, read) : null;
        ItemStatus own = StatusRule.of(r, engine.history(ALICE, scope, KEY), asActive, read);
        String bucket = k.current() != null && k.current().id().equals(r.id()) ? "current"
                : k.needsReverification() != null && k.needsReverification().id().equals(r.id()) ? "needs-reverification"
                : k.conflicts().stream().anyMatch(x -> x.id().equals(r.id())) ? "conflict"
                : k.upcoming().stream().anyMatch(x -> x.id().equals(r.id())) ? "upcoming"
                : k.noLongerValid().stream().anyMatch(x -> x.id().equals(r.id())) ? "no-longer-valid" : "superseded";
        if (!bucket.equals(own.label())) {
            wrong.add(c + ": keyState puts it in " + bucket + ", the rule says " + own.label());
        }
        Optional<MemoryRecord> applicable = engine.applicableAt(ALICE, scope, KEY, read);
        Optional<MemoryRecord> current = engine.current(ALICE, scope, KEY);
        MemoryRecord stale = k.needsReverification();
        Optional<MemoryRecord> servedOrStale = current.isPresent() ? current : Optional.ofNullable(stale);
        if (!servedOrStale.map(MemoryRecord::id).equals(applicable.map(MemoryRecord::id))) {
            wrong.add(c + ": current " + current.map(MemoryRecord::text) + " but applicableAt " + applicable.map(MemoryRecord::text));
        }
        if (c.task() != Task.ENDED) {
            ScopeView view = engine.view(ALICE, scope);
            ScopeView asOf = engine.asOf(ALICE, scope, read);
            if (!view.keys().equals(asOf.keys())) {
                wrong.add(c + ": view " + view.keys() + " but asOf(now) " + asOf.keys());
            }
            if (!view.key(KEY).map(x -> x.equals(k)).orElse(k.isEmpty())) {
                wrong.add(c + ": view and keyState differ");
            }
        }
    }

    private static Scope scope(MemoryEngine engine, Case c) {
        if (c.form() == Form.PERSISTENT) {
            return ALICE.persistent();
        }
        if (!c.taskState()) {
            return ALICE.session("s1");
        }
        return ALICE.task(engine.tasks().start(ALICE, "s1", "t1", "billing"));
    }

    /** Writes the record the case is about (and what surrounds it), returns it. */
    private static MemoryRecord write(MemoryEngine engine, TestClock clock, Scope scope, Case c, Instant read) {
        Instant from = switch (c.validity()) {
            case NONE -> null;
            case NOT_BEGUN -> read.plus(Duration.ofDays(10));
            case IN_WINDOW -> read.minus(Duration.ofDays(10));
            case ENDED -> read.minus(Duration.ofDays(20));
        };
        Instant to = switch (c.validity()) {
            case NONE, NOT_BEGUN -> null;
            case IN_WINDOW -> read.plus(Duration.ofDays(10));
            case ENDED -> read.minus(Duration.ofDays(1));
        };
        Proposal.Builder b = Proposal.set(scope, KEY, MemoryValue.of("Priya")).kind(Kind.OBSERVATION)
                .source(Source.USER).validity(from, to);
        if (c.expiry() == Expiry.AHEAD) {
            b.ttl(Duration.ofDays(30));
        } else if (c.expiry() == Expiry.PASSED) {
            b.ttl(Duration.ofDays(1));
        }
        if (c.version() == Version.CONFLICT_CANDIDATE) {
            engine.write(ALICE, Proposal.set(scope, KEY, MemoryValue.of("Tom")).kind(Kind.OBSERVATION)
                    .source(Source.USER).build());
            clock.advance(Duration.ofMinutes(1));
            Outcome o = engine.propose(ALICE, b.kind(Kind.INFERENCE).source(Source.MODEL).build());
            assertThat(o.result()).as("%s", c).isEqualTo(Outcome.Result.CONFLICT);
            return find(engine, scope, "Priya");
        }
        MemoryRecord r = engine.write(ALICE, b.build());
        clock.advance(Duration.ofMinutes(1));
        if (c.version() == Version.REPLACED) {
            engine.write(ALICE, Proposal.set(scope, KEY, MemoryValue.of("Tom")).kind(Kind.OBSERVATION)
                    .source(Source.USER).build());
        } else if (c.version() == Version.BEFORE_UPCOMING) {
            engine.write(ALICE, Proposal.set(scope, KEY, MemoryValue.of("Tom")).kind(Kind.OBSERVATION)
                    .source(Source.USER).validity(read.plus(Duration.ofDays(30)), null).build());
        }
        return find(engine, scope, r.text());
    }

    private static MemoryRecord find(MemoryEngine engine, Scope scope, String text) {
        return engine.history(ALICE, scope, KEY).stream().filter(x -> x.text().equals(text)).findFirst().orElseThrow();
    }

    /** Puts the task where the case wants it once its state is written. */
    private static void settleTask(MemoryEngine engine, Case c) {
        switch (c.task()) {
            case NONE, ACTIVE -> {
            }
            case SUSPENDED -> engine.tasks().suspend(ALICE, "s1", "t1");
            case ENDED -> engine.tasks().end(ALICE, "s1", "t1");
            case MOVED -> {
                TaskInfo moved = engine.tasks().resume(ALICE, "s2", "s1", "t1");
                assertThat(moved.heldBy()).isEqualTo("s2");
                engine.tasks().start(ALICE, "s2", "t2", "something else"); // puts t1 aside in s2
                assertThat(engine.tasks().userTasks(ALICE)).filteredOn(t -> t.task().equals("t1"))
                        .extracting(TaskInfo::status).containsExactly(TaskInfo.Status.SUSPENDED);
            }
        }
    }

    @Test
    void should_make_the_version_that_applies_current_and_follow_the_clock_across_windows() {
        // given: Priya until March; Tom from March to June; both written in January
        TestClock clock = new TestClock(Instant.parse("2025-01-10T09:00:00Z"));
        Instant march = Instant.parse("2025-03-01T00:00:00Z");
        Instant june = Instant.parse("2025-06-01T00:00:00Z");
        try (MemoryEngine engine = MemoryEngine.builder().clock(clock).build()) {
            Scope p = ALICE.persistent();
            engine.write(ALICE, Proposal.set(p, KEY, MemoryValue.of("Priya")).kind(Kind.OBSERVATION).source(Source.USER)
                    .validity(null, march).build());
            clock.advance(Duration.ofHours(1));
            engine.write(ALICE, Proposal.set(p, KEY, MemoryValue.of("Tom")).kind(Kind.OBSERVATION).source(Source.USER)
                    .validity(march, june).build());

            // in January Priya applies; Tom is upcoming
            assertThat(engine.current(ALICE, p, KEY)).get().extracting(MemoryRecord::text).isEqualTo("Priya");
            assertThat(engine.keyState(ALICE, p, KEY, ReadOptions.DEFAULT).upcoming()).extracting(MemoryRecord::text)
                    .containsExactly("Tom");

            // in April Tom applies; Priya is superseded
            clock.advance(Duration.between(clock.instant(), Instant.parse("2025-04-01T00:00:00Z")));
            assertThat(engine.current(ALICE, p, KEY)).get().extracting(MemoryRecord::text).isEqualTo("Tom");
            assertThat(engine.keyState(ALICE, p, KEY, ReadOptions.DEFAULT).upcoming()).isEmpty();

            // in July nothing applies: Tom's window ended, Priya's too
            clock.advance(Duration.between(clock.instant(), Instant.parse("2025-07-01T00:00:00Z")));
            KeyState july = engine.keyState(ALICE, p, KEY, ReadOptions.DEFAULT);
            assertThat(july.current()).isNull();
            assertThat(july.noLongerValid()).extracting(MemoryRecord::text).containsExactly("Priya", "Tom");
            assertThat(engine.applicableAt(ALICE, p, KEY, clock.instant())).isEmpty();

            // asOf a time reads the log then, at that time
            assertThat(engine.asOf(ALICE, p, Instant.parse("2025-02-01T00:00:00Z")).text(KEY.path())).contains("Priya");
            assertThat(engine.asOf(ALICE, p, Instant.parse("2025-04-01T00:00:00Z")).text(KEY.path())).contains("Tom");
        }
    }

    @Test
    void should_refuse_a_record_item_whose_record_is_not_readable() {
        try (MemoryEngine engine = MemoryEngine.builder().build()) {
            org.assertj.core.api.Assertions.assertThatThrownBy(
                            () -> engine.judge(ALICE, StatusRule.Form.RECORD, List.of("no-such-id"), null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("no record [no-such-id] of shop/alice that this agent may read");
        }
    }
}

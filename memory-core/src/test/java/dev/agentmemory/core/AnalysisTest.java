package dev.agentmemory.core;

import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.audit.AuditReport;
import dev.agentmemory.core.audit.AuditReport.ScopeDiff;
import dev.agentmemory.testing.TestClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import dev.agentmemory.core.MemoryRecord.Status;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.core.MemoryRecord.Kind;

/** The collector, the audit and scope diffs. */
class AnalysisTest {

    static final Caller ALICE = Caller.of("shop", "alice");

    final TestClock clock = TestClock.start();
    final MemoryEngine engine = MemoryEngine.builder().clock(clock).ttl(Kind.OBSERVATION, Duration.ofHours(1)).build();

    @Test
    void should_archive_state_of_ended_tasks_and_delete_nothing() {
        // given
        Scope refund = ALICE.task("s1", "refund");
        engine.tasks().start(ALICE, "s1", "refund", null);
        MemoryRecord order = engine.write(ALICE, Proposal.set(refund, "order", "20241015").build());
        engine.tasks().start(ALICE, "s1", "trip", null);
        engine.write(ALICE, Proposal.set(ALICE.task("s1", "trip"), "destination", "Hailan").build());
        engine.write(ALICE, Proposal.set(ALICE.persistent(), "lang", "zh").kind(Kind.PREFERENCE).build());
        engine.tasks().end(ALICE, "s1", "refund");

        // when
        List<String> archived = engine.admin().collect(ALICE);

        // then
        assertThat(archived).containsExactly(order.id());
        assertThat(engine.admin().collect(ALICE)).isEmpty();
        assertThat(engine.history(ALICE, refund, MemoryKey.of("order"))).singleElement()
                .satisfies(r -> {
                    assertThat(r.archived()).isTrue();
                    assertThat(r.text()).isEqualTo("20241015");
                    assertThat(r.status()).isEqualTo(Status.ACTIVE);
                });
        assertThat(engine.view(ALICE, refund, ReadOptions.withArchived()).text("order")).contains("20241015");
        assertThat(engine.view(ALICE, ALICE.task("s1", "trip")).text("destination")).contains("Hailan");
        assertThat(engine.view(ALICE, ALICE.persistent()).text("lang")).contains("zh");
    }

    @Test
    void should_report_conflicts_expired_stale_referenced_archived_tasks_and_pending_actions() {
        // given
        Scope s1 = ALICE.session("s1");
        engine.write(ALICE, Proposal.set(s1, "color", "white").build());
        engine.propose(ALICE, Proposal.set(s1, "color", "black").kind(Kind.INFERENCE).source(Source.MODEL).build());
        engine.write(ALICE, Proposal.set(s1, "stock", "3").kind(Kind.OBSERVATION).source(Source.TOOL).build());
        engine.tasks().start(ALICE, "s1", "refund", null);
        engine.tasks().end(ALICE, "s1", "refund");
        engine.write(ALICE, Proposal.set(s1, "current.task", "refund").build());
        engine.ledger().begin(ALICE, "refund-1", "refund", MemoryValue.of(1));
        clock.advance(Duration.ofDays(40));
        engine.write(ALICE, Proposal.set(s1, "fresh", "yes").build());

        // when
        AuditReport report = engine.admin().audit(ALICE, Duration.ofDays(30));

        // then
        assertThat(report.conflictingKeys()).containsExactly("shop/alice/session/s1 color");
        assertThat(report.expiredButActive()).containsExactly("shop/alice/session/s1 stock v1 (expired 2024-10-15T11:00:00Z)");
        assertThat(report.staleKeys()).containsExactly(
                "shop/alice/session/s1 color (last written 2024-10-15T10:00:00Z)",
                "shop/alice/session/s1 current.task (last written 2024-10-15T10:00:00Z)",
                "shop/alice/session/s1 stock (last written 2024-10-15T10:00:00Z)");
        assertThat(report.archivedScopesReferenced()).containsExactly("s1/refund by shop/alice/session/s1 current.task");
        assertThat(report.pendingActions()).containsExactly("refund-1 refund");
        assertThat(report.replayMatches()).isTrue();
        assertThat(report.consistent()).isFalse();
        assertThat(report.lines()).containsExactly(
                "state == replay(log) at seq 8: yes",
                "conflict: shop/alice/session/s1 color",
                "expired but active: shop/alice/session/s1 stock v1 (expired 2024-10-15T11:00:00Z)",
                "stale: shop/alice/session/s1 color (last written 2024-10-15T10:00:00Z)",
                "stale: shop/alice/session/s1 current.task (last written 2024-10-15T10:00:00Z)",
                "stale: shop/alice/session/s1 stock (last written 2024-10-15T10:00:00Z)",
                "archived task still referenced: s1/refund by shop/alice/session/s1 current.task",
                "pending action (reconcile before retry): refund-1 refund");
    }

    @Test
    void should_find_a_clean_memory_consistent() {
        engine.write(ALICE, Proposal.set(ALICE.session("s1"), "color", "white").build());

        AuditReport report = engine.admin().audit(ALICE, Duration.ofDays(30));

        assertThat(report.consistent()).isTrue();
        assertThat(report.lines()).containsExactly("state == replay(log) at seq 1: yes");
    }

    @Test
    void should_diff_two_scopes_by_current_values() {
        // given
        Scope a = ALICE.session("s1");
        Scope b = ALICE.session("s2");
        engine.write(ALICE, Proposal.set(a, "color", "white").build());
        engine.write(ALICE, Proposal.set(b, "color", "black").build());
        engine.write(ALICE, Proposal.set(a, "size", "M").build());
        engine.write(ALICE, Proposal.set(b, "size", "M").build());
        engine.write(ALICE, Proposal.set(a, "only.a", "1").build());
        engine.write(ALICE, Proposal.set(b, "only.b", "2").build());

        // when
        ScopeDiff diff = engine.admin().diff(ALICE, a, b);

        // then
        assertThat(diff.onlyLeft()).isEqualTo(Map.of(MemoryKey.of("only.a"), MemoryValue.of("1")));
        assertThat(diff.onlyRight()).isEqualTo(Map.of(MemoryKey.of("only.b"), MemoryValue.of("2")));
        assertThat(diff.changed()).isEqualTo(Map.of(MemoryKey.of("color"),
                new ScopeDiff.Change(MemoryValue.of("white"), MemoryValue.of("black"))));
        assertThat(diff.same()).isFalse();
        assertThat(engine.admin().diff(ALICE, a, a).same()).isTrue();
    }
}

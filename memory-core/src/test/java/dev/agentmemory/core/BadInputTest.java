package dev.agentmemory.core;

import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.engine.MemoryEngine.Messages;
import dev.agentmemory.core.internal.state.MemoryState;
import dev.agentmemory.core.event.StoredMessage;
import dev.agentmemory.testing.TestClock;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import dev.agentmemory.core.MemoryRecord.Status;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.Proposal.Outcome;

/** Bad input gets an exception naming what was wrong, and the stored state is unchanged afterwards. */
class BadInputTest {

    static final Caller ALICE = Caller.of("shop", "alice");
    static final Caller BOB = Caller.of("shop", "bob");

    final MemoryEngine engine = MemoryEngine.builder().clock(TestClock.start()).maxValueBytes(64).build();
    final Scope session = ALICE.session("s1");
    MemoryState before;

    @BeforeEach
    void someState() {
        engine.write(ALICE, Proposal.set(session, "color", "white").build());
        engine.tasks().start(ALICE, "s1", "refund", "refund");
        before = engine.admin().replay(ALICE);
    }

    private void unchangedAfter(Executable bad, Class<? extends Throwable> type, String message) {
        assertThatThrownBy(bad::execute).isInstanceOf(type).hasMessage(message);
        assertThat(engine.admin().replay(ALICE)).isEqualTo(before);
        assertThat(engine.admin().audit(ALICE, java.time.Duration.ofDays(1)).replayMatches()).isTrue();
        assertThat(engine.view(ALICE, session).text("color")).contains("white");
    }

    @Test
    void should_name_invalid_key() {
        unchangedAfter(() -> engine.propose(ALICE, Proposal.set(session, "order..color", "x").build()),
                IllegalArgumentException.class,
                "invalid key \"order..color\": each dot-separated segment must match [A-Za-z0-9_:-]{1,64}");
        unchangedAfter(() -> MemoryKey.of("a b"), IllegalArgumentException.class,
                "invalid key \"a b\": each dot-separated segment must match [A-Za-z0-9_:-]{1,64}");
        unchangedAfter(() -> MemoryKey.of("a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q"), IllegalArgumentException.class,
                "key has more than 16 segments: \"a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q\"");
    }

    @Test
    void should_name_oversized_value_and_write_nothing_of_the_batch() {
        String big = "x".repeat(100);
        unchangedAfter(() -> engine.propose(ALICE, List.of(
                        Proposal.set(session, "size", "M").build(),
                        Proposal.set(session, "notes", big).build())),
                IllegalArgumentException.class, "value of notes is 102 bytes, over the limit of 64");
    }

    @Test
    void should_reject_append_that_would_grow_past_the_limit() {
        engine.write(ALICE, Proposal.append(session, MemoryKey.of("items"), MemoryValue.of("x".repeat(40))).build());
        before = engine.admin().replay(ALICE);

        Outcome o = engine.propose(ALICE, Proposal.append(session, MemoryKey.of("items"), MemoryValue.of("y".repeat(40))).build());

        assertThat(o.reason()).isEqualTo("the list at items would exceed 64 bytes");
        assertThat(engine.admin().replay(ALICE)).isEqualTo(before);
    }

    @Test
    void should_name_unknown_kind_when_parsing() {
        unchangedAfter(() -> Kind.parse("fact"), IllegalArgumentException.class,
                "unknown kind \"fact\": expected one of [preference, task_fact, observation, inference, decision, reference]");
        assertThat(Kind.parse("Task-Fact")).isEqualTo(Kind.TASK_FACT);
        assertThat(Kind.parse(" preference ")).isEqualTo(Kind.PREFERENCE);
    }

    @Test
    void should_deny_cross_tenant_write() {
        unchangedAfter(() -> engine.write(ALICE, Proposal.set(Scope.session("bank", "alice", "s1"), "color", "x").build()),
                MemoryException.AccessDenied.class,
                "caller shop/alice cannot touch scope bank/alice/session/s1 of another tenant or user");
        assertThat(engine.admin().log(Caller.of("bank", "alice"))).isEmpty();
        assertThat(engine.admin().log(BOB)).isEmpty();
    }

    @Test
    void should_name_malformed_json_value() {
        assertThatThrownBy(() -> MemoryValue.parse("{\"color\": ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("value is not valid JSON: ");
        unchangedAfter(() -> MemoryValue.parse("null"), IllegalArgumentException.class,
                "value must not be JSON null (forget the key instead)");
        unchangedAfter(() -> MemoryValue.parse("   "), IllegalArgumentException.class,
                "value is empty: JSON text expected");
        unchangedAfter(() -> MemoryValue.parse("[".repeat(33) + "]".repeat(33)), IllegalArgumentException.class,
                "value nests deeper than 32 levels");
    }

    @Test
    void should_name_null_where_none_is_allowed() {
        unchangedAfter(() -> engine.propose(null, List.of()), NullPointerException.class, "caller");
        unchangedAfter(() -> engine.propose(ALICE, (List<Proposal>) null), NullPointerException.class, "proposals");
        unchangedAfter(() -> engine.propose(ALICE, (Proposal) null), NullPointerException.class, "proposal");
        unchangedAfter(() -> Proposal.set(session, (MemoryKey) null, MemoryValue.of("x")), NullPointerException.class, "key");
        unchangedAfter(() -> Proposal.set(session, MemoryKey.of("k"), null), NullPointerException.class, "value");
        unchangedAfter(() -> MemoryValue.of((String) null), NullPointerException.class, "text");
        unchangedAfter(() -> MemoryKey.of(null), IllegalArgumentException.class, "key must not be null");
        unchangedAfter(() -> Caller.of("shop", null), IllegalArgumentException.class, "user must not be null");
        unchangedAfter(() -> engine.forget(ALICE, null, ForgetMode.SOFT), NullPointerException.class, "target");
        unchangedAfter(() -> engine.ledger().begin(ALICE, "op", "refund", null), NullPointerException.class, "params");
    }

    @Test
    void should_name_invalid_identifiers() {
        unchangedAfter(() -> engine.tasks().start(ALICE, "s1", "two words", null), IllegalArgumentException.class,
                "task must match [A-Za-z0-9][A-Za-z0-9._:@-]{0,127}: \"two words\"");
        unchangedAfter(() -> Caller.of("shop\n", "alice"), IllegalArgumentException.class,
                "tenant must match [A-Za-z0-9][A-Za-z0-9._:@-]{0,127}: \"shop\\u000a\"");
        unchangedAfter(() -> Proposal.set(session, "k", "v").confidence(1.5).build(), IllegalArgumentException.class,
                "confidence must be within 0..1: 1.5");
        unchangedAfter(() -> Proposal.set(session, "k", "v").validity(java.time.Instant.parse("2025-01-01T00:00:00Z"),
                        java.time.Instant.parse("2024-01-01T00:00:00Z")).build(), IllegalArgumentException.class,
                "validFrom must be before validTo: 2025-01-01T00:00:00Z >= 2024-01-01T00:00:00Z");
    }

    @Test
    void should_roll_back_a_window_change_whose_indices_do_not_continue_the_history() {
        engine.messages().change(ALICE, "s1", w -> new Messages.WindowChange(List.of(),
                List.of(new StoredMessage(0, 0, "USER", "{}", "hi"))));
        before = engine.admin().replay(ALICE);

        unchangedAfter(() -> engine.messages().change(ALICE, "s1", w -> new Messages.WindowChange(List.of(0L),
                        List.of(new StoredMessage(5, 5, "AI", "{}", "skipped ahead")))),
                IllegalArgumentException.class, "appended message index 5 does not continue the history (expected 1)");
        assertThat(engine.messages().window(ALICE, "s1")).extracting(StoredMessage::text).containsExactly("hi");
    }
    @Test
    void should_name_what_an_invalidation_cannot_end() {
        unchangedAfter(() -> engine.write(ALICE, Proposal.invalidate(session, MemoryKey.of("size")).build()),
                MemoryException.InvalidProposal.class, "size: nothing to invalidate at size");
        unchangedAfter(() -> engine.write(ALICE, Proposal.invalidate(session, MemoryKey.of("color")).source(Source.TOOL).build()),
                MemoryException.InvalidProposal.class, "color: an untrusted source cannot invalidate memory");
        unchangedAfter(() -> engine.write(ALICE, Proposal.invalidate(Scope.session("bank", "alice", "s1"),
                        MemoryKey.of("color")).build()), MemoryException.AccessDenied.class,
                "caller shop/alice cannot touch scope bank/alice/session/s1 of another tenant or user");
        unchangedAfter(() -> engine.write(ALICE, Proposal.invalidate(ALICE.task("s1", "never"), MemoryKey.of("color")).build()),
                MemoryException.InvalidProposal.class, "color: task never was never started in session s1");
        unchangedAfter(() -> Proposal.invalidate(session, null), NullPointerException.class, "key");
        unchangedAfter(() -> engine.write(ALICE, Proposal.invalidate(session, MemoryKey.of("color")).expectVersion(2).build()),
                StaleVersionException.class,
                "color in shop/alice/session/s1 is at version 1, not the expected version 2; nothing was written");
    }

    @Test
    void should_return_the_ended_version_when_an_invalidation_is_written() {
        MemoryRecord white = engine.current(ALICE, session, MemoryKey.of("color")).orElseThrow();

        MemoryRecord ended = engine.write(ALICE, Proposal.invalidate(session, MemoryKey.of("color")).reason("changed mind").build());

        assertThat(ended.id()).isEqualTo(white.id());
        assertThat(ended.status()).isEqualTo(Status.FORGOTTEN);
        assertThat(ended.value()).isNull();
        assertThat(engine.history(ALICE, session, MemoryKey.of("color"))).containsExactly(ended);
        assertThat(engine.current(ALICE, session, MemoryKey.of("color"))).isEmpty();
        assertThatThrownBy(() -> engine.write(ALICE, Proposal.invalidate(session, MemoryKey.of("color")).build()))
                .isInstanceOf(MemoryException.InvalidProposal.class).hasMessage("color: nothing to invalidate at color");
    }
}

package dev.agentmemory.core;

import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.spi.Verifier;
import dev.agentmemory.testing.TestClock;
import org.junit.jupiter.api.Test;

import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import dev.agentmemory.core.MemoryRecord.Status;
import dev.agentmemory.core.MemoryRecord.Verification;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.Proposal.Outcome;
import dev.agentmemory.core.ScopeView.KeyState;

/** Model-extracted records are candidates until confirmed or checked. */
class VerificationTest {

    static final Caller ALICE = Caller.of("shop", "alice");

    /** A deterministic order lookup: only order 20241015 exists, and it is for white earbuds. */
    static final Verifier ORDERS = r -> {
        if (!"order:20241015".equals(r.entity()) && !r.key().path().startsWith("order:")) {
            return Optional.empty();
        }
        boolean holds = "order:20241015".equals(r.entity()) && r.text().equals("white");
        return Optional.of(new Verifier.Verdict(holds, "order system: order 20241015 is white earbuds"));
    };

    final MemoryEngine engine = MemoryEngine.builder().clock(TestClock.start()).verifier(ORDERS).build();
    final Scope session = ALICE.session("s1");

    /** A model-extracted value that meets a user-stated one: held as a conflict. */
    private MemoryRecord extractedConflict(String key, String value) {
        Outcome o = engine.propose(ALICE, java.util.List.of(Proposal.set(session, key, value).kind(Kind.OBSERVATION)
                .source(Source.MODEL, "msg-1").extractedBy("scripted", "v1").build())).get(0);
        assertThat(o.result()).isEqualTo(Outcome.Result.CONFLICT);
        return o.record();
    }

    private MemoryRecord extracted(String key, String value) {
        return engine.write(ALICE, Proposal.set(session, key, value).kind(Kind.OBSERVATION).source(Source.MODEL, "msg-1")
                .extractedBy("scripted", "v1").build());
    }

    @Test
    void should_keep_model_extracted_record_as_candidate_served_only_without_verified_filter() {
        MemoryRecord r = extracted("order:20241015.color", "white");

        assertThat(r.verification()).isEqualTo(Verification.CANDIDATE);
        assertThat(engine.view(ALICE, session).text("order:20241015.color")).contains("white");
        assertThat(engine.view(ALICE, session, ReadOptions.verified()).keys()).isEmpty();
    }

    @Test
    void should_verify_with_evidence_when_verifier_confirms() {
        MemoryRecord r = extracted("order:20241015.color", "white");

        MemoryRecord verified = engine.verification().verify(ALICE, r.id());

        assertThat(verified.verification()).isEqualTo(Verification.VERIFIED);
        assertThat(verified.evidence()).isEqualTo("order system: order 20241015 is white earbuds");
        assertThat(engine.view(ALICE, session, ReadOptions.verified()).text("order:20241015.color")).contains("white");
    }

    @Test
    void should_refute_with_evidence_and_never_serve_when_verifier_disagrees() {
        MemoryRecord r = extracted("order:20241015.color", "black");

        MemoryRecord refuted = engine.verification().verify(ALICE, r.id());

        assertThat(refuted.verification()).isEqualTo(Verification.REFUTED);
        assertThat(refuted.evidence()).isEqualTo("order system: order 20241015 is white earbuds");
        assertThat(engine.current(ALICE, session, MemoryKey.of("order:20241015.color"))).isEmpty();
        assertThat(engine.history(ALICE, session, MemoryKey.of("order:20241015.color"))).containsExactly(refuted);
    }

    @Test
    void should_leave_record_unchanged_when_no_verifier_has_an_opinion() {
        MemoryRecord r = extracted("size", "M");

        assertThat(engine.verification().verify(ALICE, r.id())).isEqualTo(r);
        assertThat(engine.admin().log(ALICE)).hasSize(1);
    }

    @Test
    void should_confirm_or_refute_on_the_users_word() {
        MemoryRecord size = extracted("size", "M");
        MemoryRecord city = extracted("city", "Hailan");

        assertThat(engine.verification().confirm(ALICE, size.id())).extracting(MemoryRecord::verification, MemoryRecord::evidence)
                .containsExactly(Verification.CONFIRMED, "confirmed by the user");
        assertThat(engine.verification().refute(ALICE, city.id(), "user: I live in Nordvik"))
                .extracting(MemoryRecord::verification, MemoryRecord::evidence)
                .containsExactly(Verification.REFUTED, "user: I live in Nordvik");
        assertThat(engine.view(ALICE, session, ReadOptions.verified()).values()).containsOnlyKeys(MemoryKey.of("size"));
    }

    @Test
    void should_count_trusted_statements_as_verified_and_untrusted_ones_not() {
        engine.write(ALICE, Proposal.set(session, "lang", "zh").build());
        engine.write(ALICE, Proposal.set(session, "stock", "3").kind(Kind.OBSERVATION).source(Source.TOOL).build());

        assertThat(engine.view(ALICE, session, ReadOptions.verified()).values()).containsOnlyKeys(MemoryKey.of("lang"));
    }

    @Test
    void should_make_the_replaced_value_current_again_when_the_user_refutes_the_new_one() {
        // given: M, then L replacing it
        MemoryKey size = MemoryKey.of("size");
        MemoryRecord m = extracted("size", "M");
        MemoryRecord l = extracted("size", "L");
        assertThat(engine.current(ALICE, session, size)).get().extracting(MemoryRecord::id).isEqualTo(l.id());

        // when
        engine.verification().refute(ALICE, l.id(), "user: I still wear M");

        // then: the refuted write is undone; a later write replaces M and leaves L refuted
        assertThat(engine.current(ALICE, session, size)).get().extracting(MemoryRecord::id, MemoryRecord::status)
                .containsExactly(m.id(), Status.ACTIVE);
        MemoryRecord s = extracted("size", "S");
        assertThat(s.supersedes()).isEqualTo(m.id());
        assertThat(engine.record(ALICE, m.id())).get().extracting(MemoryRecord::status).isEqualTo(Status.SUPERSEDED);
        assertThat(engine.current(ALICE, session, size)).get().extracting(MemoryRecord::id).isEqualTo(s.id());
    }

    @Test
    void should_keep_no_current_value_when_the_refuted_write_replaced_nothing() {
        MemoryRecord l = extracted("size", "L");

        engine.verification().refute(ALICE, l.id(), "user: wrong");

        assertThat(engine.current(ALICE, session, MemoryKey.of("size"))).isEmpty();
    }

    @Test
    void should_resolve_a_conflict_in_favour_of_the_version_the_user_confirms() {
        // given: the user said Hailan; the model extracted Nordvik, held as a conflict
        MemoryKey city = MemoryKey.of("city");
        MemoryRecord hailan = engine.write(ALICE, Proposal.set(session, "city", "Hailan").build());
        MemoryRecord nordvik = extractedConflict("city", "Nordvik");
        assertThat(nordvik.status()).isEqualTo(Status.CONFLICT);
        assertThat(engine.keyState(ALICE, session, city, ReadOptions.DEFAULT).conflicts()).extracting(MemoryRecord::id)
                .containsExactly(nordvik.id());

        // when
        engine.verification().confirm(ALICE, nordvik.id());

        // then
        KeyState state = engine.keyState(ALICE, session, city, ReadOptions.DEFAULT);
        assertThat(state.current()).extracting(MemoryRecord::id, MemoryRecord::status, MemoryRecord::verification)
                .containsExactly(nordvik.id(), Status.ACTIVE, Verification.CONFIRMED);
        assertThat(state.conflicts()).isEmpty();
        assertThat(engine.record(ALICE, hailan.id())).get().extracting(MemoryRecord::status).isEqualTo(Status.SUPERSEDED);
    }

    @Test
    void should_leave_a_conflict_open_when_a_verifier_rather_than_the_user_confirms_it() {
        engine.write(ALICE, Proposal.set(session, "order:20241015.color", "black").build());
        MemoryRecord white = extractedConflict("order:20241015.color", "white");

        assertThat(engine.verification().verify(ALICE, white.id()).verification()).isEqualTo(Verification.VERIFIED);

        assertThat(engine.keyState(ALICE, session, MemoryKey.of("order:20241015.color"), ReadOptions.DEFAULT).conflicts())
                .extracting(MemoryRecord::id).containsExactly(white.id());
    }

    @Test
    void should_refuse_verdicts_on_unknown_or_forgotten_records() {
        MemoryRecord r = extracted("size", "M");
        engine.forget(ALICE, ForgetTarget.key(session, MemoryKey.of("size")), ForgetMode.SOFT);

        assertThatThrownBy(() -> engine.verification().confirm(ALICE, r.id()))
                .isInstanceOf(IllegalStateException.class).hasMessage("record " + r.id() + " is forgotten");
        assertThatThrownBy(() -> engine.verification().confirm(ALICE, "no-such-id"))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("no record \"no-such-id\" for shop/alice");
    }
}

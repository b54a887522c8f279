package dev.agentmemory.core.reliability;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ScopeView.KeyState;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.Scope.Layer;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.MemoryValue;
import dev.agentmemory.core.Proposal.Outcome;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.Scope;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.core.MemoryRecord.Trust;
import dev.agentmemory.testing.InjectionDataset;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Issue 6, test 5 (engine side): every string of the injection dataset written through every
 * direct untrusted path (a tool and a model as sources, every kind, persistent and session
 * scopes, also aimed at a trusted preference's key) and read back: never promoted (no trusted
 * record, no preference or decision made from it, the trusted value it aims at stays current)
 * and its trust is untrusted on every later read, also after a reload from the store.
 */
class InjectionThroughMemoryTest {

    /** The dataset's texts, or an assumption failure (skip) when it is absent. */
    static List<String> texts() {
        return InjectionDataset.texts();
    }

    @Test
    void should_never_promote_or_trust_an_injected_string_when_written_through_any_untrusted_path() throws IOException {
        // given
        List<String> texts = texts();
        Caller alice = Caller.of("shop", "alice");
        Scope session = alice.session("s1");
        long proposals = 0;
        long applied = 0;
        long readsChecked = 0;
        try (MemoryEngine engine = MemoryEngine.builder().build()) {
            engine.write(alice, Proposal.set(alice.persistent(), "profile.language", "English").kind(Kind.PREFERENCE).build());
            engine.write(alice, Proposal.set(session, "order.choice", "exchange").kind(Kind.DECISION).build());

            // when: each text through every untrusted source, kind and layer, in one batch per text
            for (int i = 0; i < texts.size(); i++) {
                MemoryValue value = MemoryValue.of(texts.get(i));
                List<Proposal> batch = new ArrayList<>();
                for (Source source : List.of(Source.TOOL, Source.MODEL)) {
                    for (Kind kind : Kind.values()) {
                        for (Scope scope : List.of(alice.persistent(), session)) {
                            batch.add(Proposal.set(scope, MemoryKey.of("inj." + i + "." + source + "." + kind), value)
                                    .kind(kind).source(source).build());
                        }
                    }
                    // aimed at the trusted values themselves
                    batch.add(Proposal.set(alice.persistent(), MemoryKey.of("profile.language"), value)
                            .kind(Kind.PREFERENCE).source(source).build());
                    batch.add(Proposal.set(alice.persistent(), MemoryKey.of("profile.language"), value)
                            .kind(Kind.OBSERVATION).source(source).build());
                    batch.add(Proposal.set(session, MemoryKey.of("order.choice"), value)
                            .kind(Kind.OBSERVATION).source(source).build());
                }
                for (Outcome o : engine.propose(alice, batch)) {
                    proposals++;
                    if (o.record() != null) {
                        applied++;
                        assertThat(o.record().trust()).as("trust of %s", o.record().key()).isEqualTo(Trust.UNTRUSTED);
                        assertThat(o.record().kind()).as("kind of %s", o.record().key()).isNotIn(Kind.PREFERENCE, Kind.DECISION);
                    }
                }
            }

            // then: every later read, before and after a reload from the store
            for (int pass = 0; pass < 2; pass++) {
                for (Layer layer : List.of(Layer.PERSISTENT, Layer.SESSION)) {
                    for (KeyState ks : engine.servable(alice, layer)) {
                        List<MemoryRecord> seen = new ArrayList<>(ks.conflicts());
                        if (ks.current() != null) {
                            seen.add(ks.current());
                        }
                        for (MemoryRecord r : seen) {
                            readsChecked++;
                            if (r.key().path().startsWith("inj.") || texts.contains(r.text())) {
                                assertThat(r.trust()).as("trust of %s on read", r.key()).isEqualTo(Trust.UNTRUSTED);
                                assertThat(r.kind()).isNotIn(Kind.PREFERENCE, Kind.DECISION);
                            }
                        }
                    }
                }
                assertThat(engine.current(alice, alice.persistent(), MemoryKey.of("profile.language"))).get()
                        .extracting(MemoryRecord::text, MemoryRecord::trust).containsExactly("English", Trust.TRUSTED);
                assertThat(engine.current(alice, session, MemoryKey.of("order.choice"))).get()
                        .extracting(MemoryRecord::text, MemoryRecord::trust).containsExactly("exchange", Trust.TRUSTED);
                engine.admin().invalidateCache();
            }
        }
        System.out.printf("INJECTION (engine): strings=%d, untrusted proposals=%d, written as untrusted data=%d, "
                + "refused=%d, reads checked=%d, promoted=0%n", texts.size(), proposals, applied, proposals - applied, readsChecked);
        assertThat(applied).isGreaterThan(texts.size());
    }
}

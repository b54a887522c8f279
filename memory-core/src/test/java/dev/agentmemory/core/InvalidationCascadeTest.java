package dev.agentmemory.core;

import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.spi.DerivedData;
import dev.agentmemory.core.spi.DerivedData.ForgetRequest;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.Proposal.Outcome;

class InvalidationCascadeTest {

    private final Caller alice = Caller.of("shop", "alice");

    @Test
    void should_tell_derived_data_when_a_proposal_invalidates_a_key() {
        // given
        List<ForgetRequest> seen = new ArrayList<>();
        MemoryEngine engine = MemoryEngine.builder().derived(new DerivedData() {
            @Override
            public String name() {
                return "probe";
            }

            @Override
            public int forget(ForgetRequest request) {
                seen.add(request);
                return request.recordIds().size();
            }
        }).build();
        MemoryRecord written = engine.write(alice, Proposal.set(alice.persistent(), "language", "Chinese")
                .kind(Kind.PREFERENCE).build());

        // when
        Outcome outcome = engine.propose(alice, Proposal.invalidate(alice.persistent(), MemoryKey.of("language")).build());

        // then
        assertThat(outcome.isApplied()).isTrue();
        assertThat(seen).singleElement().satisfies(r -> {
            assertThat(r.recordIds()).containsExactly(written.id());
            assertThat(r.hard()).isFalse();
        });
    }

    @Test
    void should_find_a_record_by_id_only_for_its_own_user() {
        MemoryEngine engine = MemoryEngine.builder().build();
        MemoryRecord written = engine.write(alice, Proposal.set(alice.session("s1"), "order.current", "20241015").build());

        assertThat(engine.record(alice, written.id())).contains(written);
        assertThat(engine.record(Caller.of("shop", "bob"), written.id())).isEmpty();
    }
}

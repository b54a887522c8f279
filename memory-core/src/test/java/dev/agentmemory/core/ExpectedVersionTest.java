package dev.agentmemory.core;

import dev.agentmemory.core.engine.MemoryEngine;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import dev.agentmemory.core.Proposal.Outcome;

/** Compare-and-set on a key's version: {@link Proposal.Builder#expectVersion}. */
class ExpectedVersionTest {

    private static final Caller ALICE = Caller.of("shop", "alice");
    private static final MemoryKey COLOR = MemoryKey.of("color");
    private static final Scope S1 = ALICE.session("s1");

    private final MemoryEngine engine = MemoryEngine.builder().build();

    private MemoryRecord set(String value, long expected) {
        return engine.write(ALICE, Proposal.set(S1, COLOR, MemoryValue.of(value))
                .expectVersion(expected).build());
    }

    @Test
    void a_write_at_the_expected_version_is_made_and_a_stale_one_changes_nothing() {
        assertThat(set("white", 0).version()).isEqualTo(1);
        assertThat(set("black", 1).version()).isEqualTo(2);

        assertThatThrownBy(() -> set("red", 1))
                .isInstanceOf(StaleVersionException.class)
                .hasMessageContaining("color")
                .hasMessageContaining("at version 2")
                .hasMessageContaining("expected version 1");
        assertThatThrownBy(() -> set("red", 0))
                .isInstanceOf(StaleVersionException.class)
                .hasMessageContaining("expected version 0 (absent)");
        assertThat(engine.current(ALICE, S1, COLOR).orElseThrow().value().text()).isEqualTo("black");
        assertThat(engine.admin().log(ALICE)).hasSize(2);
    }

    @Test
    void expect_absent_holds_after_an_invalidation() {
        set("white", 0);
        assertThat(engine.propose(ALICE, Proposal.invalidate(S1, COLOR).expectVersion(1).build()).isApplied()).isTrue();
        assertThatThrownBy(() -> set("red", 1))
                .isInstanceOf(StaleVersionException.class)
                .hasMessageContaining("at version 0 (no current value)");
        assertThat(set("red", 0).version()).isEqualTo(2);
    }

    @Test
    void one_stale_proposal_fails_the_whole_batch_and_nothing_of_it_is_written() {
        set("white", 0);
        assertThatThrownBy(() -> engine.propose(ALICE, List.of(
                Proposal.set(S1, "size", "M").expectVersion(0).build(),
                Proposal.set(S1, COLOR, MemoryValue.of("red")).expectVersion(7).build())))
                .isInstanceOf(StaleVersionException.class)
                .hasMessageContaining("expected version 7");
        assertThat(engine.current(ALICE, S1, MemoryKey.of("size"))).isEmpty();
        assertThat(engine.admin().log(ALICE)).hasSize(1);
        assertThat(engine.admin().audit(ALICE, java.time.Duration.ofDays(1)).replayMatches()).isTrue();

        // later proposals of a batch are checked against the earlier ones
        List<Outcome> both = engine.propose(ALICE, List.of(
                Proposal.set(S1, COLOR, MemoryValue.of("red")).expectVersion(1).build(),
                Proposal.set(S1, COLOR, MemoryValue.of("blue")).expectVersion(2).build()));
        assertThat(both).allMatch(Outcome::isApplied);
        assertThat(engine.current(ALICE, S1, COLOR).orElseThrow().version()).isEqualTo(3);
    }

    @Test
    void an_optimistic_update_retries_on_a_stale_version() {
        Caller alice = ALICE;
        Scope scope = alice.session("s1");
        MemoryKey key = MemoryKey.of("cart.items");
        engine.write(alice, Proposal.set(scope, key, MemoryValue.of(1)).build());
        int attempts = 0;
        MemoryRecord written = null;
        while (written == null) {
            attempts++;
            // tag::expect-version-read[]
            MemoryRecord read = engine.current(alice, scope, key).orElseThrow();
            long items = read.value().node().asLong() + 1;
            // end::expect-version-read[]
            if (attempts == 1) { // another writer changes the key between this caller's read and write
                engine.write(alice, Proposal.set(scope, key, MemoryValue.of(10)).build());
            }
            // tag::expect-version-write[]
            try {
                written = engine.write(alice, Proposal.set(scope, key, MemoryValue.of(items))
                        .expectVersion(read.version())   // 0 = "only if the key has no value"
                        .build());
            } catch (StaleVersionException e) {
                // changed since it was read; nothing was written: read again and retry
            }
            // end::expect-version-write[]
        }
        assertThat(attempts).isEqualTo(2);
        assertThat(written.version()).isEqualTo(3);
        assertThat(written.value().node().asLong()).isEqualTo(11);
    }

    @Test
    void a_negative_version_is_refused_naming_the_key() {
        assertThatThrownBy(() -> Proposal.set(S1, "size", "M").expectVersion(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("size");
        assertThat(Proposal.set(S1, "size", "M").expectVersion(3).build().toBuilder().build()
                .expectedVersion()).isEqualTo(3L);
    }
}

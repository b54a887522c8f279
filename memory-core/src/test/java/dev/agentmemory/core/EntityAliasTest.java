package dev.agentmemory.core;

import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.testing.TestClock;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EntityAliasTest {

    static final Caller ALICE = Caller.of("shop", "alice");

    final MemoryEngine engine = MemoryEngine.builder().clock(TestClock.start()).build();
    final Scope session = ALICE.session("s1");

    @Test
    void should_land_writes_and_reads_through_any_alias_on_the_same_key() {
        // given
        engine.aliases().register(ALICE, "order:20241015", "the order ending in 15");
        engine.aliases().register(ALICE, "order:20241015", "my white earbuds");

        // when
        engine.write(ALICE, Proposal.set(session, engine.aliases().keyFor(ALICE, "The  order ending in 15 ", "color"),
                MemoryValue.of("white")).build());

        // then
        MemoryKey viaOther = engine.aliases().keyFor(ALICE, "MY WHITE EARBUDS", "color");
        assertThat(viaOther).isEqualTo(MemoryKey.of("order:20241015.color"));
        assertThat(engine.current(ALICE, session, viaOther)).get().extracting(MemoryRecord::text, MemoryRecord::entity)
                .containsExactly("white", "order:20241015");
        assertThat(engine.aliases().resolve(ALICE, "order:20241015")).contains("order:20241015");
    }

    @Test
    void should_report_ambiguous_alias_and_never_merge_entities() {
        // given
        engine.aliases().register(ALICE, "order:20241015", "my earbuds");
        engine.aliases().register(ALICE, "order:20240901", "my earbuds");
        engine.write(ALICE, Proposal.set(session, "order:20241015.color", "white").build());
        engine.write(ALICE, Proposal.set(session, "order:20240901.color", "black").build());

        // when / then
        assertThatThrownBy(() -> engine.aliases().resolve(ALICE, "my earbuds"))
                .isInstanceOfSatisfying(MemoryException.AmbiguousAlias.class,
                        e -> assertThat(e.entities()).containsExactly("order:20240901", "order:20241015"))
                .hasMessage("alias \"my earbuds\" is ambiguous: it names [order:20240901, order:20241015]");
        assertThatThrownBy(() -> engine.aliases().keyFor(ALICE, "my earbuds", "color")).isInstanceOf(MemoryException.AmbiguousAlias.class);
        assertThat(engine.view(ALICE, session).values()).hasSize(2);
    }

    @Test
    void should_fail_clearly_on_unknown_alias_or_malformed_entity() {
        assertThat(engine.aliases().resolve(ALICE, "nothing known")).isEmpty();
        assertThatThrownBy(() -> engine.aliases().keyFor(ALICE, "nothing known", "color"))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("unknown alias: \"nothing known\"");
        assertThatThrownBy(() -> engine.aliases().register(ALICE, "order 20241015", "x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("entity must look like type:id (letters, digits, _ and -): \"order 20241015\"");
        assertThatThrownBy(() -> engine.aliases().register(ALICE, "order:1", "   "))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("alias must be 1-200 characters: \"   \"");
        assertThat(engine.admin().log(ALICE)).isEmpty();
    }

    @Test
    void should_log_an_alias_once_when_registered_twice() {
        engine.aliases().register(ALICE, "order:1", "first order");
        engine.aliases().register(ALICE, "order:1", "First  Order");

        assertThat(engine.admin().log(ALICE)).hasSize(1);
        assertThat(engine.admin().replay(ALICE).aliases()).containsOnlyKeys("first order");
        assertThat(List.copyOf(engine.admin().replay(ALICE).entitiesFor("first order"))).containsExactly("order:1");
    }
}

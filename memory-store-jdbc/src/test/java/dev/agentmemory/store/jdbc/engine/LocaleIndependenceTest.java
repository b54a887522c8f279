package dev.agentmemory.store.jdbc.engine;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.Scope.Layer;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.Scope;
import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.store.jdbc.JdbcStores;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.Locale;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Under a Turkish default locale, {@code "I".toLowerCase()} is a dotless {@code "ı"}: every text
 * the engine derives from names (scopes, kinds, layers, readable logs) must not depend on it.
 */
class LocaleIndependenceTest {

    private Locale saved;

    @BeforeEach
    void turkish() {
        saved = Locale.getDefault();
        Locale.setDefault(new Locale("tr", "TR"));
    }

    @AfterEach
    void restore() {
        Locale.setDefault(saved);
    }

    @Test
    void scope_strings_name_layers_in_plain_lower_case() {
        assertThat(Scope.persistent("shop", "alice").toString()).isEqualTo("shop/alice/persistent");
        assertThat(Scope.session("shop", "alice", "s1").toString()).isEqualTo("shop/alice/session/s1");
        assertThat(Scope.task("shop", "alice", "s1", "t1").toString()).isEqualTo("shop/alice/task/s1/t1");
        for (Layer layer : Layer.values()) {
            Scope scope = switch (layer) {
                case PERSISTENT -> Scope.persistent("shop", "alice");
                case SESSION -> Scope.session("shop", "alice", "s1");
                case TASK -> Scope.task("shop", "alice", "s1", "t1");
            };
            String segment = scope.toString().split("/")[2];
            assertThat(Layer.valueOf(segment.toUpperCase(Locale.ROOT))).isEqualTo(layer);
        }
    }

    @Test
    void kinds_round_trip_through_their_lower_case_names() {
        for (Kind kind : Kind.values()) {
            assertThat(Kind.parse(kind.name().toLowerCase(Locale.ROOT))).isEqualTo(kind);
            assertThat(Kind.parse(kind.name().toLowerCase(Locale.ROOT).replace('_', '-'))).isEqualTo(kind);
        }
    }

    @Test
    void stored_scopes_and_readable_log_survive_a_restart() {
        Caller alice = Caller.of("shop", "alice");
        EventStore store = JdbcStores.h2InMemory("locale_" + System.nanoTime());
        MemoryEngine engine = MemoryEngine.builder().store(store).build();
        Scope persistent = alice.persistent();
        Scope session = alice.session("s1");
        engine.write(alice, Proposal.set(persistent, "user.city", "Istanbul").kind(Kind.OBSERVATION).build());
        engine.write(alice, Proposal.set(session, "order.item", "ink").kind(Kind.INFERENCE).build());
        engine.tasks().start(alice, "s1", "invoice", "Invoice");
        engine.write(alice, Proposal.set(alice.task("s1", "invoice"), "invoice.id", "I-1").build());

        assertThat(String.join("\n", engine.admin().readableLog(alice)))
                .contains("observation", "inference", "persistent", "session", "active")
                .doesNotContain("\u0131");

        engine.admin().invalidateCache();
        assertThat(engine.current(alice, persistent, MemoryKey.of("user.city"))).isPresent();
        assertThat(engine.current(alice, session, MemoryKey.of("order.item"))).isPresent();
        assertThat(engine.current(alice, alice.task("s1", "invoice"), MemoryKey.of("invoice.id"))).isPresent();
        assertThat(engine.admin().audit(alice, java.time.Duration.ofDays(1)).replayMatches()).isTrue();
        engine.close();
    }
}

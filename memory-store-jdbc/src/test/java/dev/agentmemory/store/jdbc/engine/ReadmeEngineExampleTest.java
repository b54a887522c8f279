package dev.agentmemory.store.jdbc.engine;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ForgetMode;
import dev.agentmemory.core.ForgetTarget;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.store.jdbc.JdbcStores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** README.md's "Using the engine directly", compiled and run (the README block is checked against this region). */
class ReadmeEngineExampleTest {

    @TempDir
    Path dataDir;

    @Test
    void using_the_engine_directly() {
        // tag::engine[]
        MemoryEngine engine = MemoryEngine.builder()
                .store(JdbcStores.h2File(dataDir.resolve("memory")))   // or new InMemoryEventStore(), or JdbcStores.dataSource(dataSource)
                .build();
        Caller alice = Caller.of("acme", "alice");
        engine.tasks().start(alice, "s1", "exchange-1", "exchange the earbuds");
        engine.write(alice, Proposal.set(alice.task("s1", "exchange-1"), "exchange.color", "white").build());
        engine.write(alice, Proposal.set(alice.persistent(), "language", "Chinese").kind(Kind.PREFERENCE).build());
        engine.view(alice, alice.task("s1", "exchange-1"));          // current values, conflicts, expiries
        engine.history(alice, alice.persistent(), MemoryKey.of("language"));
        engine.forget(alice, ForgetTarget.key(alice.persistent(), MemoryKey.of("language")), ForgetMode.HARD);
        engine.admin().audit(alice, Duration.ofDays(30)).lines().forEach(System.out::println);
        // end::engine[]

        try (engine) {
            assertThat(engine.view(alice, alice.task("s1", "exchange-1")).text("exchange.color")).contains("white");
            assertThat(engine.view(alice, alice.persistent()).values()).isEmpty();
            assertThat(engine.admin().audit(alice, Duration.ofDays(30)).replayMatches()).isTrue();
        }
    }
}

package dev.agentmemory.store.jdbc.engine;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.Scope;
import dev.agentmemory.core.MemoryRecord.Status;
import dev.agentmemory.store.jdbc.JdbcStores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;

import static org.assertj.core.api.Assertions.assertThat;

class MemoryEngineSmokeTest {

    @Test
    void should_supersede_and_survive_restart_when_written_to_h2_file(@TempDir Path dir) {
        Caller alice = Caller.of("shop", "alice");
        Scope session = alice.session("s1");
        try (MemoryEngine engine = MemoryEngine.builder().store(JdbcStores.h2File(dir.resolve("mem")))
                .clock(java.time.Clock.fixed(Instant.parse("2024-10-15T10:00:00Z"), ZoneOffset.UTC)).build()) {
            engine.write(alice, Proposal.set(session, "exchange.color", "black").build());
            engine.write(alice, Proposal.set(session, "exchange.color", "white").build());
            assertThat(engine.current(alice, session, MemoryKey.of("exchange.color"))).get()
                    .extracting(MemoryRecord::text).isEqualTo("white");
            assertThat(engine.admin().audit(alice, java.time.Duration.ofDays(30)).consistent()).isTrue();
        }
        try (MemoryEngine engine = MemoryEngine.builder().store(JdbcStores.h2File(dir.resolve("mem"))).build()) {
            assertThat(engine.history(alice, session, MemoryKey.of("exchange.color")))
                    .extracting(MemoryRecord::text, MemoryRecord::status)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("black", Status.SUPERSEDED),
                            org.assertj.core.groups.Tuple.tuple("white", Status.ACTIVE));
        }
    }
}

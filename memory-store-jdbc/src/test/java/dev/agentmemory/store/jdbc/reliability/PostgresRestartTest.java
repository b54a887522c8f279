package dev.agentmemory.store.jdbc.reliability;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.MemoryException;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.Scope;
import dev.agentmemory.store.jdbc.JdbcStores;
import dev.agentmemory.store.jdbc.JdbcSettings;
import dev.agentmemory.store.jdbc.testing.PostgresTestDatabase;
import dev.agentmemory.store.jdbc.testing.RequiresPostgres;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * PostgreSQL stopped mid-run as by a crash ({@code pg_ctl stop -m immediate}), then started
 * again, under one running engine: calls fail with an error naming the database, nothing
 * acknowledged is lost, and calls succeed again without restarting the engine (the pool
 * reconnects). Needs the server that {@code .ci/postgres.sh} started, which it can stop.
 */
@ExtendWith(RequiresPostgres.class)
class PostgresRestartTest {

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void should_fail_clearly_lose_nothing_and_recover_when_the_server_crashes_and_restarts() {
        PostgresTestDatabase pg = PostgresTestDatabase.require(getClass());
        Assumptions.assumeTrue(System.getenv("AGENTMEMORY_TEST_PG_SCRIPT") != null || PostgresTestDatabase.required(),
                "needs the server .ci/postgres.sh started (AGENTMEMORY_TEST_PG_SCRIPT), which it may stop");
        String schema = pg.createSchema("restart");
        String url = pg.urlOf(schema);
        Caller alice = Caller.of("shop", "alice");
        Scope p = alice.persistent();
        MemoryKey note = MemoryKey.of("note");
        List<String> acknowledged = new ArrayList<>();
        JdbcSettings settings = JdbcSettings.of(url, pg.user(), pg.password()).connectionTimeout(Duration.ofSeconds(1));
        try (MemoryEngine engine = MemoryEngine.builder().store(JdbcStores.connect(settings)).build()) {
            for (int i = 0; i < 5; i++) {
                engine.write(alice, Proposal.set(p, "note", "before-" + i).kind(Kind.DECISION).build());
                acknowledged.add("before-" + i);
            }

            // when: the server goes away as in a crash
            assertThat(pg.control("crash")).as("the test server could be stopped").isTrue();
            try {
                // then: a call fails, naming the database (and never the password)
                assertThatThrownBy(() -> engine.write(alice, Proposal.set(p, "note", "during").kind(Kind.DECISION).build()))
                        .isInstanceOf(MemoryException.class)
                        .hasMessageContaining("not applied")
                        .hasMessageContaining("store " + url + ": cannot ")
                        .hasMessageNotContaining(pg.password())
                        .satisfies(e -> System.out.println("POSTGRES DOWN: " + e.getMessage()));
            } finally {
                assertThat(pg.control("start")).as("the test server could be started again").isTrue();
            }

            // and after the restart the same engine works again, within a bounded number of calls
            MemoryException last = null;
            int failedAfterRestart = 0;
            for (int attempt = 0; attempt < 30; attempt++) {
                try {
                    engine.write(alice, Proposal.set(p, "note", "after").kind(Kind.DECISION).build());
                    acknowledged.add("after");
                    last = null;
                    break;
                } catch (MemoryException e) {
                    last = e;
                    failedAfterRestart++;
                }
            }
            assertThat(last).as("a write after the restart").isNull();
            System.out.println("POSTGRES RESTARTED: calls failed after the restart: " + failedAfterRestart);
            assertThat(engine.history(alice, p, note)).extracting(MemoryRecord::text)
                    .containsExactlyElementsOf(acknowledged);
            assertThat(engine.admin().audit(alice, Duration.ofDays(1)).consistent()).isTrue();
        } finally {
            pg.dropSchema(schema);
        }
    }
}

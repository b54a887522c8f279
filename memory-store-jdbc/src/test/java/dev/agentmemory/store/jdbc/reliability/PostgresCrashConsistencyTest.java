package dev.agentmemory.store.jdbc.reliability;

import dev.agentmemory.store.jdbc.JdbcStores;
import dev.agentmemory.store.jdbc.testing.PostgresTestDatabase;
import dev.agentmemory.store.jdbc.testing.RequiresPostgres;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * {@link CrashConsistencyTest} on PostgreSQL: the child writer ({@link CrashWriter}) appends to a
 * fresh schema through its own pool and is killed with SIGKILL mid-write, many times; after each
 * kill every acknowledged batch is there in full, none in part, and the audit passes.
 */
@Tag("slow")
@ExtendWith(RequiresPostgres.class)
class PostgresCrashConsistencyTest {

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void should_keep_every_acknowledged_batch_whole_when_a_postgres_writer_is_killed_repeatedly(@TempDir Path dir)
            throws Exception {
        PostgresTestDatabase pg = PostgresTestDatabase.require(getClass());
        String schema = pg.createSchema("crash");
        String url = pg.urlOf(schema);
        try {
            new CrashConsistencyTest().runKills(dir, url, () -> JdbcStores.connect(url, pg.user(), pg.password()),
                    run -> { });
        } finally {
            pg.dropSchema(schema);
        }
    }
}

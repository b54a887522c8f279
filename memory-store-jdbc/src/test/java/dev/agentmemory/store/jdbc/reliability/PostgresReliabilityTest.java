package dev.agentmemory.store.jdbc.reliability;

import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.store.jdbc.JdbcStores;
import dev.agentmemory.store.jdbc.testing.PostgresTestDatabase;
import dev.agentmemory.store.jdbc.testing.RequiresPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The store-generic reliability tests on a real PostgreSQL server, each on a fresh schema:
 * {@link ConcurrencyTest} with its two engines on two stores (two pools, as two application
 * instances), and {@link IsolationTest}. Skipped without a server.
 */
@ExtendWith(RequiresPostgres.class)
class PostgresReliabilityTest {

    @Test
    void should_lose_no_update_and_keep_versions_contiguous_when_two_instances_write_through_two_pools()
            throws Exception {
        PostgresTestDatabase pg = PostgresTestDatabase.require(getClass());
        String schema = pg.createSchema("concurrency");
        try {
            EventStore first = JdbcStores.connect(pg.urlOf(schema), pg.user(), pg.password());
            EventStore second = JdbcStores.connect(pg.urlOf(schema), pg.user(), pg.password());
            new ConcurrencyTest().runTwoEngines(first, second);
        } finally {
            pg.dropSchema(schema);
        }
    }

    @Test
    void should_never_return_another_tenants_users_or_agents_record_when_many_share_one_store() {
        PostgresTestDatabase pg = PostgresTestDatabase.require(getClass());
        String schema = pg.createSchema("isolation");
        try {
            new IsolationTest().runOn(JdbcStores.connect(pg.urlOf(schema), pg.user(), pg.password()));
        } finally {
            pg.dropSchema(schema);
        }
    }
}

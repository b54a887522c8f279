package dev.agentmemory.store.jdbc.engine;

import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.Scope;
import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.store.jdbc.JdbcStores;
import dev.agentmemory.store.jdbc.testing.PostgresTestDatabase;
import dev.agentmemory.store.jdbc.testing.RequiresPostgres;
import dev.agentmemory.core.testing.MemoryEngineStorageContract;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.postgresql.ds.PGSimpleDataSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The engine's storage contract on a real PostgreSQL server (a fresh schema per test, a
 * restart is a new store with a new pool on that schema). Skipped without a server.
 */
@ExtendWith(RequiresPostgres.class)
class PostgresEngineStorageTest extends MemoryEngineStorageContract {

    private static PostgresTestDatabase pg;
    private static final List<String> schemas = new CopyOnWriteArrayList<>();
    private String schema;

    @BeforeAll
    static void server() {
        if (PostgresTestDatabase.configured()) {
            pg = PostgresTestDatabase.require(PostgresEngineStorageTest.class);
        }
    }

    @AfterAll
    static void dropSchemas() {
        if (pg != null) {
            schemas.forEach(pg::dropSchema);
        }
    }

    @Override
    protected EventStore newStore() {
        schema = pg.createSchema("engine");
        schemas.add(schema);
        return reopen();
    }

    @Override
    protected EventStore reopen() {
        return JdbcStores.connect(pg.urlOf(schema), pg.user(), pg.password());
    }

    /** Reads the payload column with plain JDBC, past the store's own code. */
    @Override
    protected List<String> rawPayloads(Partition partition) {
        try (Connection c = pg.connect(schema);
             PreparedStatement ps = c.prepareStatement(
                     "SELECT payload FROM memory_events WHERE tenant = ? AND user_id = ? ORDER BY seq")) {
            ps.setString(1, partition.tenant());
            ps.setString(2, partition.user());
            List<String> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
            return out;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void should_keep_memory_on_the_server_when_engines_are_built_with_jdbc_or_a_data_source() {
        // given: an engine built with .store(JdbcStores.connect(...)) on a fresh schema
        String own = pg.createSchema("builder");
        schemas.add(own);
        Scope p = ALICE.persistent();
        try (MemoryEngine first = MemoryEngine.builder().store(JdbcStores.connect(pg.urlOf(own), pg.user(), pg.password())).build()) {
            first.write(ALICE, Proposal.set(p, "lang", "zh").kind(Kind.PREFERENCE).build());
        }

        // when: another engine over a DataSource the application owns reads and writes the same schema
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl(pg.urlOf(own));
        ds.setUser(pg.user());
        ds.setPassword(pg.password());
        try (MemoryEngine second = MemoryEngine.builder().store(JdbcStores.dataSource(ds)).build()) {
            assertThat(second.view(ALICE, p).text("lang")).contains("zh");
            second.write(ALICE, Proposal.set(p, "lang", "en").kind(Kind.PREFERENCE).build());
        }

        // then: both writes are on the server, in order
        assertThat(rawPayloadsIn(own, partition(ALICE))).hasSize(2);
        try (MemoryEngine third = MemoryEngine.builder().store(JdbcStores.connect(pg.urlOf(own), pg.user(), pg.password())).build()) {
            assertThat(third.history(ALICE, p, MemoryKey.of("lang"))).extracting(MemoryRecord::text)
                    .containsExactly("zh", "en");
        }
    }

    private List<String> rawPayloadsIn(String other, Partition partition) {
        String mine = schema;
        schema = other;
        try {
            return rawPayloads(partition);
        } finally {
            schema = mine;
        }
    }
}

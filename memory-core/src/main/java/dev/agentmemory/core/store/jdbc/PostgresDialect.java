package dev.agentmemory.core.store.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * PostgreSQL: payloads are {@code TEXT} (unlimited), from schema 1 on. The schema is migrated in
 * one transaction (PostgreSQL's DDL is transactional) under a transaction-level advisory lock,
 * so instances starting together on one database migrate one after the other and a failed
 * migration leaves the schema as it was.
 */
final class PostgresDialect implements SqlDialect {

    static final PostgresDialect INSTANCE = new PostgresDialect();

    /** The advisory lock key of the memory schema's migration (any fixed 64-bit number). */
    private static final long MIGRATION_LOCK = 0x6167656e746d656dL; // "agentmem"

    private PostgresDialect() {
    }

    @Override
    public String largeTextType() {
        return "TEXT";
    }

    @Override
    public List<String> migratePayloadToLargeText() {
        return List.of();
    }

    @Override
    public void beginMigration(Connection c) throws SQLException {
        c.setAutoCommit(false);
        try (Statement st = c.createStatement()) {
            // released by the commit in endMigration, or the rollback when the connection returns
            st.execute("SELECT pg_advisory_xact_lock(" + MIGRATION_LOCK + ")");
        }
    }

    @Override
    public void endMigration(Connection c) throws SQLException {
        c.commit();
        c.setAutoCommit(true);
    }
}

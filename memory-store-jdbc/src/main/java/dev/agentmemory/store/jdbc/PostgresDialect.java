package dev.agentmemory.store.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * PostgreSQL: payloads are {@code TEXT} (unlimited), from schema 1 on. The schema is migrated
 * under a session-level advisory lock (held on a connection of its own, released when it
 * closes at the latest), so instances starting together on one database migrate one after the
 * other.
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

    /** Variable-length bytes, kept in the row (TOASTed past about 2 KB). */
    @Override
    public String binaryType() {
        return "BYTEA";
    }

    @Override
    public List<String> migratePayloadToLargeText() {
        return List.of();
    }

    @Override
    public void lockMigration(Connection c) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute("SELECT pg_advisory_lock(" + MIGRATION_LOCK + ")");
        }
    }

    @Override
    public void unlockMigration(Connection c) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute("SELECT pg_advisory_unlock(" + MIGRATION_LOCK + ")");
        }
    }
}

package dev.agentmemory.store.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;

/**
 * What differs between the databases {@link JdbcEventStore} runs on: type names and the DDL
 * that depends on them, the form of a look-up by a list of keys, and how a database reports a
 * unique-key conflict. Everything else the store sends is portable SQL. One implementation per
 * database; {@link #forProduct} picks it from the JDBC driver's product name.
 */
interface SqlDialect {

    /** The column type of event payloads: long text, read back as a string. */
    String largeTextType();

    /** The column type of stored vectors: bytes (float32, big-endian), kept in the row. */
    String binaryType();

    /**
     * Statements that bring a schema-1 {@code memory_events.payload} column to
     * {@link #largeTextType()} (schema step 2); empty when schema 1 already had that type.
     */
    List<String> migratePayloadToLargeText();

    /**
     * Takes the lock that makes instances starting together on one database migrate its schema
     * one at a time, on {@code c}, a connection used for nothing else until
     * {@link #unlockMigration}. No-op by default (an embedded database has one opener).
     */
    default void lockMigration(Connection c) throws SQLException {
    }

    /** Releases {@link #lockMigration}'s lock. */
    default void unlockMigration(Connection c) throws SQLException {
    }

    /**
     * How {@link VectorTable} reads and deletes the vectors of a list of items on this database:
     * {@code IN} lists by default.
     */
    default VectorKeyStatements vectorKeyStatements() {
        return VectorKeyStatements.IN_LIST;
    }

    /** Whether {@code e} (or a cause, or a batch's next exception) is a unique-key violation. */
    default boolean isUniqueViolation(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s && "23505".equals(s.getSQLState())) {
                return true;
            }
            if (t instanceof java.sql.BatchUpdateException b && b.getNextException() != null
                    && "23505".equals(b.getNextException().getSQLState())) {
                return true;
            }
        }
        return false;
    }

    /** The dialect for a JDBC {@code DatabaseMetaData.getDatabaseProductName()}. */
    static SqlDialect forProduct(String productName) {
        String product = productName.toLowerCase(Locale.ROOT);
        if (product.contains("postgres")) {
            return PostgresDialect.INSTANCE;
        }
        return H2Dialect.INSTANCE;
    }
}

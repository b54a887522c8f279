package dev.agentmemory.store.jdbc;

import dev.agentmemory.core.MemoryException;
import dev.agentmemory.core.spi.Partition;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;

/**
 * Creates the store's tables in a new database and migrates an older schema to this library's,
 * once, when a store opens: {@code memory_events} (the log), {@code memory_heads},
 * {@code memory_meta}, {@code memory_snapshots}, {@code memory_vectors} and {@code memory_schema} (the versions applied).
 * A database with a newer schema is refused, as is an existing H2 file that holds no schema.
 */
final class SchemaMigration {

    /**
     * 1: the table. 2: on H2 the payload is {@code CHARACTER VARYING} instead of {@code CLOB}
     * (see {@link H2Dialect#largeTextType()}). PostgreSQL keeps {@code TEXT}. 3: a checksum and a
     * chain value on every row ({@code event_hash}, {@code chain_hash}), each partition's last
     * sequence and chain value ({@code memory_heads}), the count of write transactions
     * ({@code memory_meta}); a schema-2 database gets them computed from its rows when it is
     * opened, once. 4: {@code memory_snapshots}, each partition's latest snapshot (derived data,
     * see {@link SnapshotTable#save}); nothing else changes, so a schema-3 database only gets the table.
     * 5: {@code memory_vectors}, the embeddings of the log's texts next to the events they were
     * derived from ({@link VectorTable}); a schema-4 database only gets the table.
     */
    static final int SCHEMA_VERSION = 5;

    private final Database database;
    /** The store's name in every error. */
    private final String name;

    SchemaMigration(Database database, String name) {
        this.database = database;
        this.name = name;
    }

    /**
     * {@link #run()} while holding the database's migration lock (PostgreSQL: a session
     * advisory lock on a connection of its own), so that instances starting together on one
     * database migrate one after the other.
     */
    SqlDialect runLocked(PooledDatabase pooled) {
        try (Connection lock = pooled.lockConnection()) {
            SqlDialect dialect = SqlDialect.forProduct(lock.getMetaData().getDatabaseProductName());
            dialect.lockMigration(lock);
            try {
                return run();
            } finally {
                dialect.unlockMigration(lock);
            }
        } catch (SQLException e) {
            throw new MemoryException("store " + name + ": cannot lock the memory schema for migration: "
                    + e.getMessage(), e);
        }
    }

    /** Creates or migrates the schema; returns the database's dialect. */
    SqlDialect run() {
        try (Connection c = database.dataSource().getConnection(); Statement st = c.createStatement()) {
            SqlDialect dialect = SqlDialect.forProduct(c.getMetaData().getDatabaseProductName());
            if (database.mustHoldSchema() && !hasTable(c, "memory_schema")) {
                throw new MemoryException("the H2 file " + name + " holds no memory schema (it is header only, damaged,"
                        + " or another application's database); refusing to open it as a new one");
            }
            String text = dialect.largeTextType();
            st.execute("CREATE TABLE IF NOT EXISTS memory_schema (version INTEGER NOT NULL)");
            int version = 0;
            try (ResultSet rs = st.executeQuery("SELECT MAX(version) FROM memory_schema")) {
                if (rs.next()) {
                    version = rs.getInt(1);
                }
            }
            if (version > SCHEMA_VERSION) {
                throw new MemoryException("store " + name + ": database schema version " + version
                        + " is newer than this library (" + SCHEMA_VERSION + ")");
            }
            if (version < 1) {
                st.execute("CREATE TABLE IF NOT EXISTS memory_events ("
                        + "tenant VARCHAR(128) NOT NULL, user_id VARCHAR(128) NOT NULL, seq BIGINT NOT NULL, "
                        + "at_time VARCHAR(40) NOT NULL, type VARCHAR(64) NOT NULL, actor VARCHAR(128) NOT NULL, "
                        + "trace_id VARCHAR(64) NOT NULL, payload " + text + " NOT NULL, "
                        + "PRIMARY KEY (tenant, user_id, seq))");
                st.execute("INSERT INTO memory_schema (version) VALUES (1)");
            }
            if (version < 2) {
                for (String ddl : dialect.migratePayloadToLargeText()) {
                    st.execute(ddl);
                }
                st.execute("INSERT INTO memory_schema (version) VALUES (2)");
            }
            if (version < 3) {
                st.execute("ALTER TABLE memory_events ADD COLUMN IF NOT EXISTS event_hash BIGINT");
                st.execute("ALTER TABLE memory_events ADD COLUMN IF NOT EXISTS chain_hash BIGINT");
                st.execute("CREATE TABLE IF NOT EXISTS memory_heads (tenant VARCHAR(128) NOT NULL, "
                        + "user_id VARCHAR(128) NOT NULL, last_seq BIGINT NOT NULL, chain_head BIGINT NOT NULL, "
                        + "PRIMARY KEY (tenant, user_id))");
                st.execute("CREATE TABLE IF NOT EXISTS memory_meta (meta_key VARCHAR(64) NOT NULL, "
                        + "counter BIGINT NOT NULL, PRIMARY KEY (meta_key))");
                checksumExistingRows(c);
                st.execute("INSERT INTO memory_schema (version) VALUES (3)");
            }
            if (version < 4) {
                st.execute("CREATE TABLE IF NOT EXISTS memory_snapshots (tenant VARCHAR(128) NOT NULL, "
                        + "user_id VARCHAR(128) NOT NULL, seq BIGINT NOT NULL, payload " + text + " NOT NULL, "
                        + "PRIMARY KEY (tenant, user_id))");
                st.execute("INSERT INTO memory_schema (version) VALUES (4)");
            }
            if (version < 5) {
                st.execute("CREATE TABLE IF NOT EXISTS memory_vectors (tenant VARCHAR(128) NOT NULL, "
                        + "user_id VARCHAR(128) NOT NULL, item VARCHAR(1024) NOT NULL, model VARCHAR(200) NOT NULL, "
                        + "dims INTEGER NOT NULL, seq BIGINT NOT NULL, vec " + dialect.binaryType() + " NOT NULL, "
                        + "PRIMARY KEY (tenant, user_id, item, model, dims))");
                st.execute("INSERT INTO memory_schema (version) VALUES (5)");
            }
            // every table and column the store uses is there (a damaged catalog fails here, not at a later read)
            st.executeQuery("SELECT tenant, user_id, seq, at_time, type, actor, trace_id, payload, event_hash, chain_hash"
                    + " FROM memory_events WHERE 1 = 0").close();
            st.executeQuery("SELECT tenant, user_id, last_seq, chain_head FROM memory_heads WHERE 1 = 0").close();
            st.executeQuery("SELECT tenant, user_id, seq, payload FROM memory_snapshots WHERE 1 = 0").close();
            st.executeQuery("SELECT tenant, user_id, item, model, dims, seq, vec FROM memory_vectors WHERE 1 = 0").close();
            return dialect;
        } catch (SQLException e) {
            throw new MemoryException("store " + name + ": cannot open, create or migrate the memory schema: "
                    + e.getMessage(), e);
        }
    }

    private static boolean hasTable(Connection c, String table) throws SQLException {
        for (String candidate : List.of(table.toUpperCase(Locale.ROOT), table)) {
            try (ResultSet rs = c.getMetaData().getTables(null, null, candidate, null)) {
                if (rs.next()) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Schema 2 to 3: computes the checksum and chain of every stored row, in one transaction
     * (repeated from the start when interrupted). Rows of a schema-2 database are taken as they
     * are: there was nothing to check them against.
     */
    private void checksumExistingRows(Connection c) throws SQLException {
        c.setAutoCommit(false);
        try (Statement st = c.createStatement();
             PreparedStatement update = c.prepareStatement("UPDATE memory_events SET event_hash = ?, chain_hash = ? "
                     + "WHERE tenant = ? AND user_id = ? AND seq = ?");
             PreparedStatement head = c.prepareStatement(
                     "INSERT INTO memory_heads (tenant, user_id, last_seq, chain_head) VALUES (?, ?, ?, ?)")) {
            st.execute("DELETE FROM memory_heads");
            st.execute("DELETE FROM memory_meta");
            Partition current = null;
            long last = 0;
            long chain = 0;
            int pending = 0;
            try (Statement scan = c.createStatement();
                 ResultSet rs = scan.executeQuery("SELECT tenant, user_id, seq, at_time, type, actor, trace_id, payload "
                         + "FROM memory_events ORDER BY tenant, user_id, seq")) {
                while (rs.next()) {
                    Partition p = new Partition(rs.getString(1), rs.getString(2));
                    if (!p.equals(current)) {
                        if (current != null) {
                            addHead(head, current, last, chain);
                        }
                        current = p;
                        last = 0;
                        chain = 0;
                    }
                    long seq = rs.getLong(3);
                    if (seq != last + 1) {
                        throw new MemoryException("store " + name + ": cannot add checksums to partition " + p
                                + ": its log jumps from seq " + last + " to " + seq);
                    }
                    long event = EventDigest.event(p, seq, rs.getString(4), rs.getString(5), rs.getString(6),
                            rs.getString(7), rs.getString(8));
                    chain = EventDigest.chain(chain, event);
                    last = seq;
                    update.setLong(1, event);
                    update.setLong(2, chain);
                    update.setString(3, p.tenant());
                    update.setString(4, p.user());
                    update.setLong(5, seq);
                    update.addBatch();
                    if (++pending == 1_000) {
                        update.executeBatch();
                        pending = 0;
                    }
                }
            }
            if (current != null) {
                addHead(head, current, last, chain);
            }
            if (pending > 0) {
                update.executeBatch();
            }
            head.executeBatch();
            st.execute("INSERT INTO memory_meta (meta_key, counter) VALUES ('" + WriteCounter.WRITES + "', 0)");
            c.commit();
        } catch (SQLException | RuntimeException e) {
            c.rollback();
            throw e;
        } finally {
            c.setAutoCommit(true);
        }
    }

    private static void addHead(PreparedStatement head, Partition p, long last, long chain) throws SQLException {
        head.setString(1, p.tenant());
        head.setString(2, p.user());
        head.setLong(3, last);
        head.setLong(4, chain);
        head.addBatch();
    }
}

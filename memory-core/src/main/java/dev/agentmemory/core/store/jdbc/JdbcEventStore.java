package dev.agentmemory.core.store.jdbc;

import dev.agentmemory.core.MemoryException;
import dev.agentmemory.core.StaleVersionException;
import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.core.spi.StoredEvent;

import javax.sql.DataSource;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * An {@link EventStore} on a relational database through JDBC. H2 (embedded file or in-memory)
 * is the default; the SQL is portable, and what differs per database (type names, DDL, how a
 * key conflict is reported) is a {@link SqlDialect} chosen from the driver's product name. The
 * schema is created or migrated at start.
 *
 * <p>One table, {@code memory_events}, primary key (tenant, user_id, seq): the key both orders a
 * user's log and stops two writers from appending the same sequence. Appends are one
 * transaction. On an H2 file every acknowledged append is on the disk before it returns.
 * Thread-safe.
 */
public final class JdbcEventStore implements EventStore {

    /**
     * 1: the table. 2: on H2 the payload is {@code CHARACTER VARYING} instead of {@code CLOB}
     * (see {@link H2Dialect#largeTextType()}). PostgreSQL keeps {@code TEXT}.
     */
    static final int SCHEMA_VERSION = 2;

    /** Connections, and what the database needs around them (locks, syncs, compaction, close). */
    private final Database database;
    /** Type names, DDL and error codes of the database, from its driver's product name. */
    private final SqlDialect dialect;

    /** A store on any JDBC data source (e.g. a PostgreSQL pool); the caller owns its life. */
    public JdbcEventStore(DataSource dataSource) {
        this.database = new Database.CallerDataSource(Objects.requireNonNull(dataSource, "dataSource"));
        this.dialect = migrate();
    }

    private JdbcEventStore(PooledDatabase database) {
        this.database = database;
        try {
            this.dialect = migrate();
        } catch (RuntimeException e) {
            database.close();
            throw e;
        }
    }

    /**
     * A store on the database server at {@code url} (PostgreSQL 15 or later:
     * {@code jdbc:postgresql://host:5432/db}; the application adds the driver,
     * {@code org.postgresql:postgresql}), through a pool of {@link JdbcSettings#DEFAULT_POOL_SIZE}
     * connections that the store opens and closes. See {@link #connect(JdbcSettings)}.
     */
    public static JdbcEventStore connect(String url, String user, String password) {
        return connect(JdbcSettings.of(url, user, password));
    }

    /**
     * A store on a database server through a HikariCP pool it opens (and closes with the store).
     * The schema is created or migrated now, one starting instance at a time. An acknowledged
     * append is committed, and on PostgreSQL durable (its default {@code synchronous_commit =
     * on}); a batch is one transaction; two instances appending the same sequence of one user
     * cannot both succeed (the primary key refuses the second, which fails with
     * {@link StaleVersionException}). Errors and {@link #toString()} name the URL without password.
     *
     * @throws MemoryException when the server cannot be reached, refuses the login, or holds a
     *                         newer schema
     */
    public static JdbcEventStore connect(JdbcSettings settings) {
        Objects.requireNonNull(settings, "settings");
        return new JdbcEventStore(PooledDatabase.open(settings));
    }

    private JdbcEventStore(H2Database database) {
        this.database = database;
        this.dialect = migrate();
        database.opened();
    }

    /**
     * An embedded H2 database in {@code file} (H2 adds {@code .mv.db}); created when missing.
     * Every append is on the disk (written and fsynced) before it returns, and survives a killed
     * process. H2 never reuses freed space in the file here (reusing it lost acknowledged appends
     * in the kill test), so the file is compacted automatically once it has grown past 64 MiB and
     * four times its size after the last compaction; calls wait while that runs.
     */
    public static JdbcEventStore h2File(Path file) {
        return h2File(file, DEFAULT_AUTO_COMPACT_MIN_BYTES);
    }

    static final long DEFAULT_AUTO_COMPACT_MIN_BYTES = 64L << 20;

    /** As {@link #h2File(Path)}, compacting once the file exceeds {@code autoCompactMinBytes} (tests). */
    static JdbcEventStore h2File(Path file, long autoCompactMinBytes) {
        Objects.requireNonNull(file, "file");
        return new JdbcEventStore(H2Database.file(file, autoCompactMinBytes));
    }

    /** A named in-memory H2 database that lives until this store is closed. */
    public static JdbcEventStore h2InMemory(String name) {
        Objects.requireNonNull(name, "name");
        if (!name.matches("[A-Za-z0-9_-]{1,64}")) {
            throw new IllegalArgumentException("database name must be 1-64 letters, digits, _ or -: " + name);
        }
        return new JdbcEventStore(H2Database.inMemory(name));
    }

    /** Creates or migrates the schema; returns the database's dialect. */
    private SqlDialect migrate() {
        try (Connection c = database.dataSource().getConnection(); Statement st = c.createStatement()) {
            SqlDialect dialect = SqlDialect.forProduct(c.getMetaData().getDatabaseProductName());
            dialect.beginMigration(c);
            String text = dialect.largeTextType();
            st.execute("CREATE TABLE IF NOT EXISTS memory_schema (version INTEGER NOT NULL)");
            int version = 0;
            try (ResultSet rs = st.executeQuery("SELECT MAX(version) FROM memory_schema")) {
                if (rs.next()) {
                    version = rs.getInt(1);
                }
            }
            if (version > SCHEMA_VERSION) {
                throw new MemoryException("database schema version " + version + " is newer than this library ("
                        + SCHEMA_VERSION + ")");
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
            dialect.endMigration(c);
            return dialect;
        } catch (SQLException e) {
            throw new MemoryException("cannot create or migrate the memory schema: " + database.describe(e), e);
        }
    }

    @Override
    public void append(Partition partition, long expectedLastSeq, List<StoredEvent> events) {
        Objects.requireNonNull(partition, "partition");
        Objects.requireNonNull(events, "events");
        long next = expectedLastSeq + 1;
        for (StoredEvent e : events) {
            if (e.seq() != next++) {
                throw new IllegalArgumentException("event seq " + e.seq() + " does not continue " + (next - 2));
            }
        }
        if (events.isEmpty()) {
            long last = lastSequence(partition);
            if (last != expectedLastSeq) {
                throw new StaleVersionException("partition " + partition + " is at seq " + last + ", not " + expectedLastSeq);
            }
            return;
        }
        try (Database.Held writing = database.writing()) {
            insert(partition, expectedLastSeq, events);
        }
        database.afterAppend();
    }

    private void insert(Partition partition, long expectedLastSeq, List<StoredEvent> events) {
        try (Connection c = database.dataSource().getConnection()) {
            c.setAutoCommit(false);
            try {
                // The primary key refuses a second writer's seq expectedLastSeq + 1; this point
                // lookup refuses a caller that is ahead of the log (a gap). Together they equal
                // "the log ends at expectedLastSeq" without scanning the user's whole log.
                if (expectedLastSeq > 0 && !exists(c, partition, expectedLastSeq)) {
                    long last = lastSequence(c, partition);
                    throw new StaleVersionException("partition " + partition + " is at seq " + last + ", not " + expectedLastSeq);
                }
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO memory_events "
                        + "(tenant, user_id, seq, at_time, type, actor, trace_id, payload) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
                    for (StoredEvent e : events) {
                        ps.setString(1, partition.tenant());
                        ps.setString(2, partition.user());
                        ps.setLong(3, e.seq());
                        ps.setString(4, e.at().toString());
                        ps.setString(5, e.type());
                        ps.setString(6, e.actor());
                        ps.setString(7, e.traceId());
                        ps.setString(8, e.payload());
                        ps.addBatch();
                    }
                    ps.executeBatch();
                }
                c.commit();
                database.afterCommit(c);
            } catch (SQLException e) {
                rollback(c, e);
                if (dialect.isUniqueViolation(e)) {
                    throw new StaleVersionException("another writer appended to " + partition + " first");
                }
                throw e;
            } catch (RuntimeException e) {
                rollback(c, e);
                throw e;
            }
        } catch (SQLException e) {
            throw new MemoryException("cannot append to " + partition + ": " + database.describe(e), e);
        }
    }

    /**
     * Rolls back after {@code cause}; a failing rollback (the connection broke) is added to it
     * rather than hiding it, and the server discards the uncommitted transaction anyway.
     */
    private static void rollback(Connection c, Exception cause) {
        try {
            c.rollback();
        } catch (SQLException r) {
            cause.addSuppressed(r);
        }
    }

    private static boolean exists(Connection c, Partition partition, long seq) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT 1 FROM memory_events WHERE tenant = ? AND user_id = ? AND seq = ?")) {
            ps.setString(1, partition.tenant());
            ps.setString(2, partition.user());
            ps.setLong(3, seq);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    @Override
    public List<StoredEvent> read(Partition partition, long afterSeq) {
        Objects.requireNonNull(partition, "partition");
        try (Database.Held reading = database.reading()) {
            try (Connection c = database.dataSource().getConnection();
                 PreparedStatement ps = c.prepareStatement("SELECT seq, at_time, type, actor, trace_id, payload "
                         + "FROM memory_events WHERE tenant = ? AND user_id = ? AND seq > ? ORDER BY seq")) {
                ps.setString(1, partition.tenant());
                ps.setString(2, partition.user());
                ps.setLong(3, afterSeq);
                List<StoredEvent> out = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(new StoredEvent(rs.getLong(1), Instant.parse(rs.getString(2)), rs.getString(3),
                                rs.getString(4), rs.getString(5), rs.getString(6)));
                    }
                }
                return out;
            } catch (SQLException e) {
                throw new MemoryException("cannot read " + partition + ": " + database.describe(e), e);
            }
        }
    }

    @Override
    public long lastSequence(Partition partition) {
        Objects.requireNonNull(partition, "partition");
        try (Database.Held reading = database.reading()) {
            try (Connection c = database.dataSource().getConnection()) {
                return lastSequence(c, partition);
            } catch (SQLException e) {
                throw new MemoryException("cannot read " + partition + ": " + database.describe(e), e);
            }
        }
    }

    private static long lastSequence(Connection c, Partition partition) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT MAX(seq) FROM memory_events WHERE tenant = ? AND user_id = ?")) {
            ps.setString(1, partition.tenant());
            ps.setString(2, partition.user());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : 0;
            }
        }
    }

    @Override
    public void rewrite(Partition partition, Map<Long, String> payloadBySeq) {
        Objects.requireNonNull(partition, "partition");
        if (payloadBySeq.isEmpty()) {
            return;
        }
        Database.Held writing = database.writing();
        try (Connection c = database.dataSource().getConnection()) {
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement(
                    "UPDATE memory_events SET payload = ? WHERE tenant = ? AND user_id = ? AND seq = ?")) {
                for (Map.Entry<Long, String> e : payloadBySeq.entrySet()) {
                    ps.setString(1, e.getValue());
                    ps.setString(2, partition.tenant());
                    ps.setString(3, partition.user());
                    ps.setLong(4, e.getKey());
                    ps.addBatch();
                }
                ps.executeBatch();
                c.commit();
                database.afterCommit(c);
            } catch (SQLException e) {
                rollback(c, e);
                throw e;
            }
        } catch (SQLException e) {
            throw new MemoryException("cannot rewrite events of " + partition + ": " + database.describe(e), e);
        } finally {
            writing.close();
        }
    }

    @Override
    public List<Partition> partitions(String tenant) {
        Objects.requireNonNull(tenant, "tenant");
        try (Database.Held reading = database.reading()) {
            try (Connection c = database.dataSource().getConnection();
                 PreparedStatement ps = c.prepareStatement(
                         "SELECT DISTINCT user_id FROM memory_events WHERE tenant = ? ORDER BY user_id")) {
                ps.setString(1, tenant);
                List<Partition> out = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(new Partition(tenant, rs.getString(1)));
                    }
                }
                return out;
            } catch (SQLException e) {
                throw new MemoryException("cannot list users of " + tenant + ": " + database.describe(e), e);
            }
        }
    }

    /**
     * For an embedded H2 file: closes the database, copies its live data into a fresh,
     * uncompressed file (so purged bytes leave it, and a byte scan of the file can prove it), then
     * reopens it; calls wait meanwhile. Other databases reclaim space with their own tools
     * (PostgreSQL: VACUUM FULL); no-op for them.
     */
    @Override
    public void compact() {
        database.compact();
    }

    /** Closes a database this store opened (H2); a caller's data source stays open. */
    @Override
    public void close() {
        database.close();
    }

    /** The database (for a server: its URL without password, and the user); never a password. */
    @Override
    public String toString() {
        return "JdbcEventStore[" + database + "]";
    }
}

package dev.agentmemory.core.store.jdbc;

import dev.agentmemory.core.MemoryException;
import dev.agentmemory.core.StaleVersionException;
import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.core.spi.StoredEvent;
import org.h2.jdbcx.JdbcConnectionPool;

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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * An {@link EventStore} on a relational database through JDBC. H2 (embedded file or in-memory)
 * is the default; the SQL is portable to PostgreSQL (only the large-text column type differs,
 * chosen from the driver's product name). The schema is created or migrated at start.
 *
 * <p>One table, {@code memory_events}, primary key (tenant, user_id, seq): the key both orders a
 * user's log and stops two writers from appending the same sequence. Appends are one
 * transaction. On an H2 file every acknowledged append is on the disk before it returns.
 * Thread-safe.
 */
public final class JdbcEventStore implements EventStore {

    /**
     * 1: the table. 2: on H2 the payload is {@code CHARACTER VARYING} instead of {@code CLOB}:
     * H2 keeps CLOBs over a few hundred bytes in a separate LOB store, which made reading a log
     * about a hundred times slower and, after a killed writer, tripped an internal assert of
     * H2 at shutdown. PostgreSQL keeps {@code TEXT}.
     */
    static final int SCHEMA_VERSION = 2;

    private volatile DataSource dataSource;
    private final String h2Url;
    private volatile JdbcConnectionPool pool;
    /**
     * On an H2 file, one write transaction at a time. H2's MVStore skips a commit's store when
     * another thread's store moved the version meanwhile, taking it to include this commit; under
     * concurrent appends an acknowledged append then went missing after a kill, about one
     * CrashConsistencyTest run in five, even with {@code CHECKPOINT SYNC}. The fsync that every
     * append waits for is serial anyway, so this costs little.
     */
    private final ReentrantLock fileWrites = new ReentrantLock();
    /**
     * On an H2 file: every database call holds the read side; compaction, which closes and
     * reopens the database, holds the write side, so no call sees the pool being swapped.
     */
    private final ReentrantReadWriteLock gate = new ReentrantReadWriteLock();
    /** Compact automatically once the file exceeds this and four times its size after the last compaction. */
    private final long autoCompactMinBytes;
    private volatile long compactedBytes;
    private final AtomicLong appendsSinceSizeCheck = new AtomicLong();
    private volatile boolean closed;

    /** A store on any JDBC data source (e.g. a PostgreSQL pool); the caller owns its life. */
    public JdbcEventStore(DataSource dataSource) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.h2Url = null;
        this.autoCompactMinBytes = Long.MAX_VALUE;
        migrate();
    }

    private JdbcEventStore(String h2Url, long autoCompactMinBytes) {
        this.h2Url = h2Url;
        this.autoCompactMinBytes = autoCompactMinBytes;
        this.pool = JdbcConnectionPool.create(h2Url, "sa", "");
        this.pool.setMaxConnections(16);
        this.dataSource = pool;
        awaitFileLock();
        migrate();
        this.compactedBytes = isH2File() ? fileSize() : 0;
    }

    /** H2's "database may be already in use": the file is locked by another process. */
    private static final int H2_FILE_LOCKED = 90020;
    private static final long LOCK_WAIT_MILLIS = 5_000;

    /**
     * Waits up to {@link #LOCK_WAIT_MILLIS} for another process to release an H2 file; a process
     * restarted right after the previous one was killed can find the lock not yet released (the
     * kill test saw this about once in a hundred restarts).
     *
     * @throws MemoryException when the file is still locked after that
     */
    private void awaitFileLock() {
        if (!isH2File()) {
            return;
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(LOCK_WAIT_MILLIS);
        while (true) {
            try (Connection c = dataSource.getConnection()) {
                return;
            } catch (SQLException e) {
                if (e.getErrorCode() != H2_FILE_LOCKED) {
                    return;
                }
                if (System.nanoTime() > deadline) {
                    pool.dispose();
                    throw new MemoryException("the H2 file " + h2FilePath() + " is in use by another process (waited "
                            + LOCK_WAIT_MILLIS / 1000 + " s); close it there first", e);
                }
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
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
        String path = file.toAbsolutePath().toString();
        if (path.endsWith(".mv.db")) {
            path = path.substring(0, path.length() - ".mv.db".length());
        }
        return new JdbcEventStore("jdbc:h2:file:" + path + ";WRITE_DELAY=0;REUSE_SPACE=FALSE;DB_CLOSE_ON_EXIT=FALSE",
                autoCompactMinBytes);
    }

    /** A named in-memory H2 database that lives until this store is closed. */
    public static JdbcEventStore h2InMemory(String name) {
        Objects.requireNonNull(name, "name");
        if (!name.matches("[A-Za-z0-9_-]{1,64}")) {
            throw new IllegalArgumentException("database name must be 1-64 letters, digits, _ or -: " + name);
        }
        return new JdbcEventStore("jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1", Long.MAX_VALUE);
    }

    private void migrate() {
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement()) {
            String product = c.getMetaData().getDatabaseProductName().toLowerCase();
            boolean postgres = product.contains("postgres");
            // up to 1,000,000,000 characters on H2, unlimited on PostgreSQL
            String text = postgres ? "TEXT" : "CHARACTER VARYING";
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
                if (!postgres) {
                    // rewrites every row once; a table created just above already has the type
                    st.execute("ALTER TABLE memory_events ALTER COLUMN payload SET DATA TYPE " + text);
                }
                st.execute("INSERT INTO memory_schema (version) VALUES (2)");
            }
        } catch (SQLException e) {
            throw new MemoryException("cannot create or migrate the memory schema: " + e.getMessage(), e);
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
        try (Held shared = shared()) {
            lockFileWrites();
            try {
                insert(partition, expectedLastSeq, events);
            } finally {
                unlockFileWrites();
            }
        }
        maybeCompact();
    }

    /** Holds the read side of {@link #gate} (H2 file only) until closed. */
    private interface Held extends AutoCloseable {
        @Override
        void close();
    }

    private Held shared() {
        if (!isH2File()) {
            return () -> { };
        }
        gate.readLock().lock();
        return () -> gate.readLock().unlock();
    }

    /** Checks the file's size every 256 appends and compacts it once it has grown too much. */
    private void maybeCompact() {
        if (!isH2File() || appendsSinceSizeCheck.incrementAndGet() % 256 != 0) {
            return;
        }
        long size = fileSize();
        if (size > autoCompactMinBytes && size > 4 * compactedBytes) {
            compact();
        }
    }

    private long fileSize() {
        try {
            return java.nio.file.Files.size(Path.of(h2FilePath()));
        } catch (java.io.IOException e) {
            return 0;
        }
    }

    private String h2FilePath() {
        return h2Url.substring("jdbc:h2:file:".length(), h2Url.indexOf(';')) + ".mv.db";
    }

    private void insert(Partition partition, long expectedLastSeq, List<StoredEvent> events) {
        try (Connection c = dataSource.getConnection()) {
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
                flushToFile(c);
            } catch (SQLException e) {
                c.rollback();
                if (isDuplicateKey(e)) {
                    throw new StaleVersionException("another writer appended to " + partition + " first");
                }
                throw e;
            } catch (RuntimeException e) {
                c.rollback();
                throw e;
            }
        } catch (SQLException e) {
            throw new MemoryException("cannot append to " + partition + ": " + e.getMessage(), e);
        }
    }

    private void lockFileWrites() {
        if (isH2File()) {
            fileWrites.lock();
        }
    }

    private void unlockFileWrites() {
        if (isH2File()) {
            fileWrites.unlock();
        }
    }

    /**
     * For an embedded H2 file: makes the committed change durable before the append returns
     * ({@code CHECKPOINT SYNC} waits for the write and syncs the file). Without it, H2 may still
     * be writing the last commit from a background thread when the process is killed, and an
     * acknowledged append is lost (CrashConsistencyTest caught this). Costs one sync per append;
     * batch proposals to amortise it. A plain {@code CHECKPOINT} does not wait for that write:
     * the same test lost acknowledged appends with it, even with checkpoints serialised.
     */
    private void flushToFile(Connection c) throws SQLException {
        if (!isH2File()) {
            return;
        }
        try (Statement st = c.createStatement()) {
            st.execute("CHECKPOINT SYNC");
        }
    }

    private boolean isH2File() {
        return h2Url != null && h2Url.startsWith("jdbc:h2:file:");
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

    private static boolean isDuplicateKey(SQLException e) {
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

    @Override
    public List<StoredEvent> read(Partition partition, long afterSeq) {
        Objects.requireNonNull(partition, "partition");
        try (Held shared = shared()) {
            try (Connection c = dataSource.getConnection();
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
                throw new MemoryException("cannot read " + partition + ": " + e.getMessage(), e);
            }
        }
    }

    @Override
    public long lastSequence(Partition partition) {
        Objects.requireNonNull(partition, "partition");
        try (Held shared = shared()) {
            try (Connection c = dataSource.getConnection()) {
                return lastSequence(c, partition);
            } catch (SQLException e) {
                throw new MemoryException("cannot read " + partition + ": " + e.getMessage(), e);
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
        Held shared = shared();
        lockFileWrites();
        try (Connection c = dataSource.getConnection()) {
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
                flushToFile(c);
            } catch (SQLException e) {
                c.rollback();
                throw e;
            }
        } catch (SQLException e) {
            throw new MemoryException("cannot rewrite events of " + partition + ": " + e.getMessage(), e);
        } finally {
            unlockFileWrites();
            shared.close();
        }
    }

    @Override
    public List<Partition> partitions(String tenant) {
        Objects.requireNonNull(tenant, "tenant");
        try (Held shared = shared()) {
            try (Connection c = dataSource.getConnection();
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
                throw new MemoryException("cannot list users of " + tenant + ": " + e.getMessage(), e);
            }
        }
    }

    /**
     * For an embedded H2 file: closes the database, copies its live data into a fresh,
     * uncompressed file (so purged bytes leave it, and a byte scan of the file can prove it), then
     * reopens it. Other
     * databases reclaim space with their own tools (PostgreSQL: VACUUM FULL); no-op for them.
     */
    @Override
    public synchronized void compact() {
        if (!isH2File()) {
            return;
        }
        gate.writeLock().lock();
        try {
            compactClosed();
        } finally {
            gate.writeLock().unlock();
        }
    }

    private void compactClosed() {
        pool.dispose();
        try (Connection c = java.sql.DriverManager.getConnection(h2Url, "sa", ""); Statement st = c.createStatement()) {
            st.execute("SHUTDOWN");
        } catch (SQLException e) {
            throw new MemoryException("cannot close the H2 database for compaction: " + e.getMessage(), e);
        }
        // Copy the live data into a fresh file, uncompressed: SHUTDOWN COMPACT compresses every
        // page, which hides from a byte scan whether a purged value is really gone.
        String file = h2FilePath();
        try {
            org.h2.mvstore.MVStoreTool.compact(file, false);
        } catch (RuntimeException e) {
            throw new MemoryException("cannot compact the H2 database " + file + ": " + e.getMessage(), e);
        }
        JdbcConnectionPool fresh = JdbcConnectionPool.create(h2Url, "sa", "");
        fresh.setMaxConnections(16);
        pool = fresh;
        dataSource = fresh;
        compactedBytes = fileSize();
    }

    @Override
    public void close() {
        if (pool == null || closed) {
            return;
        }
        closed = true;
        // SHUTDOWN closes the database now, even if a connection is still out, so that the
        // file's lock is released when close() returns and another process can open it. It runs
        // on a connection of its own: a pooled one would try to roll back on its way back to
        // the closed database, and H2 would log that failure to a .trace.db file at every close.
        try (Connection c = java.sql.DriverManager.getConnection(h2Url, "sa", ""); Statement st = c.createStatement()) {
            st.execute("SHUTDOWN");
        } catch (SQLException e) {
            // closing anyway: the pool is disposed below
        }
        pool.dispose();
    }
}

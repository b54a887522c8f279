package dev.agentmemory.store.jdbc;

import dev.agentmemory.core.MemoryException;
import dev.agentmemory.core.StaleVersionException;
import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.core.spi.StoredEvent;
import dev.agentmemory.core.spi.StoredSnapshot;

import javax.sql.DataSource;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An {@link EventStore} on a relational database through JDBC. H2 (embedded file or in-memory)
 * is the default; the SQL is portable, and what differs per database (type names, DDL, how a
 * key conflict is reported) is a {@link SqlDialect} chosen from the driver's product name. The
 * schema is created or migrated at start.
 *
 * <p>{@code memory_events}, primary key (tenant, user_id, seq): the key both orders a user's log
 * and stops two writers from appending the same sequence. Appends are one transaction. On an H2
 * file every acknowledged append is on the disk before it returns. Thread-safe.
 *
 * <p>The store never serves data other than what it wrote: every row carries a checksum of its
 * columns and the value of a hash chain over its partition's log, and {@code memory_heads} holds
 * each partition's last sequence and chain value, updated in the append's transaction. Every read
 * checks them; a partition whose log does not match is refused (a {@link MemoryException} naming
 * the store, the partition, the sequence and what is wrong) while the others stay readable. An H2
 * file also counts its write transactions and keeps that count, synced after each commit, in a
 * high-water mark beside it ({@code <name>.hwm}): a file that was cut short or replaced by an
 * older copy is refused at open. A file that has committed writes but no mark (its {@code .mv.db}
 * copied or restored alone) is refused too, since nothing can tell whether it is complete, unless
 * opened with {@link H2FileOption#ACCEPT_MISSING_HIGH_WATER_MARK}: it then gets a fresh mark, and
 * every audit reports that it was opened without one ({@link #auditFindings()}). A file with no
 * committed writes and no mark (new, or created before the mark existed and not written since) is
 * opened and gets its mark. An existing file that is empty or holds no memory schema is refused
 * rather than treated as a new database.
 *
 * <p>One owner per H2 file: a second {@link #h2File} on a file already open in this JVM is
 * refused, as is one in another process (after waiting 5 s for its lock).
 */
final class JdbcEventStore implements EventStore {

    /**
     * 1: the table. 2: on H2 the payload is {@code CHARACTER VARYING} instead of {@code CLOB}
     * (see {@link H2Dialect#largeTextType()}). PostgreSQL keeps {@code TEXT}. 3: a checksum and a
     * chain value on every row ({@code event_hash}, {@code chain_hash}), each partition's last
     * sequence and chain value ({@code memory_heads}), the count of write transactions
     * ({@code memory_meta}); a schema-2 database gets them computed from its rows when it is
     * opened, once. 4: {@code memory_snapshots}, each partition's latest snapshot (derived data,
     * see {@link #saveSnapshot}); nothing else changes, so a schema-3 database only gets the table.
     */
    static final int SCHEMA_VERSION = 4;

    private static final String WRITES = "writes";
    /** In {@code memory_meta}: the count of writes when the file was accepted without its high-water mark. */
    private static final String UNVERIFIED = "opened_without_mark";

    /** Connections, and what the database needs around them (locks, syncs, compaction, close). */
    private final Database database;
    /** Type names, DDL and error codes of the database, from its driver's product name. */
    private final SqlDialect dialect;
    /** The store's name in every error: a file path or a JDBC URL without credentials. */
    private final String name;
    /** Write transactions committed, when {@link Database#keepsHighWaterMark()}. */
    private final AtomicLong writes = new AtomicLong();

    /** A store on a data source the caller owns: it only borrows connections. */
    static JdbcEventStore onDataSource(DataSource dataSource) {
        return new JdbcEventStore(new Database.CallerDataSource(dataSource));
    }

    private JdbcEventStore(Database.CallerDataSource database) {
        this.database = database;
        this.name = database.name();
        this.dialect = migrate();
    }

    /** A store on a pool it opened (and closes); migrates while holding the database's migration lock. */
    static JdbcEventStore onServer(PooledDatabase database) {
        return new JdbcEventStore(database);
    }

    private JdbcEventStore(PooledDatabase database) {
        this.database = database;
        this.name = database.name();
        try {
            this.dialect = migrateLocked(database);
        } catch (RuntimeException e) {
            database.close();
            throw e;
        }
    }

    /**
     * {@link #migrate()} while holding the database's migration lock (PostgreSQL: a session
     * advisory lock on a connection of its own), so that instances starting together on one
     * database migrate one after the other.
     */
    private SqlDialect migrateLocked(PooledDatabase pooled) {
        try (Connection lock = pooled.lockConnection()) {
            SqlDialect dialect = SqlDialect.forProduct(lock.getMetaData().getDatabaseProductName());
            dialect.lockMigration(lock);
            try {
                return migrate();
            } finally {
                dialect.unlockMigration(lock);
            }
        } catch (SQLException e) {
            throw new MemoryException("store " + name + ": cannot lock the memory schema for migration: "
                    + e.getMessage(), e);
        }
    }

    /** A store on an H2 database it opened (and closes); checks the file's high-water mark. */
    static JdbcEventStore onH2(H2Database database, boolean acceptMissingMark) {
        return new JdbcEventStore(database, acceptMissingMark);
    }

    private JdbcEventStore(H2Database database, boolean acceptMissingMark) {
        this.database = database;
        this.name = database.name();
        try {
            this.dialect = migrate();
            database.opened();
            checkHighWaterMark(database, acceptMissingMark);
        } catch (RuntimeException e) {
            database.close();
            throw e;
        }
    }

    /** Creates or migrates the schema; returns the database's dialect. */
    private SqlDialect migrate() {
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
            // every table and column the store uses is there (a damaged catalog fails here, not at a later read)
            st.executeQuery("SELECT tenant, user_id, seq, at_time, type, actor, trace_id, payload, event_hash, chain_hash"
                    + " FROM memory_events WHERE 1 = 0").close();
            st.executeQuery("SELECT tenant, user_id, last_seq, chain_head FROM memory_heads WHERE 1 = 0").close();
            st.executeQuery("SELECT tenant, user_id, seq, payload FROM memory_snapshots WHERE 1 = 0").close();
            try (ResultSet rs = st.executeQuery("SELECT counter FROM memory_meta WHERE meta_key = '" + WRITES + "'")) {
                writes.set(rs.next() ? rs.getLong(1) : 0);
            }
            return dialect;
        } catch (SQLException e) {
            throw new MemoryException("store " + name + ": cannot open, create or migrate the memory schema: "
                    + e.getMessage(), e);
        }
    }

    private static boolean hasTable(Connection c, String table) throws SQLException {
        for (String candidate : List.of(table.toUpperCase(java.util.Locale.ROOT), table)) {
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
            st.execute("INSERT INTO memory_meta (meta_key, counter) VALUES ('" + WRITES + "', 0)");
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

    /**
     * Refuses a file that committed fewer writes than its high-water mark records, and one that
     * committed writes but has no mark, unless {@code acceptMissingMark}; writes a mark for a file
     * without one that is opened.
     *
     * <p>The mark was introduced with schema 3, and every file opened since gets one at once, before
     * its first write. A file with committed writes (which only schema 3 and later count) and no
     * mark therefore lost it: copied or restored alone. A file from before schema 3 has none
     * and counts no writes: it is opened and gets its mark, with no option needed.
     */
    private void checkHighWaterMark(H2Database h2, boolean acceptMissingMark) {
        if (!h2.keepsHighWaterMark()) {
            return;
        }
        java.util.OptionalLong found = h2.findHighWaterMark();
        if (found.isEmpty()) {
            if (writes.get() > 0 && !acceptMissingMark) {
                throw new MemoryException("the H2 file " + name + " holds " + writes.get() + " write transactions but"
                        + " has no high-water mark (" + h2.highWaterMarkPath() + " is missing or unreadable), so whether"
                        + " it lost writes cannot be checked: restore it with its .hwm, or open it as it is with"
                        + " H2FileOption.ACCEPT_MISSING_HIGH_WATER_MARK (AgentMemory: acceptMissingHighWaterMark(),"
                        + " agentmemory.h2.accept-missing-high-water-mark=true)");
            }
            if (writes.get() > 0) {
                recordOpenedWithoutMark();
            }
            h2.writeHighWaterMark(writes.get());
            return;
        }
        long mark = found.getAsLong();
        if (writes.get() < mark) {
            throw new MemoryException("the H2 file " + name + " has lost writes it had acknowledged: it holds "
                    + writes.get() + " write transactions, but its high-water mark " + h2.highWaterMarkPath()
                    + " records " + mark + " (the file was cut short or replaced by an older copy); if an older copy"
                    + " was restored on purpose, delete " + h2.highWaterMarkPath().getFileName() + " and open it with"
                    + " H2FileOption.ACCEPT_MISSING_HIGH_WATER_MARK");
        }
    }

    /** Records in the file, durably, that it was opened without its high-water mark at the current count of writes. */
    private void recordOpenedWithoutMark() {
        try (Connection c = database.dataSource().getConnection()) {
            try (PreparedStatement update = c.prepareStatement("UPDATE memory_meta SET counter = ? WHERE meta_key = ?")) {
                update.setLong(1, writes.get());
                update.setString(2, UNVERIFIED);
                if (update.executeUpdate() == 0) {
                    try (PreparedStatement insert = c.prepareStatement(
                            "INSERT INTO memory_meta (meta_key, counter) VALUES (?, ?)")) {
                        insert.setString(1, UNVERIFIED);
                        insert.setLong(2, writes.get());
                        insert.executeUpdate();
                    }
                }
            }
            try (Statement st = c.createStatement()) {
                st.execute("CHECKPOINT SYNC");
            }
        } catch (SQLException e) {
            throw new MemoryException("store " + name + ": cannot record that it was opened without its high-water mark: "
                    + e.getMessage(), e);
        }
    }

    /**
     * On an H2 file accepted without its high-water mark ({@link H2FileOption#ACCEPT_MISSING_HIGH_WATER_MARK}):
     * one line saying so, in every audit from then on. None otherwise.
     */
    @Override
    public List<String> auditFindings() {
        if (!database.keepsHighWaterMark()) {
            return List.of();
        }
        try (Database.Held reading = database.reading()) {
            try (Connection c = database.dataSource().getConnection();
                 PreparedStatement ps = c.prepareStatement("SELECT counter FROM memory_meta WHERE meta_key = ?")) {
                ps.setString(1, UNVERIFIED);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return List.of();
                    }
                    return List.of("the H2 file " + name + " was opened without its high-water mark when it held "
                            + rs.getLong(1) + " write transactions; completeness unverified (writes before then may"
                            + " have been lost)");
                }
            } catch (SQLException e) {
                throw new MemoryException("store " + name + ": cannot read its findings: " + e.getMessage(), e);
            }
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

    /** A partition's last sequence and chain value as committed with its last append. */
    private record Head(long lastSeq, long chain) {
        static final Head EMPTY = new Head(0, 0);
    }

    private static Head head(Connection c, Partition partition) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT last_seq, chain_head FROM memory_heads WHERE tenant = ? AND user_id = ?")) {
            ps.setString(1, partition.tenant());
            ps.setString(2, partition.user());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? new Head(rs.getLong(1), rs.getLong(2)) : Head.EMPTY;
            }
        }
    }

    private void insert(Partition partition, long expectedLastSeq, List<StoredEvent> events) {
        try (Connection c = database.dataSource().getConnection()) {
            c.setAutoCommit(false);
            try {
                // The primary key refuses a second writer's seq expectedLastSeq + 1; the head
                // refuses a caller that is ahead of the log (a gap) and gives the chain to extend.
                Head head = head(c, partition);
                if (head.lastSeq() != expectedLastSeq) {
                    throw new StaleVersionException("partition " + partition + " is at seq " + head.lastSeq()
                            + ", not " + expectedLastSeq);
                }
                long chain = head.chain();
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO memory_events (tenant, user_id, seq, "
                        + "at_time, type, actor, trace_id, payload, event_hash, chain_hash) "
                        + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
                    for (StoredEvent e : events) {
                        String at = e.at().toString();
                        long hash = EventDigest.event(partition, e.seq(), at, e.type(), e.actor(), e.traceId(), e.payload());
                        chain = EventDigest.chain(chain, hash);
                        ps.setString(1, partition.tenant());
                        ps.setString(2, partition.user());
                        ps.setLong(3, e.seq());
                        ps.setString(4, at);
                        ps.setString(5, e.type());
                        ps.setString(6, e.actor());
                        ps.setString(7, e.traceId());
                        ps.setString(8, e.payload());
                        ps.setLong(9, hash);
                        ps.setLong(10, chain);
                        ps.addBatch();
                    }
                    ps.executeBatch();
                }
                long last = events.get(events.size() - 1).seq();
                if (expectedLastSeq == 0) {
                    try (PreparedStatement ps = c.prepareStatement(
                            "INSERT INTO memory_heads (tenant, user_id, last_seq, chain_head) VALUES (?, ?, ?, ?)")) {
                        ps.setString(1, partition.tenant());
                        ps.setString(2, partition.user());
                        ps.setLong(3, last);
                        ps.setLong(4, chain);
                        ps.executeUpdate();
                    }
                } else if (!moveHead(c, partition, expectedLastSeq, last, chain)) {
                    throw new StaleVersionException("another writer appended to " + partition + " first");
                }
                long written = countWrite(c);
                c.commit();
                committed(c, written);
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
            throw new MemoryException("store " + name + ": cannot append to " + partition + ": " + e.getMessage(), e);
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

    private static boolean moveHead(Connection c, Partition partition, long fromSeq, long toSeq, long chain)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE memory_heads SET last_seq = ?, chain_head = ? "
                + "WHERE tenant = ? AND user_id = ? AND last_seq = ?")) {
            ps.setLong(1, toSeq);
            ps.setLong(2, chain);
            ps.setString(3, partition.tenant());
            ps.setString(4, partition.user());
            ps.setLong(5, fromSeq);
            return ps.executeUpdate() == 1;
        }
    }

    /** In the write transaction: counts it, when the database keeps a high-water mark; returns the new count. */
    private long countWrite(Connection c) throws SQLException {
        if (!database.keepsHighWaterMark()) {
            return 0;
        }
        long next = writes.get() + 1;
        try (PreparedStatement ps = c.prepareStatement("UPDATE memory_meta SET counter = ? WHERE meta_key = ?")) {
            ps.setLong(1, next);
            ps.setString(2, WRITES);
            ps.executeUpdate();
        }
        return next;
    }

    private void committed(Connection c, long written) throws SQLException {
        if (database.keepsHighWaterMark()) {
            writes.set(written);
        }
        database.afterCommit(c, written);
    }

    /**
     * Events of the partition after {@code afterSeq}, each checked against its checksum and the
     * partition's chain and head.
     *
     * @throws MemoryException naming the store, the partition and the first damaged sequence when
     *         the stored log is not the one that was written
     */
    @Override
    public List<StoredEvent> read(Partition partition, long afterSeq) {
        Objects.requireNonNull(partition, "partition");
        try (Database.Held reading = database.reading()) {
            try (Connection c = database.dataSource().getConnection()) {
                for (int attempt = 1; ; attempt++) {
                    List<StoredEvent> out = new ArrayList<>();
                    try {
                        walk(c, partition, afterSeq, (row, event) -> out.add(event));
                        return out;
                    } catch (DamagedLog e) {
                        // A rewrite committed between reading the head and the rows looks like this
                        // once; damage in the file looks like this every time.
                        if (attempt == READ_ATTEMPTS) {
                            throw e;
                        }
                    }
                }
            } catch (SQLException e) {
                throw new MemoryException("store " + name + ": cannot read " + partition + ": " + e.getMessage(), e);
            }
        }
    }

    private static final int READ_ATTEMPTS = 3;

    /** The stored log of a partition is not the one that was written. */
    private static final class DamagedLog extends MemoryException {
        DamagedLog(String message) {
            super(message);
        }
    }

    /** One stored row with its checksums as stored (null when missing). */
    private record Row(long seq, String at, String type, String actor, String traceId, String payload,
                       Long eventHash, Long chainHash) {
    }

    private interface RowVisitor {
        void visit(Row row, StoredEvent event) throws SQLException;
    }

    /**
     * Reads and checks the partition's rows after {@code afterSeq} in order, then checks that
     * they reach the partition's head (read first: rows appended after it continue the chain and
     * are checked the same way); returns that head.
     */
    private Head walk(Connection c, Partition partition, long afterSeq, RowVisitor visitor) throws SQLException {
        Head head = head(c, partition);
        long chain = 0;
        if (afterSeq > 0) {
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT chain_hash FROM memory_events WHERE tenant = ? AND user_id = ? AND seq = ?")) {
                ps.setString(1, partition.tenant());
                ps.setString(2, partition.user());
                ps.setLong(3, afterSeq);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        if (afterSeq < head.lastSeq()) {
                            throw damaged(partition, afterSeq, "the event is missing");
                        }
                        return head; // after the end of the log: nothing to read
                    }
                    long stored = rs.getLong(1);
                    if (rs.wasNull()) {
                        throw damaged(partition, afterSeq, "its chain value is missing");
                    }
                    chain = stored;
                }
            }
        }
        long last = afterSeq;
        long chainAtHead = 0;
        try (PreparedStatement ps = c.prepareStatement("SELECT seq, at_time, type, actor, trace_id, payload, "
                + "event_hash, chain_hash FROM memory_events WHERE tenant = ? AND user_id = ? AND seq > ? ORDER BY seq")) {
            ps.setString(1, partition.tenant());
            ps.setString(2, partition.user());
            ps.setLong(3, afterSeq);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    Row row = new Row(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4),
                            rs.getString(5), rs.getString(6), rs.getObject(7, Long.class), rs.getObject(8, Long.class));
                    if (row.seq() != last + 1) {
                        throw damaged(partition, last + 1, "the log jumps from seq " + last + " to " + row.seq());
                    }
                    if (head.lastSeq() == 0) {
                        throw damaged(partition, row.seq(), "it has events but no head");
                    }
                    long event = EventDigest.event(partition, row.seq(), row.at(), row.type(), row.actor(),
                            row.traceId(), row.payload());
                    if (row.eventHash() == null || row.eventHash() != event) {
                        throw damaged(partition, row.seq(), "its checksum does not match its contents");
                    }
                    chain = EventDigest.chain(chain, event);
                    if (row.chainHash() == null || row.chainHash() != chain) {
                        throw damaged(partition, row.seq(), "its chain value does not follow the event before it");
                    }
                    last = row.seq();
                    if (last == head.lastSeq()) {
                        chainAtHead = chain;
                    }
                    visitor.visit(row, toEvent(partition, row));
                }
            }
        }
        if (afterSeq < head.lastSeq() && (last < head.lastSeq() || chainAtHead != head.chain())) {
            throw damaged(partition, Math.min(last + 1, head.lastSeq()), last < head.lastSeq()
                    ? "the log ends at seq " + last + " but seq " + head.lastSeq() + " was committed"
                    : "the chain does not reach the partition's head");
        }
        return head;
    }

    private StoredEvent toEvent(Partition partition, Row row) {
        Instant at;
        try {
            at = Instant.parse(row.at());
        } catch (DateTimeParseException e) {
            throw new MemoryException("store " + name + ": partition " + partition + " seq " + row.seq()
                    + ": stored time '" + row.at() + "' is not an instant: " + e.getMessage(), e);
        }
        try {
            return new StoredEvent(row.seq(), at, row.type(), row.actor(), row.traceId(), row.payload());
        } catch (RuntimeException e) {
            throw new MemoryException("store " + name + ": partition " + partition + " seq " + row.seq()
                    + ": stored event is invalid: " + e.getMessage(), e);
        }
    }

    private DamagedLog damaged(Partition partition, long seq, String what) {
        return new DamagedLog("store " + name + ": the log of partition " + partition + " is damaged at seq "
                + seq + ": " + what + "; its events are not served");
    }

    /**
     * True for a database server or a caller's data source (other instances may write to it);
     * false for an embedded H2 database this store opened, which no other store can open.
     */
    @Override
    public boolean sharedWithOtherWriters() {
        return database.sharedWithOtherWriters();
    }

    @Override
    public long lastSequence(Partition partition) {
        Objects.requireNonNull(partition, "partition");
        try (Database.Held reading = database.reading()) {
            try (Connection c = database.dataSource().getConnection()) {
                return lastSequence(c, partition);
            } catch (SQLException e) {
                throw new MemoryException("store " + name + ": cannot read " + partition + ": " + e.getMessage(), e);
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

    /**
     * Replaces payloads (hard forgetting), after checking the log from the first replaced event
     * on; the checksums and chain values from there on are recomputed in the same transaction.
     */
    @Override
    public void rewrite(Partition partition, Map<Long, String> payloadBySeq) {
        Objects.requireNonNull(partition, "partition");
        if (payloadBySeq.isEmpty()) {
            return;
        }
        TreeMap<Long, String> replaced = new TreeMap<>(payloadBySeq);
        long from = Math.max(1, replaced.firstKey());
        Database.Held writing = database.writing();
        try (Connection c = database.dataSource().getConnection()) {
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("UPDATE memory_events SET payload = ?, event_hash = ?, "
                    + "chain_hash = ? WHERE tenant = ? AND user_id = ? AND seq = ?")) {
                long[] chain = {from == 1 ? 0 : storedChain(c, partition, from - 1)};
                Head head = walk(c, partition, from - 1, (row, event) -> {
                    String payload = replaced.getOrDefault(row.seq(), row.payload());
                    long hash = EventDigest.event(partition, row.seq(), row.at(), row.type(), row.actor(),
                            row.traceId(), payload);
                    chain[0] = EventDigest.chain(chain[0], hash);
                    ps.setString(1, payload);
                    ps.setLong(2, hash);
                    ps.setLong(3, chain[0]);
                    ps.setString(4, partition.tenant());
                    ps.setString(5, partition.user());
                    ps.setLong(6, row.seq());
                    ps.addBatch();
                });
                if (head.lastSeq() >= from) {
                    ps.executeBatch();
                    if (!moveHead(c, partition, head.lastSeq(), head.lastSeq(), chain[0])) {
                        throw new StaleVersionException("another writer changed " + partition + " during the rewrite");
                    }
                    long written = countWrite(c);
                    c.commit();
                    committed(c, written);
                } else {
                    c.commit();
                }
            } catch (SQLException | RuntimeException e) {
                rollback(c, e);
                throw e;
            }
        } catch (SQLException e) {
            throw new MemoryException("store " + name + ": cannot rewrite events of " + partition + ": "
                    + e.getMessage(), e);
        } finally {
            writing.close();
        }
    }

    /** The stored chain value of one event (the one before a rewrite); 0 when the event is missing. */
    private static long storedChain(Connection c, Partition partition, long seq) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT chain_hash FROM memory_events WHERE tenant = ? AND user_id = ? AND seq = ?")) {
            ps.setString(1, partition.tenant());
            ps.setString(2, partition.user());
            ps.setLong(3, seq);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : 0;
            }
        }
    }

    /** The partition's snapshot row, if any (its contents are checked by the engine). */
    @Override
    public Optional<StoredSnapshot> snapshot(Partition partition) {
        Objects.requireNonNull(partition, "partition");
        try (Database.Held reading = database.reading()) {
            try (Connection c = database.dataSource().getConnection();
                 PreparedStatement ps = c.prepareStatement(
                         "SELECT seq, payload FROM memory_snapshots WHERE tenant = ? AND user_id = ?")) {
                ps.setString(1, partition.tenant());
                ps.setString(2, partition.user());
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(new StoredSnapshot(rs.getLong(1), rs.getString(2))) : Optional.empty();
                }
            } catch (SQLException | IllegalArgumentException e) {
                throw new MemoryException("store " + name + ": cannot read the snapshot of " + partition + ": "
                        + e.getMessage(), e);
            }
        }
    }

    /**
     * Replaces the partition's snapshot in one transaction that first locks the partition's head
     * row at {@code snapshot.seq()}: an append or forget committed since makes it keep nothing,
     * and one that comes later waits for it (so a forget's {@link #deleteSnapshots} after its
     * append always sees it). Not counted as a write for the high-water mark: losing a snapshot
     * in a crash only costs a longer replay.
     */
    @Override
    public boolean saveSnapshot(Partition partition, StoredSnapshot snapshot) {
        Objects.requireNonNull(partition, "partition");
        Objects.requireNonNull(snapshot, "snapshot");
        try (Database.Held writing = database.writing()) {
            try (Connection c = database.dataSource().getConnection()) {
                c.setAutoCommit(false);
                try {
                    boolean kept = false;
                    if (lockHeadAt(c, partition, snapshot.seq())) {
                        deleteSnapshots(c, partition);
                        try (PreparedStatement ps = c.prepareStatement(
                                "INSERT INTO memory_snapshots (tenant, user_id, seq, payload) VALUES (?, ?, ?, ?)")) {
                            ps.setString(1, partition.tenant());
                            ps.setString(2, partition.user());
                            ps.setLong(3, snapshot.seq());
                            ps.setString(4, snapshot.payload());
                            ps.executeUpdate();
                        }
                        kept = true;
                    }
                    c.commit();
                    return kept;
                } catch (SQLException | RuntimeException e) {
                    rollback(c, e);
                    throw e;
                }
            } catch (SQLException e) {
                throw new MemoryException("store " + name + ": cannot save a snapshot of " + partition + ": "
                        + e.getMessage(), e);
            }
        }
    }

    @Override
    public void deleteSnapshots(Partition partition) {
        Objects.requireNonNull(partition, "partition");
        try (Database.Held writing = database.writing()) {
            try (Connection c = database.dataSource().getConnection()) {
                deleteSnapshots(c, partition);
            } catch (SQLException e) {
                throw new MemoryException("store " + name + ": cannot delete the snapshots of " + partition + ": "
                        + e.getMessage(), e);
            }
        }
    }

    /** Locks the partition's head row for this transaction if it is at {@code seq}; returns whether it is. */
    private static boolean lockHeadAt(Connection c, Partition partition, long seq) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE memory_heads SET last_seq = last_seq "
                + "WHERE tenant = ? AND user_id = ? AND last_seq = ?")) {
            ps.setString(1, partition.tenant());
            ps.setString(2, partition.user());
            ps.setLong(3, seq);
            return ps.executeUpdate() == 1;
        }
    }

    private static void deleteSnapshots(Connection c, Partition partition) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("DELETE FROM memory_snapshots WHERE tenant = ? AND user_id = ?")) {
            ps.setString(1, partition.tenant());
            ps.setString(2, partition.user());
            ps.executeUpdate();
        }
    }

    /** Every partition of a tenant that has events: those with a head (each append writes one). */
    @Override
    public List<Partition> partitions(String tenant) {
        Objects.requireNonNull(tenant, "tenant");
        try (Database.Held reading = database.reading()) {
            try (Connection c = database.dataSource().getConnection();
                 PreparedStatement ps = c.prepareStatement(
                         "SELECT user_id FROM memory_heads WHERE tenant = ? ORDER BY user_id")) {
                ps.setString(1, tenant);
                List<Partition> out = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(new Partition(tenant, rs.getString(1)));
                    }
                }
                return out;
            } catch (SQLException e) {
                throw new MemoryException("store " + name + ": cannot list users of " + tenant + ": " + e.getMessage(), e);
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

    /** The store's name: a file path, or a JDBC URL without credentials; never a password. */
    @Override
    public String toString() {
        return "JdbcEventStore[" + name + "]";
    }
}

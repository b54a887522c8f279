package dev.agentmemory.store.jdbc;

import dev.agentmemory.core.MemoryException;
import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.core.spi.StoredEvent;
import dev.agentmemory.core.spi.StoredSnapshot;
import dev.agentmemory.core.spi.StoredVector;
import dev.agentmemory.core.spi.VectorModel;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The {@link EventStore} on a relational database through JDBC (opened by {@link JdbcStores}):
 * opens the database in the right order (schema, then the high-water mark) and hands each call
 * to the part that does it. {@code memory_events}, primary key (tenant, user_id, seq), both
 * orders a user's log and stops two writers from appending the same sequence:
 * <ul>
 *   <li>{@link SchemaMigration}: the tables, created or migrated at open;</li>
 *   <li>{@link LogAppender}: optimistic appends, one transaction each;</li>
 *   <li>{@link LogVerifier}: reads that check every row's checksum and the partition's hash chain;</li>
 *   <li>{@link LogRewrite}: hard forgetting, payloads replaced and the chain recomputed;</li>
 *   <li>{@link SnapshotTable}: each partition's latest snapshot;</li>
 *   <li>{@link VectorTable}: the embeddings of the log's texts, next to their events;</li>
 *   <li>{@link WriteCounter}: the count of writes against an H2 file's high-water mark;</li>
 *   <li>{@link HeadTable}: each partition's last sequence and chain value;</li>
 *   <li>{@link Database}: connections, locks, durability, compaction and close, per kind of database.</li>
 * </ul>
 * Thread-safe.
 */
final class JdbcEventStore implements EventStore {

    /** Connections, and what the database needs around them (locks, syncs, compaction, close). */
    private final Database database;
    /** The store's name in every error: a file path or a JDBC URL without credentials. */
    private final String name;
    private final WriteCounter writes;
    private final LogAppender appender;
    private final LogVerifier verifier;
    private final LogRewrite rewrite;
    private final SnapshotTable snapshots;
    private final VectorTable vectors;

    private JdbcEventStore(Database database, SqlDialect dialect, WriteCounter writes) {
        this.database = database;
        this.name = database.name();
        this.writes = writes;
        this.appender = new LogAppender(database, dialect, writes, name);
        this.verifier = new LogVerifier(database, name);
        this.rewrite = new LogRewrite(database, verifier, writes, name);
        this.snapshots = new SnapshotTable(database, name);
        this.vectors = new VectorTable(database, dialect, name);
    }

    /** A store on a data source the caller owns: it only borrows connections. */
    static JdbcEventStore onDataSource(DataSource dataSource) {
        Database database = new Database.CallerDataSource(dataSource);
        SqlDialect dialect = new SchemaMigration(database, database.name()).run();
        return new JdbcEventStore(database, dialect, loaded(database));
    }

    /**
     * A store on a pool it opened (and closes, also when opening fails); migrates while holding
     * the database's migration lock, so that instances starting together migrate one at a time.
     */
    static JdbcEventStore onServer(PooledDatabase database) {
        try {
            SqlDialect dialect = new SchemaMigration(database, database.name()).runLocked(database);
            return new JdbcEventStore(database, dialect, loaded(database));
        } catch (RuntimeException e) {
            database.close();
            throw e;
        }
    }

    /**
     * A store on an H2 database it opened (and closes, also when opening fails): migrates, then
     * holds the file's count of writes against its high-water mark.
     */
    static JdbcEventStore onH2(H2Database database, boolean acceptMissingMark) {
        try {
            SqlDialect dialect = new SchemaMigration(database, database.name()).run();
            WriteCounter writes = loaded(database);
            database.opened();
            writes.checkAtOpen(database, acceptMissingMark);
            return new JdbcEventStore(database, dialect, writes);
        } catch (RuntimeException e) {
            database.close();
            throw e;
        }
    }

    private static WriteCounter loaded(Database database) {
        WriteCounter writes = new WriteCounter(database, database.name());
        writes.load();
        return writes;
    }

    /**
     * On an H2 file accepted without its high-water mark ({@link H2FileOption#ACCEPT_MISSING_HIGH_WATER_MARK}):
     * one line saying so, in every audit from then on. None otherwise.
     */
    @Override
    public List<String> auditFindings() {
        return writes.auditFindings();
    }

    @Override
    public void append(Partition partition, long expectedLastSeq, List<StoredEvent> events) {
        appender.append(partition, expectedLastSeq, events);
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
        return verifier.read(partition, afterSeq);
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
        return appender.lastSequence(partition);
    }

    /**
     * Replaces payloads (hard forgetting), after checking the log from the first replaced event
     * on; the checksums and chain values from there on are recomputed in the same transaction.
     */
    @Override
    public void rewrite(Partition partition, Map<Long, String> payloadBySeq) {
        rewrite.rewrite(partition, payloadBySeq);
    }

    /** The partition's snapshot row, if any (its contents are checked by the engine). */
    @Override
    public Optional<StoredSnapshot> snapshot(Partition partition) {
        return snapshots.read(partition);
    }

    /**
     * Replaces the partition's snapshot unless an append or forget committed since
     * {@code snapshot.seq()} (see {@link SnapshotTable#save}).
     */
    @Override
    public boolean saveSnapshot(Partition partition, StoredSnapshot snapshot) {
        return snapshots.save(partition, snapshot);
    }

    @Override
    public void deleteSnapshots(Partition partition) {
        snapshots.delete(partition);
    }

    /** True: {@code memory_vectors} keeps them (see {@link VectorTable}). */
    @Override
    public boolean keepsVectors() {
        return true;
    }

    @Override
    public void saveVectors(Partition partition, VectorModel model, List<StoredVector> batch) {
        vectors.save(partition, model, batch);
    }

    /** One query per {@value VectorTable#BATCH} items. */
    @Override
    public Map<String, StoredVector> vectors(Partition partition, VectorModel model, Collection<String> items) {
        return vectors.read(partition, model, items);
    }

    @Override
    public void deleteVectors(Partition partition, Collection<String> items) {
        vectors.delete(partition, items);
    }

    @Override
    public void deleteAllVectors(Partition partition) {
        vectors.deleteAll(partition);
    }

    /** Every partition of a tenant that has events: those with a head (each append writes one). */
    @Override
    public List<Partition> partitions(String tenant) {
        Objects.requireNonNull(tenant, "tenant");
        try (Database.Held reading = database.reading()) {
            try (Connection c = database.dataSource().getConnection()) {
                return HeadTable.partitions(c, tenant);
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

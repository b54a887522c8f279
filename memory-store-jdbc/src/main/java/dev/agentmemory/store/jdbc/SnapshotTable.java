package dev.agentmemory.store.jdbc;

import dev.agentmemory.core.MemoryException;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.core.spi.StoredSnapshot;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Objects;
import java.util.Optional;

/**
 * {@code memory_snapshots}: each partition's latest snapshot, derived data the engine writes and
 * checks (see {@code EventStore.saveSnapshot}). One row per partition.
 */
final class SnapshotTable {

    private final Database database;
    /** The store's name in every error. */
    private final String name;

    SnapshotTable(Database database, String name) {
        this.database = database;
        this.name = name;
    }

    /** The partition's snapshot row, if any (its contents are checked by the engine). */
    Optional<StoredSnapshot> read(Partition partition) {
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
     * and one that comes later waits for it (so a forget's {@link #delete} after its
     * append always sees it). Not counted as a write for the high-water mark: losing a snapshot
     * in a crash only costs a longer replay.
     */
    boolean save(Partition partition, StoredSnapshot snapshot) {
        Objects.requireNonNull(partition, "partition");
        Objects.requireNonNull(snapshot, "snapshot");
        try (Database.Held writing = database.writing()) {
            try (Connection c = database.dataSource().getConnection()) {
                c.setAutoCommit(false);
                try {
                    boolean kept = false;
                    if (HeadTable.lockAt(c, partition, snapshot.seq())) {
                        delete(c, partition);
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
                    Transactions.rollback(c, e);
                    throw e;
                }
            } catch (SQLException e) {
                throw new MemoryException("store " + name + ": cannot save a snapshot of " + partition + ": "
                        + e.getMessage(), e);
            }
        }
    }

    void delete(Partition partition) {
        Objects.requireNonNull(partition, "partition");
        try (Database.Held writing = database.writing()) {
            try (Connection c = database.dataSource().getConnection()) {
                delete(c, partition);
            } catch (SQLException e) {
                throw new MemoryException("store " + name + ": cannot delete the snapshots of " + partition + ": "
                        + e.getMessage(), e);
            }
        }
    }

    private static void delete(Connection c, Partition partition) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("DELETE FROM memory_snapshots WHERE tenant = ? AND user_id = ?")) {
            ps.setString(1, partition.tenant());
            ps.setString(2, partition.user());
            ps.executeUpdate();
        }
    }
}

package dev.agentmemory.store.jdbc;

import dev.agentmemory.core.spi.Partition;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code memory_heads}: each partition's last sequence and chain value, written in the
 * transaction of each append (and rewrite), so that a reader can tell whether the log it read is
 * the whole of what was committed; the list of a tenant's partitions. The SQL only: every method
 * runs on the caller's connection and transaction.
 */
final class HeadTable {

    private HeadTable() {
    }

    /** A partition's last sequence and chain value as committed with its last append. */
    record Head(long lastSeq, long chain) {
        static final Head EMPTY = new Head(0, 0);
    }

    static Head head(Connection c, Partition partition) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT last_seq, chain_head FROM memory_heads WHERE tenant = ? AND user_id = ?")) {
            ps.setString(1, partition.tenant());
            ps.setString(2, partition.user());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? new Head(rs.getLong(1), rs.getLong(2)) : Head.EMPTY;
            }
        }
    }

    /** The head of a partition's first append. */
    static void insert(Connection c, Partition partition, long lastSeq, long chain) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "INSERT INTO memory_heads (tenant, user_id, last_seq, chain_head) VALUES (?, ?, ?, ?)")) {
            ps.setString(1, partition.tenant());
            ps.setString(2, partition.user());
            ps.setLong(3, lastSeq);
            ps.setLong(4, chain);
            ps.executeUpdate();
        }
    }

    /** Moves the head from {@code fromSeq}; false when it is no longer there (another writer moved it). */
    static boolean move(Connection c, Partition partition, long fromSeq, long toSeq, long chain) throws SQLException {
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

    /** Locks the partition's head row for this transaction if it is at {@code seq}; returns whether it is. */
    static boolean lockAt(Connection c, Partition partition, long seq) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE memory_heads SET last_seq = last_seq "
                + "WHERE tenant = ? AND user_id = ? AND last_seq = ?")) {
            ps.setString(1, partition.tenant());
            ps.setString(2, partition.user());
            ps.setLong(3, seq);
            return ps.executeUpdate() == 1;
        }
    }

    /**
     * The last sequence in the partition's log; 0 when it has none. One statement: the head row
     * (one primary-key look-up), and only when there is none the largest stored sequence (a
     * partition without events, or a log without its head, which {@link LogVerifier} refuses to
     * serve). The head is committed with the events (see {@link LogAppender}), so both answer the
     * same for every log that is whole; the head does it without touching the log, which H2
     * answered by reading every row of the partition ({@code MAX} over an index prefix is not a
     * look-up there).
     */
    static long lastSequence(Connection c, Partition partition) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT COALESCE((SELECT last_seq FROM memory_heads WHERE tenant = ? AND user_id = ?), "
                        + "(SELECT MAX(seq) FROM memory_events WHERE tenant = ? AND user_id = ?), 0)")) {
            ps.setString(1, partition.tenant());
            ps.setString(2, partition.user());
            ps.setString(3, partition.tenant());
            ps.setString(4, partition.user());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : 0;
            }
        }
    }

    /** Every partition of a tenant that has events: those with a head (each append writes one). */
    static List<Partition> partitions(Connection c, String tenant) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT user_id FROM memory_heads WHERE tenant = ? ORDER BY user_id")) {
            ps.setString(1, tenant);
            List<Partition> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Partition(tenant, rs.getString(1)));
                }
            }
            return out;
        }
    }
}

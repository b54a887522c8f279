package dev.agentmemory.store.jdbc;

import dev.agentmemory.core.MemoryException;
import dev.agentmemory.core.StaleVersionException;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.store.jdbc.HeadTable.Head;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Hard forgetting in place: replaces stored payloads and recomputes the checksums and chain values
 * from the first replaced event on, in one transaction that first checks the log it rewrites. The
 * freed bytes leave an H2 file at its next compaction ({@link Database#compact()}).
 */
final class LogRewrite {

    private final Database database;
    private final LogVerifier verifier;
    private final WriteCounter writes;
    /** The store's name in every error. */
    private final String name;

    LogRewrite(Database database, LogVerifier verifier, WriteCounter writes, String name) {
        this.database = database;
        this.verifier = verifier;
        this.writes = writes;
        this.name = name;
    }

    /**
     * Replaces payloads (hard forgetting), after checking the log from the first replaced event
     * on; the checksums and chain values from there on are recomputed, and the vectors derived
     * from the replaced events deleted, in the same transaction.
     */
    void rewrite(Partition partition, Map<Long, String> payloadBySeq) {
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
                Head head = verifier.walk(c, partition, from - 1, (row, event) -> {
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
                    VectorTable.deleteDerivedFrom(c, partition, replaced.keySet());
                    if (!HeadTable.move(c, partition, head.lastSeq(), head.lastSeq(), chain[0])) {
                        throw new StaleVersionException("another writer changed " + partition + " during the rewrite");
                    }
                    long written = writes.count(c);
                    c.commit();
                    writes.committed(c, written);
                } else {
                    c.commit();
                }
            } catch (SQLException | RuntimeException e) {
                Transactions.rollback(c, e);
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
}

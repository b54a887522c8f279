package dev.agentmemory.store.jdbc;

import dev.agentmemory.core.MemoryException;
import dev.agentmemory.core.StaleVersionException;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.core.spi.StoredEvent;
import dev.agentmemory.store.jdbc.HeadTable.Head;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.Objects;

/**
 * Appends to a partition's log with optimistic concurrency: one transaction that checks the
 * caller's expected last sequence against the partition's head, inserts the events with their
 * checksums and chain values, and moves the head. Of two writers appending the same sequence
 * only one succeeds (the primary key, or the head's move, refuses the other, which fails with
 * {@link StaleVersionException}); nothing of a failed append is kept.
 */
final class LogAppender {

    private final Database database;
    /** Type names, DDL and error codes of the database (here: how a key conflict is reported). */
    private final SqlDialect dialect;
    private final WriteCounter writes;
    /** The store's name in every error. */
    private final String name;

    LogAppender(Database database, SqlDialect dialect, WriteCounter writes, String name) {
        this.database = database;
        this.dialect = dialect;
        this.writes = writes;
        this.name = name;
    }

    void append(Partition partition, long expectedLastSeq, List<StoredEvent> events) {
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
                // The primary key refuses a second writer's seq expectedLastSeq + 1; the head
                // refuses a caller that is ahead of the log (a gap) and gives the chain to extend.
                Head head = HeadTable.head(c, partition);
                if (head.lastSeq() != expectedLastSeq) {
                    throw new StaleVersionException("partition " + partition + " is at seq " + head.lastSeq()
                            + ", not " + expectedLastSeq);
                }
                long chain = head.chain();
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO memory_events (tenant, user_id, seq, "
                        + "at_time, type, actor, trace_id, payload, event_hash, chain_hash) "
                        + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
                    for (StoredEvent e : events) {
                        String at = StoredTime.text(e.at());
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
                    HeadTable.insert(c, partition, last, chain);
                } else if (!HeadTable.move(c, partition, expectedLastSeq, last, chain)) {
                    throw new StaleVersionException("another writer appended to " + partition + " first");
                }
                long written = writes.count(c);
                c.commit();
                writes.committed(c, written);
            } catch (SQLException e) {
                Transactions.rollback(c, e);
                if (dialect.isUniqueViolation(e)) {
                    throw new StaleVersionException("another writer appended to " + partition + " first");
                }
                throw e;
            } catch (RuntimeException e) {
                Transactions.rollback(c, e);
                throw e;
            }
        } catch (SQLException e) {
            throw new MemoryException("store " + name + ": cannot append to " + partition + ": " + e.getMessage(), e);
        }
    }

    long lastSequence(Partition partition) {
        Objects.requireNonNull(partition, "partition");
        try (Database.Held reading = database.reading()) {
            try (Connection c = database.dataSource().getConnection()) {
                return HeadTable.lastSequence(c, partition);
            } catch (SQLException e) {
                throw new MemoryException("store " + name + ": cannot read " + partition + ": " + e.getMessage(), e);
            }
        }
    }
}

package dev.agentmemory.store.jdbc;

import dev.agentmemory.core.MemoryException;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.core.spi.StoredEvent;
import dev.agentmemory.store.jdbc.HeadTable.Head;
import org.jspecify.annotations.Nullable;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Reads a partition's log and proves it is the one that was written: every row's checksum
 * matches its columns, every chain value follows the one before it, the sequence has no gap, and
 * the rows reach the partition's head ({@link HeadTable}). A log that does not is refused (a
 * {@link MemoryException} naming the store, the partition, the first damaged sequence and what is
 * wrong); the other partitions stay readable.
 */
final class LogVerifier {

    private final Database database;
    /** The store's name in every error. */
    private final String name;

    LogVerifier(Database database, String name) {
        this.database = database;
        this.name = name;
    }

    /**
     * Events of the partition after {@code afterSeq}, each checked against its checksum and the
     * partition's chain and head.
     *
     * @throws MemoryException naming the store, the partition and the first damaged sequence when
     *         the stored log is not the one that was written
     */
    List<StoredEvent> read(Partition partition, long afterSeq) {
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
    record Row(long seq, String at, String type, String actor, String traceId, String payload,
               @Nullable Long eventHash, @Nullable Long chainHash) {
    }

    interface RowVisitor {
        void visit(Row row, StoredEvent event) throws SQLException;
    }

    /**
     * Reads and checks the partition's rows after {@code afterSeq} in order, then checks that
     * they reach the partition's head (read first: rows appended after it continue the chain and
     * are checked the same way); returns that head.
     */
    Head walk(Connection c, Partition partition, long afterSeq, RowVisitor visitor) throws SQLException {
        Head head = HeadTable.head(c, partition);
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
        Chain walked = new Chain(partition, head, afterSeq, chain);
        // ORDER BY the whole key: H2 then reads the rows in the key's order instead of sorting them
        try (PreparedStatement ps = c.prepareStatement("SELECT seq, at_time, type, actor, trace_id, payload, "
                + "event_hash, chain_hash FROM memory_events WHERE tenant = ? AND user_id = ? AND seq > ? "
                + "ORDER BY tenant, user_id, seq")) {
            ps.setString(1, partition.tenant());
            ps.setString(2, partition.user());
            ps.setLong(3, afterSeq);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    // each row in methods of their own: a read runs this loop once, so only code
                    // called per row is compiled early in a new process
                    Row row = row(rs);
                    walked.check(row);
                    visitor.visit(row, toEvent(partition, row));
                }
            }
        }
        walked.checkReachedHead();
        return head;
    }

    private static Row row(ResultSet rs) throws SQLException {
        long seq = rs.getLong(1);
        String at = rs.getString(2);
        String type = rs.getString(3);
        String actor = rs.getString(4);
        String traceId = rs.getString(5);
        String payload = rs.getString(6);
        long eventHash = rs.getLong(7);
        Long storedEventHash = rs.wasNull() ? null : eventHash;
        long chainHash = rs.getLong(8);
        Long storedChainHash = rs.wasNull() ? null : chainHash;
        return new Row(seq, at, type, actor, traceId, payload, storedEventHash, storedChainHash);
    }

    /** The check of a partition's rows in order: each one's checksum, its chain value, no gap, up to the head. */
    private final class Chain {
        private final Partition partition;
        private final Head head;
        private final long afterSeq;
        private long last;
        private long chain;
        private long chainAtHead;

        Chain(Partition partition, Head head, long afterSeq, long chainBefore) {
            this.partition = partition;
            this.head = head;
            this.afterSeq = afterSeq;
            this.last = afterSeq;
            this.chain = chainBefore;
        }

        /** Checks the next row read; throws naming its sequence when it is not the one written. */
        void check(Row row) {
            if (row.seq() != last + 1) {
                throw damaged(partition, last + 1, "the log jumps from seq " + last + " to " + row.seq());
            }
            if (head.lastSeq() == 0) {
                throw damaged(partition, row.seq(), "it has events but no head");
            }
            long event = EventDigest.event(partition, row.seq(), row.at(), row.type(), row.actor(),
                    row.traceId(), row.payload());
            Long storedEvent = row.eventHash();
            if (storedEvent == null || storedEvent != event) {
                throw damaged(partition, row.seq(), "its checksum does not match its contents");
            }
            chain = EventDigest.chain(chain, event);
            Long storedChain = row.chainHash();
            if (storedChain == null || storedChain != chain) {
                throw damaged(partition, row.seq(), "its chain value does not follow the event before it");
            }
            last = row.seq();
            if (last == head.lastSeq()) {
                chainAtHead = chain;
            }
        }

        /** After the last row: the rows reached the head read before them, with its chain value. */
        void checkReachedHead() {
            if (afterSeq < head.lastSeq() && (last < head.lastSeq() || chainAtHead != head.chain())) {
                throw damaged(partition, Math.min(last + 1, head.lastSeq()), last < head.lastSeq()
                        ? "the log ends at seq " + last + " but seq " + head.lastSeq() + " was committed"
                        : "the chain does not reach the partition's head");
            }
        }
    }

    private StoredEvent toEvent(Partition partition, Row row) {
        Instant at;
        try {
            at = StoredTime.parse(row.at());
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
}

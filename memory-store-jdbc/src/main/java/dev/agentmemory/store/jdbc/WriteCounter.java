package dev.agentmemory.store.jdbc;

import dev.agentmemory.core.MemoryException;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The high-water mark's side in the database: counts the store's write transactions in
 * {@code memory_meta} (in each write's own transaction), holds that count against the mark an H2
 * file keeps beside it ({@link H2Database#findHighWaterMark()}) when the file opens, and records,
 * and reports in every audit, that a file was accepted without its mark. Only for a database that
 * {@link Database#keepsHighWaterMark()}; a no-op otherwise.
 */
final class WriteCounter {

    /** In {@code memory_meta}: the count of write transactions committed. */
    static final String WRITES = "writes";
    /** In {@code memory_meta}: the count of writes when the file was accepted without its high-water mark. */
    private static final String UNVERIFIED = "opened_without_mark";

    private final Database database;
    /** The store's name in every error. */
    private final String name;
    /** Write transactions committed, when {@link Database#keepsHighWaterMark()}. */
    private final AtomicLong writes = new AtomicLong();

    WriteCounter(Database database, String name) {
        this.database = database;
        this.name = name;
    }

    /** Reads the count the database holds (once, after the schema is in place). */
    void load() {
        try (Connection c = database.dataSource().getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT counter FROM memory_meta WHERE meta_key = '" + WRITES + "'")) {
            writes.set(rs.next() ? rs.getLong(1) : 0);
        } catch (SQLException e) {
            throw new MemoryException("store " + name + ": cannot open, create or migrate the memory schema: "
                    + e.getMessage(), e);
        }
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
    void checkAtOpen(H2Database h2, boolean acceptMissingMark) {
        if (!h2.keepsHighWaterMark()) {
            return;
        }
        OptionalLong found = h2.findHighWaterMark();
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
    List<String> auditFindings() {
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

    /** In the write transaction: counts it, when the database keeps a high-water mark; returns the new count. */
    long count(Connection c) throws SQLException {
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

    /** After the write transaction committed: keeps its count and lets the database make it durable. */
    void committed(Connection c, long written) throws SQLException {
        if (database.keepsHighWaterMark()) {
            writes.set(written);
        }
        database.afterCommit(c, written);
    }
}

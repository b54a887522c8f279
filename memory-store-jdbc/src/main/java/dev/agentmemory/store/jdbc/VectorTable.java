package dev.agentmemory.store.jdbc;

import dev.agentmemory.core.MemoryException;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.core.spi.StoredVector;
import dev.agentmemory.core.spi.VectorModel;

import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * {@code memory_vectors}: the embeddings of the log's texts, one row per partition, item and
 * model (name and dimension), float32 bytes, with the sequence of the event each was derived
 * from (see {@code EventStore.saveVectors}). Derived data, like the snapshots: not counted as a
 * write for the high-water mark. Reads and writes go in batches of {@value #BATCH} items per
 * statement.
 */
final class VectorTable {

    /** Items per read or delete statement: one round trip for a turn's or a catch-up's batch. */
    static final int BATCH = 500;

    private final Database database;
    private final SqlDialect dialect;
    /** The store's name in every error. */
    private final String name;

    VectorTable(Database database, SqlDialect dialect, String name) {
        this.database = database;
        this.dialect = dialect;
        this.name = name;
    }

    /**
     * Inserts the vectors not kept yet, in one transaction; a row another instance inserted
     * first stays (a unique-key conflict with a concurrent writer is retried, the rows it
     * committed are then skipped).
     */
    void save(Partition partition, VectorModel model, List<StoredVector> vectors) {
        Objects.requireNonNull(partition, "partition");
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(vectors, "vectors");
        for (StoredVector v : vectors) {
            if (v.vector().length != model.dimension()) {
                throw new IllegalArgumentException("vector of " + v.item() + " has " + v.vector().length
                        + " dimensions, not the " + model.dimension() + " of " + model);
            }
        }
        if (vectors.isEmpty()) {
            return;
        }
        for (int attempt = 1; ; attempt++) {
            try (Database.Held writing = database.writing(); Connection c = database.dataSource().getConnection()) {
                c.setAutoCommit(false);
                try {
                    insertMissing(c, partition, model, vectors);
                    c.commit();
                    return;
                } catch (SQLException | RuntimeException e) {
                    Transactions.rollback(c, e);
                    throw e;
                } finally {
                    c.setAutoCommit(true);
                }
            } catch (SQLException e) {
                if (attempt < 3 && dialect.isUniqueViolation(e)) {
                    continue; // another instance kept some of them first: those are skipped now
                }
                throw new MemoryException("store " + name + ": cannot keep " + vectors.size() + " vectors of "
                        + partition + ": " + e.getMessage(), e);
            }
        }
    }

    private void insertMissing(Connection c, Partition partition, VectorModel model, List<StoredVector> vectors)
            throws SQLException {
        Map<String, StoredVector> byItem = new HashMap<>();
        vectors.forEach(v -> byItem.putIfAbsent(v.item(), v));
        Map<String, StoredVector> kept = read(c, partition, model, byItem.keySet());
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO memory_vectors "
                + "(tenant, user_id, item, model, dims, seq, vec) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
            int pending = 0;
            for (StoredVector v : byItem.values()) {
                if (kept.containsKey(v.item())) {
                    continue;
                }
                ps.setString(1, partition.tenant());
                ps.setString(2, partition.user());
                ps.setString(3, v.item());
                ps.setString(4, model.name());
                ps.setInt(5, model.dimension());
                ps.setLong(6, v.seq());
                ps.setBytes(7, bytes(v.vector()));
                ps.addBatch();
                pending++;
            }
            if (pending > 0) {
                ps.executeBatch();
            }
        }
    }

    /** The kept vectors of {@code items} made by {@code model}, by item; one query per {@value #BATCH} items. */
    Map<String, StoredVector> read(Partition partition, VectorModel model, Collection<String> items) {
        Objects.requireNonNull(partition, "partition");
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(items, "items");
        if (items.isEmpty()) {
            return Map.of();
        }
        try (Database.Held reading = database.reading(); Connection c = database.dataSource().getConnection()) {
            return read(c, partition, model, items);
        } catch (SQLException | IllegalArgumentException e) {
            throw new MemoryException("store " + name + ": cannot read vectors of " + partition + ": "
                    + e.getMessage(), e);
        }
    }

    private Map<String, StoredVector> read(Connection c, Partition partition, VectorModel model,
                                           Collection<String> items) throws SQLException {
        Map<String, StoredVector> found = new HashMap<>();
        for (List<String> chunk : chunks(items)) {
            try (PreparedStatement ps = dialect.vectorKeyStatements().selectVectors(c, partition, model, chunk);
                 ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String item = rs.getString(1);
                    byte[] vec = rs.getBytes(3);
                    if (vec != null) { // null: an asked item without a row (an outer join's)
                        found.put(item, new StoredVector(item, rs.getLong(2), floats(vec, model, item)));
                    }
                }
            }
        }
        return found;
    }

    /** Deletes the partition's vectors of {@code items}, in every model. */
    void delete(Partition partition, Collection<String> items) {
        Objects.requireNonNull(partition, "partition");
        Objects.requireNonNull(items, "items");
        if (items.isEmpty()) {
            return;
        }
        try (Database.Held writing = database.writing(); Connection c = database.dataSource().getConnection()) {
            for (List<String> chunk : chunks(items)) {
                dialect.vectorKeyStatements().deleteVectors(c, partition, chunk);
            }
        } catch (SQLException e) {
            throw new MemoryException("store " + name + ": cannot delete vectors of " + partition + ": "
                    + e.getMessage(), e);
        }
    }

    /** Deletes every vector of the partition. */
    void deleteAll(Partition partition) {
        Objects.requireNonNull(partition, "partition");
        try (Database.Held writing = database.writing(); Connection c = database.dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement("DELETE FROM memory_vectors WHERE tenant = ? AND user_id = ?")) {
            ps.setString(1, partition.tenant());
            ps.setString(2, partition.user());
            ps.executeUpdate();
        } catch (SQLException e) {
            throw new MemoryException("store " + name + ": cannot delete the vectors of " + partition + ": "
                    + e.getMessage(), e);
        }
    }

    /** In a hard forget's transaction: deletes the vectors derived from the rewritten events. */
    static void deleteDerivedFrom(Connection c, Partition partition, Collection<Long> seqs) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "DELETE FROM memory_vectors WHERE tenant = ? AND user_id = ? AND seq = ?")) {
            for (long seq : seqs) {
                ps.setString(1, partition.tenant());
                ps.setString(2, partition.user());
                ps.setLong(3, seq);
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    private static List<List<String>> chunks(Collection<String> items) {
        List<String> all = new ArrayList<>(new LinkedHashSet<>(items));
        List<List<String>> chunks = new ArrayList<>();
        for (int i = 0; i < all.size(); i += BATCH) {
            chunks.add(all.subList(i, Math.min(all.size(), i + BATCH)));
        }
        return chunks;
    }

    static byte[] bytes(float[] vector) {
        ByteBuffer b = ByteBuffer.allocate(vector.length * Float.BYTES);
        b.asFloatBuffer().put(vector);
        return b.array();
    }

    private static float[] floats(byte[] bytes, VectorModel model, String item) {
        if (bytes.length != model.dimension() * Float.BYTES) {
            throw new IllegalArgumentException("the stored vector of " + item + " has " + bytes.length
                    + " bytes, not the " + model.dimension() * Float.BYTES + " of " + model);
        }
        float[] v = new float[model.dimension()];
        ByteBuffer.wrap(bytes).asFloatBuffer().get(v);
        return v;
    }
}

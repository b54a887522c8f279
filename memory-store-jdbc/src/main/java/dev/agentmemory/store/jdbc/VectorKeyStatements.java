package dev.agentmemory.store.jdbc;

import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.core.spi.VectorModel;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Collections;
import java.util.List;

/**
 * How a database reads and deletes the {@code memory_vectors} rows of a list of items: the two
 * statements of {@link VectorTable} whose fast form differs between databases. A
 * {@link SqlDialect} names the one its database needs. Each call gets distinct items, at most
 * {@value VectorTable#BATCH} of them.
 */
enum VectorKeyStatements {

    /** {@code item IN (?, ...)}, one statement per call: a database that uses an IN list on any column of an index. */
    IN_LIST {
        @Override
        String selectSql(int items) {
            return "SELECT item, seq, vec FROM memory_vectors WHERE tenant = ? AND user_id = ? AND model = ? "
                    + "AND dims = ? AND item IN (" + marks(items) + ")";
        }

        @Override
        void bindSelect(Connection c, PreparedStatement ps, Partition partition, VectorModel model, List<String> items)
                throws SQLException {
            ps.setString(1, partition.tenant());
            ps.setString(2, partition.user());
            ps.setString(3, model.name());
            ps.setInt(4, model.dimension());
            for (int i = 0; i < items.size(); i++) {
                ps.setString(5 + i, items.get(i));
            }
        }

        @Override
        void deleteVectors(Connection c, Partition partition, List<String> items) throws SQLException {
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM memory_vectors WHERE tenant = ? "
                    + "AND user_id = ? AND item IN (" + marks(items.size()) + ")")) {
                ps.setString(1, partition.tenant());
                ps.setString(2, partition.user());
                for (int i = 0; i < items.size(); i++) {
                    ps.setString(3 + i, items.get(i));
                }
                ps.executeUpdate();
            }
        }
    },

    /**
     * For a database that answers {@code column IN (...)} by an index only on the index's first
     * column and otherwise tests the list on every row that matches the equalities before
     * {@code column} (H2: a walk over the partition's rows per batch). The items come as an array
     * that drives an outer join, one lookup of the whole primary key each (an outer join keeps
     * its order: the table is never the driving side); a delete is one key statement per item,
     * in one batch.
     */
    ARRAY_JOIN {
        @Override
        String selectSql(int items) {
            return "SELECT t.item, v.seq, v.vec FROM UNNEST(CAST(? AS VARCHAR(1024) ARRAY)) AS t(item) "
                    + "LEFT JOIN memory_vectors v ON v.tenant = ? AND v.user_id = ? AND v.item = t.item "
                    + "AND v.model = ? AND v.dims = ?";
        }

        @Override
        void bindSelect(Connection c, PreparedStatement ps, Partition partition, VectorModel model, List<String> items)
                throws SQLException {
            ps.setArray(1, c.createArrayOf("VARCHAR", items.toArray()));
            ps.setString(2, partition.tenant());
            ps.setString(3, partition.user());
            ps.setString(4, model.name());
            ps.setInt(5, model.dimension());
        }

        @Override
        void deleteVectors(Connection c, Partition partition, List<String> items) throws SQLException {
            try (PreparedStatement ps = c.prepareStatement(
                    "DELETE FROM memory_vectors WHERE tenant = ? AND user_id = ? AND item = ?")) {
                for (String item : items) {
                    ps.setString(1, partition.tenant());
                    ps.setString(2, partition.user());
                    ps.setString(3, item);
                    ps.addBatch();
                }
                ps.executeBatch();
            }
        }
    };

    /**
     * The query, parameters set, for the vectors of {@code items} made by {@code model}: rows of
     * (item, seq, vec), in any order; an item without a vector has no row or a row whose vec is
     * null. The caller executes and closes it.
     */
    final PreparedStatement selectVectors(Connection c, Partition partition, VectorModel model, List<String> items)
            throws SQLException {
        PreparedStatement ps = c.prepareStatement(selectSql(items.size()));
        try {
            bindSelect(c, ps, partition, model, items);
            return ps;
        } catch (SQLException | RuntimeException e) {
            ps.close();
            throw e;
        }
    }

    /** The text of {@link #selectVectors}'s query for {@code items} items. */
    abstract String selectSql(int items);

    /** Sets the parameters of {@link #selectSql}'s statement ({@code c} makes arrays). */
    abstract void bindSelect(Connection c, PreparedStatement ps, Partition partition, VectorModel model,
                             List<String> items) throws SQLException;

    /** Deletes the partition's vectors of {@code items}, in every model. */
    abstract void deleteVectors(Connection c, Partition partition, List<String> items) throws SQLException;

    private static String marks(int n) {
        return String.join(", ", Collections.nCopies(n, "?"));
    }
}

package dev.agentmemory.store.jdbc;

import java.util.List;

/** H2 (embedded file or in memory); also the fallback for databases without a dialect of their own. */
final class H2Dialect implements SqlDialect {

    static final H2Dialect INSTANCE = new H2Dialect();

    private H2Dialect() {
    }

    /**
     * Up to 1,000,000,000 characters, kept in the row: H2 keeps CLOBs over a few hundred bytes in
     * a separate LOB store, which made reading a log about a hundred times slower and, after a
     * killed writer, tripped an internal assert of H2 at shutdown.
     */
    @Override
    public String largeTextType() {
        return "CHARACTER VARYING";
    }

    /** Up to 1,000,000,000 bytes, kept in the row (a BLOB would go to the LOB store, like a CLOB). */
    @Override
    public String binaryType() {
        return "BINARY VARYING";
    }

    /** The items as an array joined to the table: H2 uses an IN list only on an index's first column. */
    @Override
    public VectorKeyStatements vectorKeyStatements() {
        return VectorKeyStatements.ARRAY_JOIN;
    }

    /** Rewrites every row once; a table created by this version already has the type. */
    @Override
    public List<String> migratePayloadToLargeText() {
        return List.of("ALTER TABLE memory_events ALTER COLUMN payload SET DATA TYPE " + largeTextType());
    }
}

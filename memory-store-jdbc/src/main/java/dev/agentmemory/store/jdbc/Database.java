package dev.agentmemory.store.jdbc;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * Where {@link JdbcEventStore} gets its connections, and what the database needs around them
 * beyond portable SQL: locks, durability after a commit, compaction, closing. The defaults are a
 * database server's (it keeps its own durability, locks and space): a caller's own
 * {@link DataSource} ({@link CallerDataSource}) and a pool the store opened ({@link PooledDatabase})
 * need nothing more; an embedded H2 database the store opened itself overrides them all
 * ({@link H2Database}).
 */
interface Database {

    /** The connections to use now (may change across {@link #compact()}). */
    DataSource dataSource();

    /** Held around every database call; released by closing. Nothing by default. */
    default Held reading() {
        return () -> { };
    }

    /** Held around every write transaction (includes {@link #reading()}); released by closing. Nothing by default. */
    default Held writing() {
        return () -> { };
    }

    /**
     * Called after each write transaction committed, on its connection: make it durable, and
     * record {@code writes} (the count of write transactions committed, including this one) as
     * the high-water mark when {@link #keepsHighWaterMark()}. Nothing by default: a server's
     * commit is durable (PostgreSQL's {@code synchronous_commit = on}).
     */
    default void afterCommit(Connection c, long writes) throws SQLException {
    }

    /** What errors call this store: a file path, or a JDBC URL without credentials. */
    String name();

    /**
     * Whether the store counts its write transactions in the database, for a high-water mark kept
     * outside it ({@link #highWaterMark()}). Not by default: a server keeps its own durability.
     */
    default boolean keepsHighWaterMark() {
        return false;
    }

    /** The count of write transactions the database is known to have committed; 0 when none is kept. */
    default long highWaterMark() {
        return 0;
    }

    /**
     * Whether the database existed before it was opened and must therefore hold the memory schema
     * already: a file that does not is refused rather than treated as a new database. Not by
     * default: a new database on a server is an empty schema, created at the first start.
     */
    default boolean mustHoldSchema() {
        return false;
    }

    /**
     * Whether other processes or stores may write to this database while the store is open (see
     * {@code EventStore.sharedWithOtherWriters()}). By default yes: a server is shared.
     */
    default boolean sharedWithOtherWriters() {
        return true;
    }

    /** Called after each append returned its locks. Nothing by default. */
    default void afterAppend() {
    }

    /**
     * Reclaims the space freed by rewrites, if this database can. Nothing by default: a server
     * reclaims space with its own tools (PostgreSQL: VACUUM, VACUUM FULL).
     */
    default void compact() {
    }

    /** Releases what the store opened. */
    void close();

    /** A lock held until closed; closing never throws. */
    interface Held extends AutoCloseable {
        @Override
        void close();
    }

    /** A data source owned by the caller: the store only borrows connections from it. */
    final class CallerDataSource implements Database {
        private final DataSource dataSource;
        private final String name;

        CallerDataSource(DataSource dataSource) {
            this.dataSource = dataSource;
            this.name = describe(dataSource);
        }

        /** The JDBC URL without user, password or other credentials, or the data source's class. */
        private static String describe(DataSource dataSource) {
            try (Connection c = dataSource.getConnection()) {
                String url = c.getMetaData().getURL();
                if (url != null) {
                    return withoutCredentials(url);
                }
            } catch (SQLException | RuntimeException e) {
                // named by its class below; the first real call reports the failure
            }
            return dataSource.getClass().getName();
        }

        static String withoutCredentials(String url) {
            return url.replaceAll("//[^/@?;]*@", "//")
                    .replaceAll("(?i)([?&;](password|user|username|pwd|sslpassword|sslkey)=)[^&;]*", "$1***");
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public DataSource dataSource() {
            return dataSource;
        }

        /** The caller owns the data source's life. */
        @Override
        public void close() {
        }
    }
}

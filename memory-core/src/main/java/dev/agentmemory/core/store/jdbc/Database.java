package dev.agentmemory.core.store.jdbc;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * Where {@link JdbcEventStore} gets its connections, and what the database needs around them
 * beyond portable SQL: locks, durability after a commit, compaction, closing. A caller's own
 * {@link DataSource} needs none of it ({@link CallerDataSource}); an H2 database the store opened
 * itself needs all of it ({@link H2Database}).
 */
interface Database {

    /** The connections to use now (may change across {@link #compact()}). */
    DataSource dataSource();

    /** Held around every database call; released by closing. */
    Held reading();

    /** Held around every write transaction (includes {@link #reading()}); released by closing. */
    Held writing();

    /**
     * Called after each write transaction committed, on its connection: make it durable, and
     * record {@code writes} (the count of write transactions committed, including this one) as
     * the high-water mark when {@link #keepsHighWaterMark()}.
     */
    void afterCommit(Connection c, long writes) throws SQLException;

    /** What errors call this store: a file path, or a JDBC URL without credentials. */
    String name();

    /**
     * Whether the store counts its write transactions in the database, for a high-water mark kept
     * outside it ({@link #highWaterMark()}).
     */
    boolean keepsHighWaterMark();

    /** The count of write transactions the database is known to have committed; 0 when none is kept. */
    long highWaterMark();

    /**
     * Whether the database existed before it was opened and must therefore hold the memory schema
     * already: a file that does not is refused rather than treated as a new database.
     */
    boolean mustHoldSchema();

    /** Called after each append returned its locks. */
    void afterAppend();

    /** Reclaims the space freed by rewrites, if this database can. */
    void compact();

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
        public boolean keepsHighWaterMark() {
            return false;
        }

        @Override
        public long highWaterMark() {
            return 0;
        }

        @Override
        public boolean mustHoldSchema() {
            return false;
        }

        @Override
        public DataSource dataSource() {
            return dataSource;
        }

        @Override
        public Held reading() {
            return () -> { };
        }

        @Override
        public Held writing() {
            return () -> { };
        }

        @Override
        public void afterCommit(Connection c, long writes) {
        }

        @Override
        public void afterAppend() {
        }

        /** Other databases reclaim space with their own tools (PostgreSQL: VACUUM FULL). */
        @Override
        public void compact() {
        }

        /** The caller owns the data source's life. */
        @Override
        public void close() {
        }
    }
}

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

    /** Called after each write transaction committed, on its connection: make it durable. */
    void afterCommit(Connection c) throws SQLException;

    /** Called after each append returned its locks. */
    void afterAppend();

    /** Reclaims the space freed by rewrites, if this database can. */
    void compact();

    /** The message of a failed call: the driver's, naming the database where it does not. */
    default String describe(SQLException e) {
        return String.valueOf(e.getMessage());
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

        CallerDataSource(DataSource dataSource) {
            this.dataSource = dataSource;
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
        public void afterCommit(Connection c) {
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

        @Override
        public String toString() {
            return "the caller's DataSource " + dataSource.getClass().getName();
        }
    }
}

package dev.agentmemory.store.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.agentmemory.core.MemoryException;
import org.jspecify.annotations.Nullable;

import javax.sql.DataSource;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.logging.Logger;

/**
 * A database server that {@link JdbcEventStore} reaches through a HikariCP pool it opened on a
 * JDBC URL, and closes with the store. Needs nothing around its connections: the server makes a
 * commit durable before it returns (PostgreSQL's default {@code synchronous_commit = on}) and
 * serialises writers itself (the primary key refuses a second append of one sequence).
 *
 * <p>Connection failures are reported as one SQLException naming the URL (without password)
 * and the user, with the driver's reason, and without the pool's own exceptions or stack.
 */
final class PooledDatabase implements Database {

    private final HikariDataSource pool;
    private final JdbcSettings settings;
    private final String where;
    private final String user;
    private final long connectionTimeoutMillis;
    private final DataSource connections = new Connections();

    private PooledDatabase(HikariDataSource pool, JdbcSettings settings, String where, String user,
                           long connectionTimeoutMillis) {
        this.pool = pool;
        this.settings = settings;
        this.where = where;
        this.user = user;
        this.connectionTimeoutMillis = connectionTimeoutMillis;
    }

    /**
     * Opens a pool of at most {@code settings.maxPoolSize()} connections and checks that one
     * connects.
     *
     * @throws MemoryException when no driver takes the URL or the first connection fails
     */
    static PooledDatabase open(JdbcSettings settings) {
        String url = settings.url();
        String where = Database.CallerDataSource.withoutCredentials(url);
        try {
            DriverManager.getDriver(url);
        } catch (SQLException e) {
            throw new MemoryException("no JDBC driver accepts " + where
                    + " (for PostgreSQL add org.postgresql:postgresql to the application's dependencies)");
        }
        HikariConfig config = new HikariConfig();
        config.setPoolName("agentmemory");
        config.setJdbcUrl(url);
        config.setUsername(settings.user());
        config.setPassword(settings.password());
        config.setMaximumPoolSize(settings.maxPoolSize());
        config.setMinimumIdle(Math.min(2, settings.maxPoolSize()));
        config.setConnectionTimeout(settings.connectionTimeout().toMillis());
        config.setValidationTimeout(Math.min(2_000, settings.connectionTimeout().toMillis() - 1));
        // fail here, at start, when the first connection fails (the default, made explicit)
        config.setInitializationFailTimeout(1);
        HikariDataSource pool;
        try {
            pool = new HikariDataSource(config);
        } catch (RuntimeException e) {
            SQLException cause = driverCause(e);
            throw new MemoryException("cannot connect to " + where + " as " + settings.user() + ": "
                    + (cause != null ? cause.getMessage() : "the connection pool did not start"),
                    cause != null ? detached(cause) : null);
        }
        return new PooledDatabase(pool, settings, where, settings.user(), settings.connectionTimeout().toMillis());
    }

    /** The URL this database was opened on, without credentials. */
    @Override
    public String name() {
        return where;
    }

    /**
     * A connection outside the pool, for the migration lock: held while the migration borrows
     * from the pool, so that a pool of one connection still migrates.
     */
    Connection lockConnection() throws SQLException {
        try {
            return DriverManager.getConnection(settings.url(), settings.user(), settings.password());
        } catch (SQLException e) {
            throw new SQLException("cannot connect to " + where + " as " + user + ": " + e.getMessage(),
                    e.getSQLState(), e.getErrorCode());
        }
    }

    @Override
    public DataSource dataSource() {
        return connections;
    }

    @Override
    public void close() {
        pool.close();
    }

    @Override
    public String toString() {
        return where + " (user " + user + ")";
    }

    /** The driver's SQLException under the pool's wrappers, if any. */
    private static @Nullable SQLException driverCause(@Nullable Throwable t) {
        SQLException found = null;
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof SQLException s && !c.getClass().getName().startsWith("com.zaxxer.")) {
                found = s;
            }
        }
        return found;
    }

    /** The driver's reason as a plain SQLException: its message and codes, no cause, no pool frames. */
    private static SQLException detached(SQLException e) {
        return new SQLException(e.getMessage(), e.getSQLState(), e.getErrorCode());
    }

    /** The pool's connections; a failure names the database and the driver's reason. */
    private final class Connections implements DataSource {

        @Override
        public Connection getConnection() throws SQLException {
            try {
                return pool.getConnection();
            } catch (SQLException e) {
                SQLException cause = driverCause(e.getCause());
                if (cause != null) {
                    throw new SQLException("cannot connect to " + where + " as " + user + ": " + cause.getMessage(),
                            cause.getSQLState(), cause.getErrorCode());
                }
                if (pool.isClosed()) {
                    throw new SQLException("the store on " + where + " is closed", "08003");
                }
                throw new SQLException("no connection to " + where + " within " + connectionTimeoutMillis
                        + " ms: all " + pool.getMaximumPoolSize() + " connections of the pool are in use"
                        + " (raise the pool size, agentmemory.jdbc.pool-size)", "08001");
            }
        }

        @Override
        public Connection getConnection(String username, String password) throws SQLException {
            throw new SQLFeatureNotSupportedException("the pool's user is fixed");
        }

        @Override
        public @Nullable PrintWriter getLogWriter() {
            return null;
        }

        @Override
        public void setLogWriter(PrintWriter out) {
        }

        @Override
        public void setLoginTimeout(int seconds) {
        }

        @Override
        public int getLoginTimeout() {
            return 0;
        }

        @Override
        public Logger getParentLogger() throws SQLFeatureNotSupportedException {
            throw new SQLFeatureNotSupportedException();
        }

        @Override
        public <T> T unwrap(Class<T> iface) throws SQLException {
            throw new SQLException("not a wrapper");
        }

        @Override
        public boolean isWrapperFor(Class<?> iface) {
            return false;
        }
    }
}

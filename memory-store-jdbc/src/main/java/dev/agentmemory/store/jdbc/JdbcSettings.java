package dev.agentmemory.store.jdbc;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * How {@link JdbcStores#connect(JdbcSettings)} reaches a database server: its JDBC URL,
 * user and password, and the size of the connection pool it opens. Immutable; {@link #toString()}
 * and every error show the URL without any password.
 *
 * <pre>{@code
 * JdbcSettings.of("jdbc:postgresql://db:5432/app", "app", System.getenv("DB_PASSWORD")).poolSize(20)
 * }</pre>
 */
public final class JdbcSettings {

    /** Connections in the pool unless set: enough for a service's request threads on a few cores. */
    public static final int DEFAULT_POOL_SIZE = 10;
    /** How long a call waits for a connection before it fails (also while the server is down). */
    public static final Duration DEFAULT_CONNECTION_TIMEOUT = Duration.ofSeconds(5);

    private final String url;
    private final String user;
    private final String password;
    private final int maxPoolSize;
    private final Duration connectionTimeout;

    private JdbcSettings(String url, String user, String password, int maxPoolSize, Duration connectionTimeout) {
        this.url = url;
        this.user = user;
        this.password = password;
        this.maxPoolSize = maxPoolSize;
        this.connectionTimeout = connectionTimeout;
    }

    /**
     * A server at {@code url} (e.g. {@code jdbc:postgresql://host:5432/db}) with a pool of
     * {@link #DEFAULT_POOL_SIZE} connections. Give the password here, not inside the URL.
     *
     * @throws IllegalArgumentException when the URL is not a JDBC URL, or names H2 (use
     *                                  {@link JdbcStores#h2File} or {@link JdbcStores#h2InMemory})
     */
    public static JdbcSettings of(String url, String user, String password) {
        Objects.requireNonNull(url, "url");
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(password, "password");
        String u = url.trim();
        if (!u.toLowerCase(Locale.ROOT).startsWith("jdbc:")) {
            throw new IllegalArgumentException("not a JDBC URL (jdbc:...): " + Database.CallerDataSource.withoutCredentials(u));
        }
        if (u.toLowerCase(Locale.ROOT).startsWith("jdbc:h2:")) {
            throw new IllegalArgumentException("an H2 database is opened with JdbcStores.h2File(path) or "
                    + "h2InMemory(name), which keep its appends durable: " + Database.CallerDataSource.withoutCredentials(u));
        }
        return new JdbcSettings(u, user, password, DEFAULT_POOL_SIZE, DEFAULT_CONNECTION_TIMEOUT);
    }

    /** At most {@code connections} connections open at once (1 to 1000). */
    public JdbcSettings poolSize(int connections) {
        if (connections < 1 || connections > 1000) {
            throw new IllegalArgumentException("pool size must be within 1..1000: " + connections);
        }
        return new JdbcSettings(url, user, password, connections, connectionTimeout);
    }

    /** How long a call waits for a connection before it fails (at least 250 ms). */
    public JdbcSettings connectionTimeout(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.toMillis() < 250) {
            throw new IllegalArgumentException("connection timeout must be at least 250 ms: " + timeout);
        }
        return new JdbcSettings(url, user, password, maxPoolSize, timeout);
    }

    public String url() {
        return url;
    }

    public String user() {
        return user;
    }

    /** The password, for the pool only. */
    String password() {
        return password;
    }

    public int maxPoolSize() {
        return maxPoolSize;
    }

    public Duration connectionTimeout() {
        return connectionTimeout;
    }

    /** The URL (without password), user and pool settings; never the password. */
    @Override
    public String toString() {
        return "JdbcSettings[" + Database.CallerDataSource.withoutCredentials(url) + ", user " + user + ", pool " + maxPoolSize
                + ", connection timeout " + connectionTimeout + "]";
    }
}

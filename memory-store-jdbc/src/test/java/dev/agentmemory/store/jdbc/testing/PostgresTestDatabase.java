package dev.agentmemory.store.jdbc.testing;

import org.junit.jupiter.api.Assertions;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The PostgreSQL server the PostgreSQL tests run on, from the environment that
 * {@code .ci/postgres.sh start} prints: {@code AGENTMEMORY_TEST_PG_URL}, {@code _USER},
 * {@code _PASSWORD}. Without them the tests of a class annotated
 * {@code @ExtendWith(RequiresPostgres.class)} are skipped, and the build prints which class was
 * skipped and how to run it; with {@code AGENTMEMORY_REQUIRE_PG=1} (as under {@code .ci/run})
 * they fail instead. Each test gets schemas of its own, so tests never see each
 * other's rows.
 */
public final class PostgresTestDatabase {

    public static final String HOW_TO_RUN = "bash .ci/postgres.sh run mvn -B verify";
    private static final Set<String> reportedSkips = ConcurrentHashMap.newKeySet();

    private final String url;
    private final String user;
    private final String password;

    private PostgresTestDatabase(String url, String user, String password) {
        this.url = url;
        this.user = user;
        this.password = password;
    }

    static final String URL_ENV = "AGENTMEMORY_TEST_PG_URL";

    /** Whether a server is configured. */
    public static boolean configured() {
        String url = System.getenv(URL_ENV);
        return url != null && !url.isBlank();
    }

    /** Whether PostgreSQL tests must run ({@code AGENTMEMORY_REQUIRE_PG=1}, as under {@code .ci/run}). */
    public static boolean required() {
        return "1".equals(System.getenv("AGENTMEMORY_REQUIRE_PG"));
    }

    /** Why {@code testClass} does not run; printed once per class. */
    static String notConfigured(String testClass) {
        String reason = testClass + " needs a PostgreSQL server and " + URL_ENV + " is not set; run the"
                + " PostgreSQL tests with: " + HOW_TO_RUN;
        if (reportedSkips.add(testClass)) {
            System.err.println("[PostgreSQL] SKIPPED " + reason);
        }
        return reason;
    }

    /**
     * The configured server. Test classes that use it are annotated
     * {@code @ExtendWith(RequiresPostgres.class)}, which skips them without one; called anyway,
     * this fails.
     */
    public static PostgresTestDatabase require(Class<?> testClass) {
        if (!configured()) {
            Assertions.fail(notConfigured(testClass.getName()));
        }
        return new PostgresTestDatabase(System.getenv(URL_ENV), env("AGENTMEMORY_TEST_PG_USER"),
                env("AGENTMEMORY_TEST_PG_PASSWORD"));
    }

    private static String env(String name) {
        String value = System.getenv(name);
        return value == null ? "" : value;
    }

    /**
     * Runs {@code .ci/postgres.sh <command>} on the server it started ({@code crash}, {@code start}),
     * when the server is that script's ({@code AGENTMEMORY_TEST_PG_SCRIPT} is set); false otherwise.
     */
    public boolean control(String command) {
        String script = System.getenv("AGENTMEMORY_TEST_PG_SCRIPT");
        if (script == null || script.isBlank()) {
            return false;
        }
        try {
            Process p = new ProcessBuilder("bash", script, command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!p.waitFor(120, java.util.concurrent.TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(script + " " + command + " did not finish within 120 s");
            }
            if (p.exitValue() != 0) {
                throw new IllegalStateException(script + " " + command + " exited with " + p.exitValue());
            }
            return true;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public String url() {
        return url;
    }

    public String user() {
        return user;
    }

    public String password() {
        return password;
    }

    /** Creates a new, empty schema named after {@code prefix} and returns its name. */
    public String createSchema(String prefix) {
        String schema = (prefix + "_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12))
                .toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
        execute("CREATE SCHEMA " + schema);
        return schema;
    }

    /** Drops a schema made by {@link #createSchema} with everything in it. */
    public void dropSchema(String schema) {
        execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }

    /** The JDBC URL whose connections work in {@code schema}. */
    public String urlOf(String schema) {
        return url + (url.contains("?") ? "&" : "?") + "currentSchema=" + schema;
    }

    /** A plain connection (no pool) into {@code schema}, for reading past the store's own code. */
    public Connection connect(String schema) throws SQLException {
        return DriverManager.getConnection(urlOf(schema), user, password);
    }

    private void execute(String sql) {
        try (Connection c = DriverManager.getConnection(url, user, password); Statement st = c.createStatement()) {
            st.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("PostgreSQL at " + url + ": " + sql + ": " + e.getMessage(), e);
        }
    }
}

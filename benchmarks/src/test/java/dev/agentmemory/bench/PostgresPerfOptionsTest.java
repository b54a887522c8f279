package dev.agentmemory.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How {@code perf-postgres} finds its server, and the one-line errors when it cannot. No server needed. */
class PostgresPerfOptionsTest {

    private static final Map<String, String> ENV = Map.of(
            PostgresPerfSuite.URL_ENV, "jdbc:postgresql://127.0.0.1:5999/env?ssl=false",
            PostgresPerfSuite.USER_ENV, "env-user",
            PostgresPerfSuite.PASSWORD_ENV, "env-secret");

    private static String usageError(PostgresPerfSuite suite, String... args) throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = BenchMain.run(args, new SuiteRegistry().register(suite),
                new BenchContext(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(rc).isEqualTo(2);
        return err.toString(StandardCharsets.UTF_8).lines().findFirst().orElse("");
    }

    @Test
    void should_name_the_option_and_the_variable_when_no_server_is_given() throws Exception {
        assertThat(usageError(new PostgresPerfSuite(name -> null), "perf-postgres")).isEqualTo(
                "perf-postgres needs a PostgreSQL server: --pg-url jdbc:postgresql://HOST:PORT/DB (or AGENTMEMORY_TEST_PG_URL)");
    }

    @Test
    void should_refuse_a_url_that_is_not_postgresql_and_a_turn_count_below_one() throws Exception {
        PostgresPerfSuite suite = new PostgresPerfSuite(name -> null);

        assertThat(usageError(suite, "perf-postgres", "--pg-url", "jdbc:h2:mem:x"))
                .isEqualTo("--pg-url must be a PostgreSQL JDBC URL (jdbc:postgresql://...): jdbc:h2:mem:x");
        assertThat(usageError(suite, "perf-postgres", "--turns", "0"))
                .isEqualTo("--turns must be a positive integer: 0");
    }

    @Test
    void should_take_each_setting_from_its_option_else_from_the_environment() {
        PostgresPerfSuite suite = new PostgresPerfSuite(ENV::get);

        PostgresPerfSuite.Server fromEnv = suite.server(BenchMain.parse(new String[0]));
        PostgresPerfSuite.Server mixed = suite.server(BenchMain.parse(new String[] {"--pg-user", "opt-user"}));

        assertThat(fromEnv).isEqualTo(new PostgresPerfSuite.Server(
                "jdbc:postgresql://127.0.0.1:5999/env?ssl=false", "env-user", "env-secret"));
        assertThat(mixed.user()).isEqualTo("opt-user");
        assertThat(mixed.password()).isEqualTo("env-secret");
        assertThat(fromEnv.toString()).isEqualTo("jdbc:postgresql://127.0.0.1:5999/env as env-user");
    }
}

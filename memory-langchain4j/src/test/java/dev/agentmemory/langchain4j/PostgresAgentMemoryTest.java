package dev.agentmemory.langchain4j;

import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.MemoryException;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.Scope;
import dev.agentmemory.store.jdbc.testing.PostgresTestDatabase;
import dev.agentmemory.store.jdbc.testing.RequiresPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * AgentMemory on PostgreSQL, selected by the {@code agentmemory.jdbc.*} keys or one builder
 * line, and what a wrong password shows. Skipped without a server.
 */
@ExtendWith(RequiresPostgres.class)
class PostgresAgentMemoryTest {

    @Test
    void should_keep_memory_on_the_server_when_selected_by_config_keys_or_the_builder() {
        PostgresTestDatabase pg = PostgresTestDatabase.require(getClass());
        String schema = pg.createSchema("agentmemory");
        try {
            Properties p = new Properties();
            p.setProperty("agentmemory.jdbc.url", pg.urlOf(schema));
            p.setProperty("agentmemory.jdbc.user", pg.user());
            p.setProperty("agentmemory.jdbc.password", pg.password());
            p.setProperty("agentmemory.jdbc.pool-size", "4");
            var alice = dev.agentmemory.core.Caller.of("shop", "alice");
            Scope persistent = alice.persistent();
            try (AgentMemory memory = AgentMemory.builder().config(p).build()) {
                memory.engine().write(alice, Proposal.set(persistent, "lang", "zh").kind(Kind.PREFERENCE).build());
            }

            try (AgentMemory memory = AgentMemory.builder().jdbc(pg.urlOf(schema), pg.user(), pg.password()).build()) {
                assertThat(memory.engine().view(alice, persistent).text("lang")).contains("zh");
            }
        } finally {
            pg.dropSchema(schema);
        }
    }

    /** The README's PostgreSQL snippet, with the test server's URL, user and password. */
    @Test
    void should_build_the_readme_snippet() {
        PostgresTestDatabase pg = PostgresTestDatabase.require(getClass());
        String schema = pg.createSchema("readme");
        String url = pg.urlOf(schema);
        String user = pg.user();
        String password = pg.password();
        try {
            // tag::postgres[]
            AgentMemory memory = AgentMemory.builder()
                    .jdbc(url, user, password)   // e.g. "jdbc:postgresql://db:5432/app", "app", System.getenv("DB_PASSWORD")
                    .build();                    // or .dataSource(yourDataSource); an engine: .store(JdbcStores.connect(...))
            // end::postgres[]
            memory.close();
        } finally {
            pg.dropSchema(schema);
        }
    }

    @Test
    void should_say_what_failed_and_where_without_the_password_when_the_password_is_wrong() {
        PostgresTestDatabase pg = PostgresTestDatabase.require(getClass());
        String wrong = "not-" + pg.password() + "-55";
        Properties p = new Properties();
        p.setProperty("agentmemory.jdbc.url", pg.url());
        p.setProperty("agentmemory.jdbc.user", pg.user());
        p.setProperty("agentmemory.jdbc.password", wrong);

        assertThatThrownBy(() -> AgentMemory.builder().config(p).build())
                .isInstanceOf(MemoryException.class)
                .hasMessageStartingWith("cannot connect to " + pg.url() + " as " + pg.user() + ": ")
                .hasMessageContaining("password authentication failed")
                .satisfies(e -> {
                    StringWriter printed = new StringWriter();
                    e.printStackTrace(new PrintWriter(printed));
                    assertThat(printed.toString()).doesNotContain(wrong).doesNotContain(pg.password())
                            .doesNotContain("com.zaxxer");
                });
    }
}

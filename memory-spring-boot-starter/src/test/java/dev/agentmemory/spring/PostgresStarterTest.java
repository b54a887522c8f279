package dev.agentmemory.spring;

import dev.agentmemory.langchain4j.AgentMemory;
import dev.agentmemory.store.jdbc.testing.PostgresTestDatabase;
import dev.agentmemory.store.jdbc.testing.RequiresPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import javax.sql.DataSource;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The starter on the PostgreSQL server CI starts: on the application's {@link DataSource} bean, and
 * on the {@code agentmemory.jdbc.*} properties. Skipped without a server.
 */
@ExtendWith(RequiresPostgres.class)
class PostgresStarterTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(AgentMemoryAutoConfiguration.class));

    @Test
    void should_keep_memory_in_the_applications_data_source() {
        PostgresTestDatabase pg = PostgresTestDatabase.require(getClass());
        String schema = pg.createSchema("starter");
        try {
            PGSimpleDataSource dataSource = new PGSimpleDataSource();
            dataSource.setURL(pg.urlOf(schema));
            dataSource.setUser(pg.user());
            dataSource.setPassword(pg.password());
            AgentMemoryAutoConfigurationTest.remembersAcrossTurnsSessionsAndRestarts(
                    runner.withBean(DataSource.class, () -> dataSource));
            assertThat(Files.exists(Path.of("agentmemory"))).as("no H2 file beside the DataSource").isFalse();
        } finally {
            pg.dropSchema(schema);
        }
    }

    /**
     * Meters and health on PostgreSQL through Actuator's endpoints: a turn is counted, the memory is
     * up, and down with the reason while the server cannot be reached (the application's
     * DataSource points at a port where nothing listens), up again once it can.
     */
    @Test
    void should_show_meters_and_health_and_report_down_while_the_server_cannot_be_reached() {
        PostgresTestDatabase pg = PostgresTestDatabase.require(getClass());
        String schema = pg.createSchema("starterhealth");
        try {
            PGSimpleDataSource dataSource = new PGSimpleDataSource();
            dataSource.setURL(pg.urlOf(schema));
            dataSource.setUser(pg.user());
            dataSource.setPassword(pg.password());
            ObservabilityStarterTest.RUNNER.withBean(DataSource.class, () -> dataSource).run(context -> {
                assertThat(context).hasNotFailed();
                ObservabilityStarterTest.assertTurnObserved(context);

                dataSource.setURL("jdbc:postgresql://127.0.0.1:1/nothing-listens-here");
                Actuator.Health down = Actuator.memoryHealth(context);
                assertThat(down.status()).isEqualTo("DOWN");
                assertThat(down.details()).containsEntry("store", "unreachable");
                assertThat((String) down.details().get("reason")).startsWith("store unreachable: ");
                assertThat(ObservabilityStarterTest.metric(context, "agentmemory.store.errors", "operation:read"))
                        .containsEntry("COUNT", 1.0);

                dataSource.setURL(pg.urlOf(schema));
                assertThat(Actuator.memoryHealth(context).status()).isEqualTo("UP");
            });
        } finally {
            pg.dropSchema(schema);
        }
    }

    @Test
    void should_keep_memory_on_the_server_the_jdbc_properties_name() {
        PostgresTestDatabase pg = PostgresTestDatabase.require(getClass());
        String schema = pg.createSchema("starterjdbc");
        try {
            AgentMemoryAutoConfigurationTest.remembersAcrossTurnsSessionsAndRestarts(runner.withPropertyValues(
                    "agentmemory.jdbc.url=" + pg.urlOf(schema), "agentmemory.jdbc.user=" + pg.user(),
                    "agentmemory.jdbc.password=" + pg.password(), "agentmemory.jdbc.pool-size=2"));
            runner.withPropertyValues("agentmemory.jdbc.url=" + pg.urlOf(schema), "agentmemory.jdbc.user=" + pg.user(),
                    "agentmemory.jdbc.password=" + pg.password()).run(context ->
                    assertThat(context.getBean(AgentMemory.class).agent()).isEqualTo("assistant"));
        } finally {
            pg.dropSchema(schema);
        }
    }
}

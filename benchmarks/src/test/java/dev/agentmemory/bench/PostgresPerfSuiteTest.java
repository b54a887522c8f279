package dev.agentmemory.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentmemory.store.jdbc.testing.PostgresTestDatabase;
import dev.agentmemory.store.jdbc.testing.RequiresPostgres;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs {@code perf-postgres} tiny against the test server (a schema of its own) and checks that
 * the JSON holds every figure of the three parts. No timing is asserted. Skipped without a server.
 */
@ExtendWith(RequiresPostgres.class)
class PostgresPerfSuiteTest {

    @TempDir
    Path tmp;

    @Test
    void should_write_every_figure_of_the_three_parts_when_run_tiny_against_the_test_server() throws Exception {
        PostgresTestDatabase pg = PostgresTestDatabase.require(getClass());
        String schema = pg.createSchema("perfpg");
        try {
            // given the server only as options (the environment is not consulted)
            SuiteRegistry registry = new SuiteRegistry().register(new PostgresPerfSuite(name -> null));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            Path json = tmp.resolve("out.json");

            // when
            int rc = BenchMain.run(new String[] {"perf-postgres", "--pg-url", pg.urlOf(schema), "--pg-user", pg.user(),
                    "--pg-password", pg.password(), "--turns", "12", "--out", json.toString()}, registry,
                    new BenchContext(new PrintStream(out, true, StandardCharsets.UTF_8)),
                    new PrintStream(err, true, StandardCharsets.UTF_8));

            // then
            assertThat(rc).as(err.toString(StandardCharsets.UTF_8)).isZero();
            JsonNode result = BenchMain.JSON.readTree(json.toFile());
            String printed = out.toString(StandardCharsets.UTF_8);
            assertThat(printed).contains("a. H2 file vs PostgreSQL").contains("b. instances on one PostgreSQL database")
                    .contains("c. cross-instance visibility check").contains("d. CPU per turn").doesNotContain(pg.password());
            assertThat(result.toString()).doesNotContain(pg.password());
            assertThat(result.get("suite").asText()).isEqualTo("perf-postgres");
            assertThat(result.get("turns").asInt()).isEqualTo(12);
            assertThat(result.get("seconds").asDouble()).isPositive();

            JsonNode a = result.get("side_by_side");
            for (String part : new String[] {"turn_ms", "recall_ms"}) {
                for (String store : new String[] {"h2", "postgres"}) {
                    assertLatency(a.get(part).get(store), part + " " + store);
                }
                assertThat(a.get(part).get("ratio_median").asDouble()).as(part).isPositive();
                assertThat(a.get(part).get("ratio_p99").asDouble()).as(part).isPositive();
            }

            JsonNode trips = result.get("round_trips");
            for (String[] expected : new String[][] {{"H2 file", "0"}, {"PostgreSQL", "1"}}) {
                JsonNode row = trips.get(expected[0]);
                long heads = Long.parseLong(expected[1]);
                assertThat(row.get("head_checks").get("min").asLong()).as(expected[0]).isEqualTo(heads);
                assertThat(row.get("head_checks").get("max").asLong()).as(expected[0]).isEqualTo(heads);
                assertThat(row.get("appends").get("min").asLong()).as(expected[0]).isEqualTo(1);
                assertThat(row.get("appends").get("max").asLong()).as(expected[0]).isEqualTo(1);
                assertThat(row.get("reads").get("max").asLong()).as(expected[0]).isZero();
                assertLatency(row.get("turn_ms"), "AiService turn on " + expected[0]);
            }

            // d: every text is embedded once however many instances there are, when the vectors are stored
            JsonNode cpu = result.get("cpu_per_turn").get("rows");
            assertThat(cpu).hasSize(2 * 2 * InstanceCpuBench.INSTANCES.length);
            double once = -1;
            for (JsonNode row : cpu) {
                assertThat(row.get("process_cpu_ms_per_turn").asDouble()).as(row.toString()).isPositive();
                if (row.get("vectors").asText().equals("stored")) {
                    if (once < 0) {
                        once = row.get("texts_embedded_per_turn").asDouble();
                    }
                    assertThat(row.get("texts_embedded_per_turn").asDouble()).as(row.toString()).isEqualTo(once);
                }
            }
            assertThat(once).isPositive();

            JsonNode rows = result.get("scale_out").get("rows");
            assertThat(rows).hasSize(3);
            for (int i = 0; i < 3; i++) {
                JsonNode row = rows.get(i);
                assertThat(row.get("instances").asInt()).isEqualTo(ScaleOutBench.INSTANCES[i]);
                assertThat(row.get("turns").asInt() + row.get("failed_turns").asInt()).isEqualTo(12);
                assertThat(row.get("turns_per_second").asDouble()).isPositive();
                assertThat(row.get("turn_p99_ms").asDouble()).isGreaterThanOrEqualTo(row.get("turn_median_ms").asDouble())
                        .isPositive();
                assertThat(row.get("shared_user_turn_p99_ms").asDouble())
                        .isGreaterThanOrEqualTo(row.get("shared_user_turn_median_ms").asDouble()).isPositive();
            }
            assertThat(result.get("scale_out").get("throughput_vs_one_instance").get("1").asDouble()).isEqualTo(1.0);
            assertThat(result.get("scale_out").get("throughput_vs_one_instance").get("4").asDouble()).isPositive();

            JsonNode c = result.get("visibility_check");
            for (String call : new String[] {"read_us", "write_us", "turn_us"}) {
                assertLatency(c.get(call).get("with_check"), call + " with the check");
                assertLatency(c.get(call).get("without_check"), call + " without the check");
                assertThat(c.get(call).get("extra_us_per_call").isNumber()).as(call).isTrue();
                assertThat(c.get(call).get("ratio_median").asDouble()).as(call).isPositive();
            }
        } finally {
            pg.dropSchema(schema);
        }
    }

    private static void assertLatency(JsonNode latency, String what) {
        assertThat(latency.get("median").asDouble()).as(what).isPositive();
        assertThat(latency.get("p99").asDouble()).as(what).isGreaterThanOrEqualTo(latency.get("median").asDouble());
    }
}

package dev.agentmemory.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentmemory.testing.langchain4j.SharedEmbeddingModel;
import dev.langchain4j.model.embedding.EmbeddingModel;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs every suite on a small slice of the development data so that the suites cannot rot. */
@Tag("slow")
class SuitesSmokeTest {

    private static final EmbeddingModel MODEL = SharedEmbeddingModel.get();

    @TempDir
    Path tmp;

    private JsonNode run(String... args) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        BenchContext context = new BenchContext(new PrintStream(out, true, StandardCharsets.UTF_8), MODEL);
        int rc = BenchMain.run(args, SuiteRegistry.standard(), context,
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(rc).as(err.toString(StandardCharsets.UTF_8)).isZero();
        return BenchMain.JSON.readTree(tmp.resolve("out.json").toFile());
    }

    private static Path dataset(String path) {
        Path p = dev.agentmemory.testing.Datasets.path(path);
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isRegularFile(p), "data set not present: " + p);
        return p;
    }

    @Test
    void should_write_locomo_json_for_both_systems_when_run_on_one_conversation() throws Exception {
        JsonNode json = run("locomo", "--data", dataset("locomo/locomo-dev.json").toString(),
                "--out", tmp.resolve("out.json").toString(), "--limit", "1");

        assertThat(json.get("suite").asText()).isEqualTo("locomo");
        assertThat(json.get("conversations").asInt()).isEqualTo(1);
        assertThat(json.get("items").asInt()).isPositive();
        assertThat(json.get("folds")).hasSize(1);
        assertThat(json.get("chosen_variant_per_fold").get(0).asText()).isEqualTo("default");
        for (String system : new String[] {"agent-memory", "langchain4j-default", "bm25", "fusion-0.6/0.4",
                "agent-memory-index"}) {
            JsonNode s = json.get("systems").get(system);
            assertThat(s.get("per_fold")).as(system).hasSize(1);
            assertThat(s.get("fold_mean_recall@10").asDouble()).as(system).isEqualTo(s.get("recall@10").asDouble());
            double r1 = s.get("recall@1").asDouble();
            double r20 = s.get("recall@20").asDouble();
            assertThat(r1).isBetween(0.0, 1.0);
            assertThat(r20).isGreaterThanOrEqualTo(s.get("recall@10").asDouble()).isGreaterThan(r1);
            assertThat(s.get("by_category").fieldNames()).toIterable().containsExactly("1", "2", "3", "4");
        }
    }

    @Test
    void should_write_knowledge_update_json_for_both_systems_when_run_on_twenty_items() throws Exception {
        JsonNode json = run("knowledge-update", "--data",
                dataset("knowledge-update/knowledge-update-dev.jsonl").toString(),
                "--out", tmp.resolve("out.json").toString(), "--limit", "20");

        assertThat(json.get("items").asInt()).isEqualTo(20);
        for (String field : new String[] {"top1_is_new", "new_in_context", "stale_in_context", "wrongly_hidden"}) {
            assertThat(json.get("systems").get("agent-memory").get(field).asDouble()).as(field).isBetween(0.0, 1.0);
            assertThat(json.get("systems").get("langchain4j-default").get(field).asDouble()).as(field)
                    .isBetween(0.0, 1.0);
        }
        assertThat(json.get("systems").get("langchain4j-default").get("wrongly_hidden").asDouble()).isZero();
    }

    @Test
    void should_measure_recall_latency_against_exact_search_when_run_at_one_thousand() throws Exception {
        JsonNode json = run("perf", "--out", tmp.resolve("out.json").toString(), "--limit", "1000");

        JsonNode row = json.get("recall_latency").get(0);
        assertThat(json.get("recall_latency")).hasSize(1);
        assertThat(row.get("memories").asInt()).isEqualTo(1000);
        assertThat(row.get("recall@10_vs_exact").asDouble()).isBetween(0.9, 1.0);
        assertThat(row.get("agent-memory").get("median").asDouble()).isPositive();
        assertThat(row.get("langchain4j-default").get("p99").asDouble()).isPositive();
        assertThat(json.get("query_embedding_ms").get("median").asDouble()).isPositive();
        JsonNode store = json.get("store_cost").get("rows");
        assertThat(store).hasSize(2);
        assertThat(store.get(1).get("messages").asInt()).isEqualTo(1000);
        for (String system : new String[] {"agent-memory", "langchain4j-in-memory", "rewrite-jdbc"}) {
            assertThat(store.get(1).get(system).get("turn_p99").asDouble()).as(system)
                    .isGreaterThanOrEqualTo(store.get(1).get(system).get("turn_median").asDouble());
        }
        assertThat(json.get("durable_writes").get("records_per_second_batch_100").asLong()).isPositive();
        assertThat(json.get("durable_writes").get("bytes_per_memory").asLong()).isPositive();
        JsonNode trips = json.get("round_trips").get("H2 file");
        assertThat(trips.get("appends").get("min").asLong()).as("appends per turn").isEqualTo(1);
        assertThat(trips.get("appends").get("max").asLong()).as("appends per turn").isEqualTo(1);
        for (String none : new String[] {"head_checks", "reads", "snapshot_reads", "rewrites"}) {
            assertThat(trips.get(none).get("max").asLong()).as(none + " per turn").isZero();
        }
        assertThat(json.get("turn_overhead").get("memories").asInt()).isEqualTo(1000);
        assertThat(json.get("turn_overhead").get("overhead_p99").asDouble())
                .isGreaterThanOrEqualTo(json.get("turn_overhead").get("overhead_median").asDouble());
        assertThat(json.get("turn_overhead").get("in_memory_store").get("overhead_p99").asDouble())
                .isGreaterThanOrEqualTo(json.get("turn_overhead").get("in_memory_store").get("overhead_median").asDouble())
                .isPositive();
    }

    @Test
    void should_fail_with_usage_when_suite_is_unknown_or_data_missing() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8);
        BenchContext context = new BenchContext(new PrintStream(new ByteArrayOutputStream()), MODEL);

        assertThat(BenchMain.run(new String[] {"nope"}, SuiteRegistry.standard(), context, errStream)).isEqualTo(2);
        assertThat(BenchMain.run(new String[] {"locomo"}, SuiteRegistry.standard(), context, errStream)).isEqualTo(2);
        assertThat(BenchMain.run(new String[] {"perf", "--limit", "0"}, SuiteRegistry.standard(), context, errStream))
                .isEqualTo(2);

        assertThat(err.toString(StandardCharsets.UTF_8)).contains("unknown suite: nope")
                .contains("locomo needs --data FILE").contains("--limit must be a positive integer: 0");
    }
}

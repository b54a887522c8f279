package dev.agentmemory.bench;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.store.jdbc.JdbcStores;
import dev.agentmemory.langchain4j.AgentMemory;
import dev.agentmemory.langchain4j.SessionRef;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Part a of {@code perf-postgres}: the same {@link ChatTurns} workload on an embedded H2 file and
 * on PostgreSQL, alternated turn by turn (the order swapped every round) so that machine load
 * hits both alike: per-turn cost and recall latency, medians, p99 and the PG/H2 ratio. Each
 * memory has the hashing embedding model and an episodic index in memory (the store is what is
 * compared), and its user starts with {@value #RECORDS} persistent records. The H2 file has one
 * writer, so its engine skips the cross-instance head check that PostgreSQL's makes before every
 * call: the ratio includes that check.
 */
final class StoreSideBySideBench {

    static final int RECORDS = 200;

    private final PostgresPerfSuite.Server server;
    private final String tenant;
    private final Path dir;
    private final int turns;

    StoreSideBySideBench(PostgresPerfSuite.Server server, String tenant, Path dir, int turns) {
        this.server = server;
        this.tenant = tenant;
        this.dir = dir;
        this.turns = turns;
    }

    ObjectNode run(PrintStream out) throws Exception {
        SessionRef session = new SessionRef(tenant, "side-by-side", "chat-1");
        // the H2 file given as a store, not as h2File(...), so that both keep their episodic index in memory
        EventStore h2Store = JdbcStores.h2File(Files.createDirectories(dir.resolve("h2")).resolve("memory"));
        EventStore pgStore = JdbcStores.connect(server.url(), server.user(), server.password());
        try (AgentMemory h2 = AgentMemory.builder().store(h2Store)
                .embeddingModel(new TurnOverheadBench.HashingEmbeddingModel(384)).build();
             AgentMemory pg = AgentMemory.builder().store(pgStore)
                     .embeddingModel(new TurnOverheadBench.HashingEmbeddingModel(384)).build()) {
            ChatTurns[] systems = {new ChatTurns(h2, "note.", 11), new ChatTurns(pg, "note.", 11)};
            long loadStart = System.nanoTime();
            for (ChatTurns s : systems) {
                s.preload(session, RECORDS);
            }
            double loadSeconds = (System.nanoTime() - loadStart) / 1e9;
            int warmup = Math.max(5, turns / 10);
            double[][] turnMs = new double[2][turns];
            double[][] recallMs = new double[2][turns];
            for (int t = 0; t < warmup + turns; t++) {
                for (int k = 0; k < 2; k++) {
                    int s = (t + k) % 2;
                    long took = systems[s].turn(session);
                    if (t >= warmup) {
                        turnMs[s][t - warmup] = took / 1e6;
                    }
                }
                for (int k = 0; k < 2; k++) {
                    int s = (t + k) % 2;
                    long took = systems[s].recall(session);
                    if (t >= warmup) {
                        recallMs[s][t - warmup] = took / 1e6;
                    }
                }
            }
            ObjectNode json = JsonNodeFactory.instance.objectNode();
            json.put("turns", turns);
            json.put("records_per_user", RECORDS);
            json.put("preload_seconds", Stats.round(loadSeconds));
            json.put("h2_checks_head", h2Store.sharedWithOtherWriters());
            json.put("postgres_checks_head", pgStore.sharedWithOtherWriters());
            json.put("turn", "user message + AI reply through the chat memory, one record write, a window read");
            json.put("recall", "AgentMemory.contentRetriever().retrieve, after the episodic index caught up");
            json.set("turn_ms", compare(turnMs));
            json.set("recall_ms", compare(recallMs));
            out.printf("%na. H2 file vs PostgreSQL, same workload alternated, %d turns each (ms)%n", turns);
            out.printf("%-10s %10s %10s %10s %10s %12s %12s%n", "", "H2 median", "H2 p99", "PG median", "PG p99",
                    "PG/H2 med", "PG/H2 p99");
            row(out, "turn", json.get("turn_ms"));
            row(out, "recall", json.get("recall_ms"));
            return json;
        }
    }

    /** {@code {"h2": {median, p99}, "postgres": {...}, "ratio_median": .., "ratio_p99": ..}}. */
    private static ObjectNode compare(double[][] ms) {
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        o.set("h2", Stats.latency(ms[0]));
        o.set("postgres", Stats.latency(ms[1]));
        o.put("ratio_median", Stats.ratio(Stats.percentile(ms[1], 50), Stats.percentile(ms[0], 50)));
        o.put("ratio_p99", Stats.ratio(Stats.percentile(ms[1], 99), Stats.percentile(ms[0], 99)));
        return o;
    }

    private static void row(PrintStream out, String what, com.fasterxml.jackson.databind.JsonNode j) {
        out.printf("%-10s %10s %10s %10s %10s %12s %12s%n", what, Stats.f3(j.get("h2").get("median").asDouble()),
                Stats.f3(j.get("h2").get("p99").asDouble()), Stats.f3(j.get("postgres").get("median").asDouble()),
                Stats.f3(j.get("postgres").get("p99").asDouble()), Stats.f3(j.get("ratio_median").asDouble()),
                Stats.f3(j.get("ratio_p99").asDouble()));
    }
}

package dev.agentmemory.bench;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;

/**
 * {@code perf-postgres}: PostgreSQL against the embedded H2 file and PostgreSQL scale-out, in one
 * run: (a) per-turn cost and recall latency on an H2 file and on PostgreSQL, alternated
 * ({@link StoreSideBySideBench}), and the store round trips of an AiService turn on each
 * ({@link RoundTripsBench}); (b) throughput and p99 turn latency of 1, 2 and 4 instances on
 * one database ({@link ScaleOutBench}); (c) the cost per call of the cross-instance visibility
 * check ({@link VisibilityCheckBench}); (d) CPU time per turn with 1 to 4 instances, turns routed
 * at random or pinned by user, vectors stored or recomputed ({@link InstanceCpuBench}). The server comes from {@code --pg-url}, {@code --pg-user},
 * {@code --pg-password}, each falling back to {@code AGENTMEMORY_TEST_PG_URL}, {@code _USER},
 * {@code _PASSWORD}. Everything is written under a tenant of its own ({@code perf-<random>}), so
 * runs on one database do not see each other; nothing is deleted afterwards. {@code --turns N}
 * (default {@value #DEFAULT_TURNS}) is the number of measured turns per store in (a), in all in
 * each row of (b), and of rounds in (c).
 */
final class PostgresPerfSuite implements Suite {

    static final int DEFAULT_TURNS = 100;
    /** Which parts run ({@code -Dperf.postgres.parts=d} for the CPU per turn alone); all by default. */
    static final String PARTS_PROPERTY = "perf.postgres.parts";
    static final String URL_ENV = "AGENTMEMORY_TEST_PG_URL";
    static final String USER_ENV = "AGENTMEMORY_TEST_PG_USER";
    static final String PASSWORD_ENV = "AGENTMEMORY_TEST_PG_PASSWORD";

    /** Where the server is; {@link #toString} leaves out the password and the URL's parameters. */
    record Server(String url, String user, String password) {
        Server {
            Objects.requireNonNull(url, "url");
            Objects.requireNonNull(user, "user");
            Objects.requireNonNull(password, "password");
        }

        @Override
        public String toString() {
            int q = url.indexOf('?');
            return (q < 0 ? url : url.substring(0, q)) + " as " + user;
        }
    }

    private final Function<String, String> env;

    PostgresPerfSuite() {
        this(System::getenv);
    }

    /** With {@code env} in place of the process environment (for tests). */
    PostgresPerfSuite(Function<String, String> env) {
        this.env = env;
    }

    @Override
    public String name() {
        return "perf-postgres";
    }

    @Override
    public boolean needsData() {
        return false;
    }

    @Override
    public String description() {
        return "H2 file vs PostgreSQL per turn and recall, store round trips per AiService turn, 1/2/4 instances on one PostgreSQL database, cost of the"
                + " cross-instance check (--pg-url/--pg-user/--pg-password or " + URL_ENV + "..., --turns N)";
    }

    @Override
    public void check(SuiteOptions options) {
        server(options);
    }

    Server server(SuiteOptions options) {
        String url = options.pgUrl().or(() -> fromEnv(URL_ENV)).orElseThrow(() -> new IllegalArgumentException(
                name() + " needs a PostgreSQL server: --pg-url jdbc:postgresql://HOST:PORT/DB (or " + URL_ENV + ")"));
        if (!url.startsWith("jdbc:postgresql:")) {
            throw new IllegalArgumentException("--pg-url must be a PostgreSQL JDBC URL (jdbc:postgresql://...): " + url);
        }
        return new Server(url, options.pgUser().or(() -> fromEnv(USER_ENV)).orElse(""),
                options.pgPassword().or(() -> fromEnv(PASSWORD_ENV)).orElse(""));
    }

    private Optional<String> fromEnv(String name) {
        return Optional.ofNullable(env.apply(name)).filter(v -> !v.isBlank());
    }

    @Override
    public ObjectNode run(SuiteOptions options, BenchContext context) throws Exception {
        Server server = server(options);
        int turns = options.turnsOr(DEFAULT_TURNS);
        String tenant = "perf-" + UUID.randomUUID().toString().substring(0, 8);
        PrintStream out = context.out();
        ObjectNode json = JsonNodeFactory.instance.objectNode();
        json.put("suite", name());
        json.put("server", server.toString());
        json.put("tenant", tenant);
        json.put("turns", turns);
        json.put("cores", Runtime.getRuntime().availableProcessors());
        json.put("java", System.getProperty("java.version"));
        json.put("embeddings", "hashing model, 384 dimensions (cheap, deterministic)");
        json.put("load_average_at_start", Stats.round(loadAverage()));
        out.printf("perf-postgres on %s, tenant %s, %d turns, load average %s%n", server, tenant, turns,
                Stats.f3(loadAverage()));
        long start = System.nanoTime();
        Path dir = Files.createTempDirectory("agent-memory-perf-postgres");
        String parts = System.getProperty(PARTS_PROPERTY, "abcd");
        json.put("parts", parts);
        try {
            long t = System.nanoTime();
            if (parts.contains("a")) {
                json.set("side_by_side", new StoreSideBySideBench(server, tenant, dir, turns).run(out)
                        .put("seconds", Stats.round((System.nanoTime() - t) / 1e9)));
            }
            t = System.nanoTime();
            if (parts.contains("a")) {
                Path trips = Files.createDirectories(dir.resolve("round-trips"));
                java.util.Map<String, java.util.function.Supplier<dev.agentmemory.core.spi.EventStore>> stores = new java.util.LinkedHashMap<>();
                stores.put("H2 file", () -> dev.agentmemory.store.jdbc.JdbcStores.h2File(trips.resolve("memory")));
                stores.put("PostgreSQL", () -> dev.agentmemory.store.jdbc.JdbcStores.connect(server.url(), server.user(), server.password()));
                json.set("round_trips", new RoundTripsBench(tenant, Math.max(5, turns / 10), turns).run(stores, out)
                        .put("seconds", Stats.round((System.nanoTime() - t) / 1e9)));
            }
            t = System.nanoTime();
            if (parts.contains("b")) {
                json.set("scale_out", new ScaleOutBench(server, tenant, turns).run(out)
                        .put("seconds", Stats.round((System.nanoTime() - t) / 1e9)));
            }
            t = System.nanoTime();
            if (parts.contains("c")) {
                json.set("visibility_check", new VisibilityCheckBench(server, tenant, turns).run(out)
                        .put("seconds", Stats.round((System.nanoTime() - t) / 1e9)));
            }
            t = System.nanoTime();
            if (parts.contains("d")) {
                json.set("cpu_per_turn", new InstanceCpuBench(server, tenant, turns, context.model()).run(out)
                        .put("seconds", Stats.round((System.nanoTime() - t) / 1e9)));
            }
        } finally {
            try (var files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        json.put("seconds", Stats.round(seconds));
        json.put("load_average_at_end", Stats.round(loadAverage()));
        out.printf("%nperf-postgres took %s s, load average at the end %s%n", Stats.f3(seconds), Stats.f3(loadAverage()));
        return json;
    }

    /** The one-minute system load average, -1 where the platform has none. */
    private static double loadAverage() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }
}

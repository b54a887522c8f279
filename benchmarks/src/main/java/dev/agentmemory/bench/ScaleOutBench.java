package dev.agentmemory.bench;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentmemory.langchain4j.AgentMemory;
import dev.agentmemory.langchain4j.SessionRef;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Part b of {@code perf-postgres}: 1, 2 and 4 instances on one PostgreSQL database, each its own
 * {@link AgentMemory} with its own {@code .jdbc(...)} pool (and episodic index in memory), in this JVM, one
 * thread each. An instance takes turns ({@link ChatTurns}) round robin over
 * {@value #OWN_USERS} users of its own and one user that every instance shares (a session of
 * its own in that user), so a quarter of its turns append to a partition the others append to
 * too. The measured turns are split among the instances (same total at every count), after a
 * warm-up on each. Reported: turns/second (measured turns over the wall time from the start
 * barrier to the last thread's end), median and p99 turn latency (all turns, and the shared
 * user's alone), and turns that failed (with the first failure's message).
 */
final class ScaleOutBench {

    static final int[] INSTANCES = {1, 2, 4};
    static final int OWN_USERS = 3;
    private static final long TIMEOUT_MINUTES = 10;

    private final PostgresPerfSuite.Server server;
    private final String tenant;
    private final int turns;

    ScaleOutBench(PostgresPerfSuite.Server server, String tenant, int turns) {
        this.server = server;
        this.tenant = tenant;
        this.turns = turns;
    }

    ObjectNode run(PrintStream out) throws Exception {
        ObjectNode json = JsonNodeFactory.instance.objectNode();
        json.put("measured_turns", turns);
        json.put("users", OWN_USERS + " own per instance + 1 shared by all (every fourth turn)");
        ArrayNode rows = json.putArray("rows");
        out.printf("%nb. instances on one PostgreSQL database, %d measured turns in all, one thread per instance%n", turns);
        out.printf("%-10s %10s %10s %10s %14s %14s %8s%n", "instances", "turns/s", "median ms", "p99 ms",
                "shared med ms", "shared p99 ms", "failed");
        for (int n : INSTANCES) {
            ObjectNode row = measure(n);
            rows.add(row);
            out.printf("%-10d %10s %10s %10s %14s %14s %8d%n", n, Stats.f3(row.get("turns_per_second").asDouble()),
                    Stats.f3(row.get("turn_median_ms").asDouble()), Stats.f3(row.get("turn_p99_ms").asDouble()),
                    Stats.f3(row.path("shared_user_turn_median_ms").asDouble()),
                    Stats.f3(row.path("shared_user_turn_p99_ms").asDouble()), row.get("failed_turns").asInt());
            if (row.has("first_failure")) {
                out.println("  first failure: " + row.get("first_failure").asText());
            }
        }
        double one = rows.get(0).get("turns_per_second").asDouble();
        ObjectNode scaling = json.putObject("throughput_vs_one_instance");
        for (int i = 0; i < INSTANCES.length; i++) {
            scaling.put(String.valueOf(INSTANCES[i]), Stats.ratio(rows.get(i).get("turns_per_second").asDouble(), one));
        }
        out.println("throughput vs one instance: " + scaling);
        return json;
    }

    private ObjectNode measure(int instances) throws Exception {
        String run = "n" + instances;
        List<AgentMemory> memories = new ArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(instances);
        try {
            List<Worker> workers = new ArrayList<>();
            for (int i = 0; i < instances; i++) {
                AgentMemory memory = AgentMemory.builder().jdbc(server.url(), server.user(), server.password())
                        .embeddingModel(new TurnOverheadBench.HashingEmbeddingModel(384)).build();
                memories.add(memory);
                int share = turns / instances + (i < turns % instances ? 1 : 0);
                workers.add(new Worker(memory, run, i, share));
            }
            for (Worker w : workers) {
                w.warmUp();
            }
            CyclicBarrier start = new CyclicBarrier(instances + 1);
            List<Future<?>> done = new ArrayList<>();
            for (Worker w : workers) {
                done.add(threads.submit(() -> {
                    start.await();
                    w.measure();
                    return null;
                }));
            }
            start.await();
            long begin = System.nanoTime();
            for (Future<?> f : done) {
                f.get(TIMEOUT_MINUTES, TimeUnit.MINUTES);
            }
            double seconds = (System.nanoTime() - begin) / 1e9;
            List<Double> ms = new ArrayList<>();
            List<Double> sharedMs = new ArrayList<>();
            int failed = 0;
            String firstFailure = null;
            for (Worker w : workers) {
                ms.addAll(w.ms);
                sharedMs.addAll(w.sharedMs);
                failed += w.failed;
                if (firstFailure == null) {
                    firstFailure = w.firstFailure;
                }
            }
            double[] samples = ms.stream().mapToDouble(Double::doubleValue).toArray();
            double[] shared = sharedMs.stream().mapToDouble(Double::doubleValue).toArray();
            ObjectNode row = JsonNodeFactory.instance.objectNode();
            row.put("instances", instances);
            row.put("turns", samples.length);
            row.put("seconds", Stats.round(seconds));
            row.put("turns_per_second", Stats.round(samples.length / seconds));
            row.put("turn_median_ms", samples.length == 0 ? 0 : Stats.round(Stats.percentile(samples, 50)));
            row.put("turn_p99_ms", samples.length == 0 ? 0 : Stats.round(Stats.percentile(samples, 99)));
            if (shared.length > 0) {
                row.put("shared_user_turn_median_ms", Stats.round(Stats.percentile(shared, 50)));
                row.put("shared_user_turn_p99_ms", Stats.round(Stats.percentile(shared, 99)));
            }
            row.put("failed_turns", failed);
            if (firstFailure != null) {
                row.put("first_failure", firstFailure);
            }
            return row;
        } finally {
            threads.shutdownNow();
            for (AgentMemory m : memories) {
                m.close();
            }
        }
    }

    /** One instance's thread: its users, its turns, its latencies and failures. */
    private final class Worker {
        private final ChatTurns chat;
        private final List<SessionRef> sessions = new ArrayList<>();
        private final int turns;
        final List<Double> ms = new ArrayList<>();
        /** The turns on the shared user, also in {@link #ms}. */
        final List<Double> sharedMs = new ArrayList<>();
        int failed;
        @org.jspecify.annotations.Nullable String firstFailure;
        private int next;

        Worker(AgentMemory memory, String run, int instance, int turns) {
            this.chat = new ChatTurns(memory, "note.i" + instance + ".", 100L * instance + run.hashCode());
            this.turns = turns;
            // the shared user first: the warm-up takes whole rounds, so each instance's first measured turn is on it
            sessions.add(new SessionRef(tenant, run + "-shared", "chat-i" + instance));
            for (int u = 0; u < OWN_USERS; u++) {
                sessions.add(new SessionRef(tenant, run + "-i" + instance + "-u" + u, "chat-1"));
            }
        }

        void warmUp() {
            for (int i = 0; i < 2 * sessions.size(); i++) {
                turn(false);
            }
        }

        void measure() {
            for (int i = 0; i < turns; i++) {
                turn(true);
            }
        }

        private void turn(boolean record) {
            SessionRef session = sessions.get(next++ % sessions.size());
            try {
                long took = chat.turn(session);
                if (record) {
                    ms.add(took / 1e6);
                    if (session.user().endsWith("-shared")) {
                        sharedMs.add(took / 1e6);
                    }
                }
            } catch (RuntimeException e) {
                if (record) {
                    failed++;
                }
                if (firstFailure == null) {
                    firstFailure = session.user() + ", " + chat.step() + ": " + e;
                }
            }
        }
    }
}

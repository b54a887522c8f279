package dev.agentmemory.bench;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.langchain4j.AgentMemory;
import dev.agentmemory.langchain4j.SessionRef;
import dev.agentmemory.store.jdbc.JdbcStores;
import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.output.Response;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.UserMessage;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Part d of {@code perf-postgres}: CPU time per turn when instances are added. 1 to 4
 * application instances, each its own {@link AgentMemory} (own pool, own episodic index in
 * memory) with a real AiServices assistant (an instant scripted model, the real embedding model),
 * on one PostgreSQL database, in this JVM. The turns of {@value #USERS} users go one after the
 * other, each to a random instance ({@code random}: a load balancer without stickiness) or to
 * the user's own instance ({@code pinned}: sticky by user); each instance runs its turns on a
 * thread of its own. Measured over the turns after a warm-up, with the indexing queues drained at
 * the end: the process's CPU time (every thread, the embedding model's native ones included) per
 * turn, the CPU time of each instance's own Java threads (its turn thread, its indexer, its pool)
 * per turn it served, and the texts each instance embedded per turn. Run twice: with the vectors
 * kept in the database ({@code stored}) and with a store that keeps none ({@code recomputed}, each
 * instance embeds what it indexes, as before stored vectors).
 */
final class InstanceCpuBench {

    static final int USERS = 12;
    static final int[] INSTANCES = {1, 2, 3, 4};

    interface Assistant {
        String chat(@MemoryId SessionRef session, @UserMessage String text);
    }

    private final PostgresPerfSuite.Server server;
    private final String tenant;
    private final int turns;
    private final EmbeddingModel embeddings;

    InstanceCpuBench(PostgresPerfSuite.Server server, String tenant, int turns, EmbeddingModel embeddings) {
        this.server = server;
        this.tenant = tenant;
        this.turns = turns;
        this.embeddings = embeddings;
    }

    ObjectNode run(PrintStream out) throws Exception {
        ObjectNode json = JsonNodeFactory.instance.objectNode();
        json.put("measured_turns", turns);
        json.put("users", USERS);
        json.put("embeddings", "all-MiniLM-L6-v2 (ONNX, in process)");
        ArrayNode rows = json.putArray("rows");
        out.printf("%nd. CPU per turn, %d measured turns over %d users, 1 to 4 instances on one database%n", turns, USERS);
        out.printf("%-11s %-8s %9s %14s %16s %14s %12s%n", "vectors", "routing", "instances", "process ms/turn",
                "instance ms/turn", "vs 1 instance", "embeds/turn");
        // JIT and the model's native threads warm up first, outside the table
        measure(2, "random", true);
        measure(2, "random", false);
        // stored and recomputed alternate at each count, so that machine load hits both alike
        for (String routing : List.of("random", "pinned")) {
            double[] one = new double[2];
            for (int n : INSTANCES) {
                for (boolean stored : new boolean[] {true, false}) {
                    ObjectNode row = measure(n, routing, stored);
                    int k = stored ? 0 : 1;
                    if (n == 1) {
                        one[k] = row.get("process_cpu_ms_per_turn").asDouble();
                    }
                    row.put("process_cpu_vs_one_instance", Stats.ratio(row.get("process_cpu_ms_per_turn").asDouble(), one[k]));
                    rows.add(row);
                    out.printf("%-11s %-8s %9d %14s %16s %14s %12s%n", stored ? "stored" : "recomputed", routing, n,
                            Stats.f3(row.get("process_cpu_ms_per_turn").asDouble()),
                            Stats.f3(row.get("instance_thread_cpu_ms_per_turn").asDouble()),
                            Stats.f3(row.get("process_cpu_vs_one_instance").asDouble()),
                            Stats.f3(row.get("texts_embedded_per_turn").asDouble()));
                }
            }
        }
        return json;
    }

    private ObjectNode measure(int n, String routing, boolean stored) throws Exception {
        String run = (stored ? "s" : "r") + "-" + routing + "-" + n + "-";
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        List<Instance> instances = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                Set<Long> before = threadIds(mx);
                Instance instance = new Instance(i, stored);
                instances.add(instance);
                // the instance's threads: those started while it was built and served its first turns
                for (int u = 0; u < USERS; u++) {
                    instance.turn(new SessionRef(tenant, run + "u" + u, "chat"), "hello, warming up " + u);
                }
                instance.memory.awaitIndexed();
                instance.threads.addAll(threadIds(mx));
                instance.threads.removeAll(before);
            }
            Random random = new Random(7);
            String[] words = Words.vocabulary(2_000, new Random(11));
            // every instance has seen every user once (the warm-up), as in a steady state
            long processBefore = processCpuNanos();
            long[] threadBefore = instances.stream().mapToLong(i -> i.cpuNanos(mx)).toArray();
            long[] embeddedBefore = instances.stream().mapToLong(i -> i.embedded.get()).toArray();
            int[] served = new int[n];
            for (int t = 0; t < turns; t++) {
                int user = t % USERS;
                int to = routing.equals("random") ? random.nextInt(n) : user % n;
                served[to]++;
                instances.get(to).turn(new SessionRef(tenant, run + "u" + user, "chat"), Words.sentence(words, random, 9));
            }
            for (Instance i : instances) {
                i.memory.awaitIndexed();
            }
            long processCpu = processCpuNanos() - processBefore;
            ObjectNode row = JsonNodeFactory.instance.objectNode();
            row.put("vectors", stored ? "stored" : "recomputed");
            row.put("routing", routing);
            row.put("instances", n);
            row.put("turns", turns);
            row.put("process_cpu_ms_per_turn", Stats.round(processCpu / 1e6 / turns));
            long threadCpu = 0;
            long embedded = 0;
            ArrayNode per = row.putArray("per_instance");
            for (int i = 0; i < n; i++) {
                long cpu = instances.get(i).cpuNanos(mx) - threadBefore[i];
                long texts = instances.get(i).embedded.get() - embeddedBefore[i];
                threadCpu += cpu;
                embedded += texts;
                ObjectNode p = per.addObject();
                p.put("turns_served", served[i]);
                p.put("thread_cpu_ms_per_turn_served", served[i] == 0 ? 0 : Stats.round(cpu / 1e6 / served[i]));
                p.put("texts_embedded", texts);
            }
            row.put("instance_thread_cpu_ms_per_turn", Stats.round(threadCpu / 1e6 / turns));
            row.put("texts_embedded_per_turn", Stats.round((double) embedded / turns));
            return row;
        } finally {
            for (Instance i : instances) {
                i.close();
            }
        }
    }

    private static Set<Long> threadIds(ThreadMXBean mx) {
        Set<Long> ids = new HashSet<>();
        for (long id : mx.getAllThreadIds()) {
            ids.add(id);
        }
        return ids;
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    /** One application instance: its memory, assistant, turn thread, and the Java threads it started. */
    private final class Instance {
        final AtomicLong embedded = new AtomicLong();
        final AgentMemory memory;
        final Assistant assistant;
        final ExecutorService turnThread;
        final Set<Long> threads = new HashSet<>();

        Instance(int index, boolean stored) {
            turnThread = Executors.newSingleThreadExecutor(r -> new Thread(r, "instance-" + index + "-turns"));
            EventStore store = JdbcStores.connect(server.url(), server.user(), server.password());
            if (!stored) {
                store = new EventStore.ForwardingEventStore(store) {
                    @Override
                    public boolean keepsVectors() {
                        return false;
                    }
                };
            }
            EmbeddingModel counted = new EmbeddingModel() {
                @Override
                public Response<List<Embedding>> embedAll(List<TextSegment> segments) {
                    embedded.addAndGet(segments.size());
                    return embeddings.embedAll(segments);
                }

                @Override
                public int dimension() {
                    return embeddings.dimension();
                }
            };
            memory = AgentMemory.builder().store(store).embeddingModel(counted).build();
            ChatModel model = new ChatModel() {
                private final AtomicLong n = new AtomicLong();

                @Override
                public ChatResponse doChat(ChatRequest request) {
                    return ChatResponse.builder().aiMessage(AiMessage.from("Noted, answer " + n.incrementAndGet() + ".")).build();
                }
            };
            assistant = AiServices.builder(Assistant.class).chatModel(model).chatMemoryProvider(memory.chatMemoryProvider())
                    .retrievalAugmentor(memory.retrievalAugmentor()).build();
        }

        void turn(SessionRef session, String text) {
            try {
                turnThread.submit(() -> assistant.chat(session, text)).get(5, TimeUnit.MINUTES);
            } catch (Exception e) {
                throw new IllegalStateException("turn of " + session + " failed: " + e, e);
            }
        }

        long cpuNanos(ThreadMXBean mx) {
            long sum = 0;
            for (long id : threads) {
                long t = mx.getThreadCpuTime(id);
                if (t > 0) {
                    sum += t;
                }
            }
            return sum;
        }

        void close() {
            turnThread.shutdownNow();
            memory.close();
        }
    }
}

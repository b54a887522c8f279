package dev.agentmemory.bench;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentmemory.langchain4j.AgentMemory;
import dev.agentmemory.langchain4j.SessionRef;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.rag.query.Metadata;
import dev.langchain4j.rag.query.Query;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;

/**
 * A {@code perf} row: heap per stored memory and the first recall of a user in a new memory
 * over a log that holds N of them (item 6 of the performance issue). N persistent records of one
 * user (hashing embedding model, 384 dimensions, so that loading is quick).
 * <ul>
 *   <li>heap: everything in memory (store and episodic index), used heap after full GCs before
 *       and after loading, per record, and the same less the vector (384 float32, 1,536 bytes);</li>
 *   <li>cold start: on an H2 file with its index directory, written and closed by one memory;
 *       a new {@link AgentMemory} on the same files then answers its first recall of the user (the
 *       engine loads the user, the index catches up with the log), and again with the index
 *       directory deleted (rebuilt from the log with the vectors stored in the file). Same JVM,
 *       so classes are loaded and compiled: a new process adds its start-up.</li>
 * </ul>
 */
final class ColdStartBench {

    private static final int DIMENSIONS = 384;
    private final Path dir;

    ColdStartBench(Path dir) {
        this.dir = dir;
    }

    ObjectNode run(int[] sizes, PrintStream out) throws Exception {
        ObjectNode json = JsonNodeFactory.instance.objectNode();
        ArrayNode rows = json.putArray("rows");
        out.printf("%ncold start and heap (hashing embeddings, %d dims; vector = %d bytes)%n", DIMENSIONS, DIMENSIONS * 4);
        out.printf("%-9s %14s %20s %16s %16s %18s%n", "memories", "heap B/memory", "beyond vector B", "load s",
                "first recall ms", "no index dir ms");
        for (int n : sizes) {
            ObjectNode row = rows.addObject();
            row.put("memories", n);
            heap(n, row);
            coldStart(n, row);
            out.printf("%-9d %14s %20s %16s %16s %18s%n", n, Stats.f3(row.get("heap_bytes_per_memory").asDouble()),
                    Stats.f3(row.get("heap_bytes_beyond_vector").asDouble()), Stats.f3(row.get("load_seconds").asDouble()),
                    Stats.f3(row.get("first_recall_ms").asDouble()), Stats.f3(row.get("first_recall_rebuilt_index_ms").asDouble()));
        }
        return json;
    }

    private static void heap(int n, ObjectNode row) {
        long before = usedHeap();
        AgentMemory memory = AgentMemory.builder().embeddingModel(new TurnOverheadBench.HashingEmbeddingModel(DIMENSIONS)).build();
        try {
            SessionRef session = new SessionRef("perf", "heap", "chat");
            new ChatTurns(memory, "fact.", 5).preload(session, n);
            long after = usedHeap();
            double perMemory = (after - before) / (double) n;
            row.put("heap_bytes_per_memory", Stats.round(perMemory));
            row.put("heap_bytes_beyond_vector", Stats.round(perMemory - DIMENSIONS * 4));
            // keep the memory reachable until measured
            row.put("indexed", memory.engine() != null);
        } finally {
            memory.close();
        }
    }

    private void coldStart(int n, ObjectNode row) throws Exception {
        Path run = Files.createTempDirectory(dir, "cold");
        Path file = run.resolve("memory");
        SessionRef session = new SessionRef("perf", "cold", "chat");
        long t = System.nanoTime();
        try (AgentMemory first = AgentMemory.builder().h2File(file)
                .embeddingModel(new TurnOverheadBench.HashingEmbeddingModel(DIMENSIONS)).build()) {
            new ChatTurns(first, "fact.", 9).preload(session, n);
        }
        row.put("load_seconds", Stats.round((System.nanoTime() - t) / 1e9));
        row.put("first_recall_ms", Stats.round(firstRecall(file, session) / 1e6));
        try (var files = Files.walk(file.resolveSibling(file.getFileName() + ".recall"))) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
        row.put("first_recall_rebuilt_index_ms", Stats.round(firstRecall(file, session) / 1e6));
    }

    /** Nanoseconds of the first recall of the user by a new memory on the file. */
    private static long firstRecall(Path file, SessionRef session) {
        TurnOverheadBench.HashingEmbeddingModel model = new TurnOverheadBench.HashingEmbeddingModel(DIMENSIONS);
        try (AgentMemory memory = AgentMemory.builder().h2File(file).embeddingModel(model).build()) {
            String question = "What did we choose about the delivery?";
            Query query = Query.from(question, Metadata.builder().chatMessage(UserMessage.from(question))
                    .invocationContext(InvocationContext.builder().chatMemoryId(session).build()).build());
            long t = System.nanoTime();
            memory.contentRetriever().retrieve(query);
            return System.nanoTime() - t;
        }
    }

    private static long usedHeap() {
        Runtime rt = Runtime.getRuntime();
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return rt.totalMemory() - rt.freeMemory();
    }
}

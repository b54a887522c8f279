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
import dev.agentmemory.core.event.Change;
import dev.agentmemory.core.event.LoggedEvent;
import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.core.spi.StoredSnapshot;
import dev.agentmemory.core.spi.StoredEvent;
import dev.agentmemory.core.spi.StoredVector;
import dev.agentmemory.core.spi.VectorModel;
import dev.agentmemory.core.store.InMemoryEventStore;
import dev.agentmemory.store.jdbc.JdbcStores;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@code perf} row: heap per stored memory and the first recall of a user in a new memory
 * over a log that holds N of them (item 6 of the performance issue). N persistent records of one
 * user (hashing embedding model, 384 dimensions, so that loading is quick).
 * <ul>
 *   <li>heap: everything in memory (store and episodic index), used heap after full GCs before
 *       loading and after loading and one recall, per record; the store's share of it (its log,
 *       its copy of the vectors and its snapshot of the user's state: measured as the heap a copy
 *       of them takes), which an H2 file or PostgreSQL keeps out of the heap; and the rest, the
 *       records and the episodic index, less the vector (384 float32, 1,536 bytes);</li>
 *   <li>cold start: on an H2 file with its index directory, written and closed by one memory (the
 *       user, and a user of ten memories); then, each in a new JVM ({@link ColdStartProbe}), the
 *       first recall of the user by a memory opened on the same files the default way
 *       ({@code h2File}, index directory next to it), the same with the engine's load of the user
 *       timed apart, the same after another user's first recall in that process (what an application
 *       that is up meets: classes loaded, the JIT started), the user of ten (the start-up cost whatever the user's size) with the default
 *       embedding model's first call, and, up to 10k ({@code -Dperf.coldStartRebuild=true} above),
 *       with the index directory deleted (rebuilt from the log with the vectors stored in the file).
 *       The files are written by the engine without an index, then the index is built by the
 *       catch-up of a first recall ({@code -Dperf.coldStartLoad=indexer}: by the indexing thread
 *       while the records are written, one item per index write, hours at 100k).
 *       {@code -Dperf.coldStartKeep=DIR} writes the files under DIR and keeps them;
 *       {@code -Dperf.coldStartHeap=false} skips the heap part.</li>
 * </ul>
 */
final class ColdStartBench {

    static final int DIMENSIONS = 384;
    private final Path dir;

    ColdStartBench(Path dir) {
        this.dir = dir;
    }

    ObjectNode run(int[] sizes, PrintStream out) throws Exception {
        ObjectNode json = JsonNodeFactory.instance.objectNode();
        ArrayNode rows = json.putArray("rows");
        out.printf("%ncold start and heap (hashing embeddings, %d dims; vector = %d bytes)%n", DIMENSIONS, DIMENSIONS * 4);
        out.printf("%-9s %14s %10s %16s %20s %10s %16s %18s%n", "memories", "heap B/memory", "store B",
                "records+index B", "beyond vector B", "load s", "first recall ms", "no index dir ms");
        for (int n : sizes) {
            ObjectNode row = rows.addObject();
            row.put("memories", n);
            if (Boolean.parseBoolean(System.getProperty("perf.coldStartHeap", "true"))) {
                heap(n, row);
            } else {
                for (String f : List.of("heap_bytes_per_memory", "store_heap_bytes_per_memory",
                        "records_and_index_bytes_per_memory", "heap_bytes_beyond_vector")) {
                    row.put(f, Double.NaN);
                }
            }
            coldStart(n, row);
            out.printf("%-9d %14s %10s %16s %20s %10s %16s %18s%n", n, Stats.f3(row.get("heap_bytes_per_memory").asDouble()),
                    Stats.f3(row.get("store_heap_bytes_per_memory").asDouble()),
                    Stats.f3(row.get("records_and_index_bytes_per_memory").asDouble()),
                    Stats.f3(row.get("heap_bytes_beyond_vector").asDouble()), Stats.f3(row.get("load_seconds").asDouble()),
                    Stats.f3(row.get("first_recall_ms").asDouble()), Stats.f3(row.get("first_recall_rebuilt_index_ms").asDouble()));
            out.printf("%-9s log %d events, %d snapshots saved (%d chars, last at seq %d), H2 file %d bytes%n", "",
                    row.get("log_events").asLong(), row.get("snapshots_saved").asLong(),
                    row.get("snapshot_chars_saved").asLong(), row.get("last_snapshot_seq").asLong(),
                    row.get("h2_file_bytes").asLong());
            out.printf("%-9s load: %s (records %s s, index catch-up %s s)%n", "", row.get("load").asText(),
                    row.get("records_seconds"), row.get("index_catch_up_seconds"));
            out.printf("%-9s default configuration (H2 file, index on disk): heap %s B per memory%n", "",
                    Stats.f3(row.get("default_config_heap_bytes_per_memory").asDouble()));
            out.printf("%-9s new process, index dir kept: %s%n%-9s load split out: %s%n%-9s after another user's recall: %s%n"
                    + "%-9s a user of ten: %s%n", "", row.get("new_process"), "", row.get("new_process_load_split"), "",
                    row.get("new_process_after_another_user"), "", row.get("new_process_user_of_ten"));
        }
        return json;
    }

    private static void heap(int n, ObjectNode row) {
        long before = usedHeap();
        InMemoryEventStore store = new InMemoryEventStore();
        TurnOverheadBench.HashingEmbeddingModel model = new TurnOverheadBench.HashingEmbeddingModel(DIMENSIONS);
        SessionRef session = new SessionRef("perf", "heap", "chat");
        boolean throughIndexer = "indexer".equals(System.getProperty("perf.coldStartLoad", "catchUp"));
        if (!throughIndexer) {
            // the records first, by a memory without an index; the index below catches up with them
            try (AgentMemory records = AgentMemory.builder().store(store).build()) {
                new ChatTurns(records, "fact.", 5).preload(session, n);
            }
        }
        AgentMemory memory = AgentMemory.builder().store(store).embeddingModel(model).build();
        try {
            if (throughIndexer) {
                new ChatTurns(memory, "fact.", 5).preload(session, n);
            }
            // a recall: the index caught up, and what a recall builds per user (the ranking of
            // persistent keys) is counted too
            memory.contentRetriever().retrieve(Query.from("What did we choose?", Metadata.builder()
                    .chatMessage(UserMessage.from("What did we choose?"))
                    .invocationContext(InvocationContext.builder().chatMemoryId(session).build()).build()));
            memory.awaitIndexed();
            long after = usedHeap();
            double perMemory = (after - before) / (double) n;
            // the episodic index's ids of the records, whose vectors the store keeps
            List<String> recordItems = new ArrayList<>();
            for (LoggedEvent e : memory.engine().admin().log(memory.caller(session))) {
                if (e.change() instanceof Change.RecordWritten w) {
                    recordItems.add("r|" + w.record().id());
                }
            }
            double storeShare = storeHeap(store, new Partition(session.tenant(), session.user()), recordItems, model)
                    / (double) n;
            row.put("heap_bytes_per_memory", Stats.round(perMemory));
            row.put("store_heap_bytes_per_memory", Stats.round(storeShare));
            row.put("records_and_index_bytes_per_memory", Stats.round(perMemory - storeShare));
            row.put("heap_bytes_beyond_vector", Stats.round(perMemory - storeShare - DIMENSIONS * 4));
            // keep the memory reachable until measured
            row.put("indexed", memory.engine() != null);
        } finally {
            memory.close();
        }
    }

    /**
     * The heap the in-memory store's log, vectors and snapshot of the user take: measured as that of
     * a copy of them (new strings and arrays, nothing shared with the original).
     */
    private static long storeHeap(InMemoryEventStore store, Partition user, List<String> recordItems,
                                  TurnOverheadBench.HashingEmbeddingModel model) {
        List<StoredEvent> log = store.read(user, 0);
        VectorModel vectorModel = new VectorModel(model.getClass().getName() + ":" + model.modelName(), model.dimension());
        Map<String, StoredVector> vectors = store.vectors(user, vectorModel, recordItems);
        long base = usedHeap();
        InMemoryEventStore copy = new InMemoryEventStore();
        copy.append(user, 0, log.stream().map(e -> new StoredEvent(e.seq(), e.at(), fresh(e.type()), fresh(e.actor()),
                fresh(e.traceId()), fresh(e.payload()))).toList());
        copy.saveVectors(user, vectorModel, vectors.values().stream()
                .map(v -> new StoredVector(fresh(v.item()), v.seq(), v.vector().clone())).toList());
        // and its snapshot of the user's state (the engine saves one as the log grows)
        store.snapshot(user).ifPresent(sn -> copy.saveSnapshot(user, new StoredSnapshot(sn.seq(), fresh(sn.payload()))));
        long with = usedHeap();
        if (copy.lastSequence(user) != log.size()) {
            throw new IllegalStateException("the copy of the store lost events");
        }
        return with - base;
    }

    private static String fresh(String s) {
        return new String(s.toCharArray());
    }

    private void coldStart(int n, ObjectNode row) throws Exception {
        String keep = System.getProperty("perf.coldStartKeep");
        Path run = keep != null ? Files.createDirectories(Path.of(keep, "cold-" + n)) : Files.createTempDirectory(dir, "cold");
        Path file = run.resolve("memory");
        SessionRef session = new SessionRef("perf", "cold", "chat");
        SessionRef small = new SessionRef("perf", "small", "chat");
        long t = System.nanoTime();
        // the writer keeps the default snapshot interval (it grows with the log); its store counts
        // the snapshots saved and their characters
        AtomicLong snapshots = new AtomicLong();
        AtomicLong snapshotChars = new AtomicLong();
        AtomicLong lastSnapshotSeq = new AtomicLong();
        EventStore counting = new EventStore.ForwardingEventStore(JdbcStores.h2File(file)) {
            @Override
            public boolean saveSnapshot(Partition partition, StoredSnapshot snapshot) {
                boolean kept = super.saveSnapshot(partition, snapshot);
                if (kept) {
                    snapshots.incrementAndGet();
                    snapshotChars.addAndGet(snapshot.payload().length());
                    lastSnapshotSeq.set(snapshot.seq());
                }
                return kept;
            }
        };
        boolean throughIndexer = "indexer".equals(System.getProperty("perf.coldStartLoad", "catchUp"));
        try (counting) {
            // the records through the engine; the episodic index either follows each commit (its
            // indexing thread, one item per index write) or, by default, is built afterwards by the
            // catch-up of the user's first recall (what a new index directory, or a lost one, does)
            try (AgentMemory first = throughIndexer ? AgentMemory.builder().store(counting)
                    .indexDirectory(file.resolveSibling(file.getFileName() + ".recall"))
                    .embeddingModel(new TurnOverheadBench.HashingEmbeddingModel(DIMENSIONS)).build()
                    : AgentMemory.builder().store(counting).build()) {
                new ChatTurns(first, "fact.", 9).preload(session, n);
                // a user of ten memories in the same files: what a first recall costs whatever the user's size
                new ChatTurns(first, "fact.", 10).preload(small, 10);
                row.put("log_events", counting.lastSequence(new Partition(session.tenant(), session.user())));
            }
            row.put("records_seconds", Stats.round((System.nanoTime() - t) / 1e9));
            if (!throughIndexer) {
                long indexing = System.nanoTime();
                // a memory closes its store: the index's one opens the file again
                try (AgentMemory indexed = AgentMemory.builder().h2File(file)
                        .embeddingModel(new TurnOverheadBench.HashingEmbeddingModel(DIMENSIONS)).build()) {
                    for (SessionRef user : List.of(session, small)) {
                        indexed.contentRetriever().retrieve(Query.from("What did we choose?", Metadata.builder()
                                .chatMessage(UserMessage.from("What did we choose?"))
                                .invocationContext(InvocationContext.builder().chatMemoryId(user).build()).build()));
                    }
                }
                row.put("index_catch_up_seconds", Stats.round((System.nanoTime() - indexing) / 1e9));
            }
        }
        row.put("load", throughIndexer ? "indexing thread" : "records, then the index by a catch-up");
        row.put("load_seconds", Stats.round((System.nanoTime() - t) / 1e9));
        row.put("snapshots_saved", snapshots.get());
        row.put("snapshot_chars_saved", snapshotChars.get());
        row.put("last_snapshot_seq", lastSnapshotSeq.get());
        row.put("h2_file_bytes", Files.size(file.resolveSibling(file.getFileName() + ".mv.db")));
        // each in a new JVM, the H2 file with its index directory (the default configuration)
        ObjectNode plain = ColdStartProbe.inNewProcess(file, session);
        ObjectNode split = ColdStartProbe.inNewProcess(file, session, "split");
        // what an application that is up meets: another user served first (classes loaded, JIT started)
        ObjectNode warm = ColdStartProbe.inNewProcess(file, session, "warm", "split");
        ObjectNode tiny = ColdStartProbe.inNewProcess(file, small, "model");
        row.put("first_recall_ms", plain.get("first_recall_ms").asDouble());
        row.set("new_process", plain);
        row.set("new_process_load_split", split);
        row.set("new_process_after_another_user", warm);
        row.set("new_process_user_of_ten", tiny);
        // the default configuration's heap per memory: the open memory with the user loaded and
        // recalled, less the same with the user of ten (H2's page cache and Lucene's fixed parts alike)
        row.put("default_config_heap_bytes_per_memory", Stats.round((plain.get("heap_bytes").asDouble()
                - tiny.get("heap_bytes").asDouble()) / (n - 10)));
        if (Boolean.parseBoolean(System.getProperty("perf.coldStartRebuild", Boolean.toString(n <= 10_000)))) {
            try (var files = Files.walk(file.resolveSibling(file.getFileName() + ".recall"))) {
                files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
            ObjectNode rebuilt = ColdStartProbe.inNewProcess(file, session);
            row.put("first_recall_rebuilt_index_ms", rebuilt.get("first_recall_ms").asDouble());
        } else {
            row.put("first_recall_rebuilt_index_ms", Double.NaN);
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

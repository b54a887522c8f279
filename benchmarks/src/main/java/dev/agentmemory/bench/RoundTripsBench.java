package dev.agentmemory.bench;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.core.spi.EventStore.ForwardingEventStore;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.core.spi.StoredEvent;
import dev.agentmemory.core.spi.StoredSnapshot;
import dev.agentmemory.langchain4j.AgentMemory;
import dev.agentmemory.langchain4j.SessionRef;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.UserMessage;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Supplier;

/**
 * Store round trips per AiService turn: a real {@link AiServices} assistant with the memory's
 * chat memory provider, retrieval augmentor and tools, a model that answers at once and the
 * hashing embedding model, over a store wrapper that counts every call by kind (each call of a
 * JDBC store is one round trip to its database, an append one transaction). After warm-up
 * turns, {@code turns} turns of one session are counted one by one (the episodic index caught up
 * before and after each, so its work is not a turn's); the mean, least and most per turn of each
 * kind are reported, and the turn's wall time (median, p99). LangChain4j reads and writes a chat
 * memory several times per call (the read before the augmentation, one read and one write per
 * message added, a read for the request); the targets: on PostgreSQL one head check and one
 * append per turn, on the H2 file (one writer) the append alone.
 */
final class RoundTripsBench {

    /** The kinds of store calls, as the JSON and the table name them. */
    enum Kind {
        HEAD_CHECK("head_checks"), READ("reads"), APPEND("appends"), SNAPSHOT_READ("snapshot_reads"),
        SNAPSHOT_WRITE("snapshot_writes"), REWRITE("rewrites"), PARTITIONS("partition_lists");

        final String json;

        Kind(String json) {
            this.json = json;
        }
    }

    interface Assistant {
        String chat(@MemoryId Object session, @UserMessage String text);
    }

    private final String tenant;
    private final int warmup;
    private final int turns;

    /** {@code turns} counted turns after {@code warmup} ones, in a session of {@code tenant}. */
    RoundTripsBench(String tenant, int warmup, int turns) {
        this.tenant = tenant;
        this.warmup = warmup;
        this.turns = turns;
    }

    /** Counts turns on each store in {@code stores} (name to a fresh store), one after the other. */
    ObjectNode run(Map<String, Supplier<EventStore>> stores, PrintStream out) {
        ObjectNode json = JsonNodeFactory.instance.objectNode();
        json.put("turn", "AiServices call: chatMemoryProvider + retrievalAugmentor + tools, instant model,"
                + " window 20, hashing embeddings");
        json.put("turns", turns);
        Map<String, ObjectNode> rows = new LinkedHashMap<>();
        for (Map.Entry<String, Supplier<EventStore>> e : stores.entrySet()) {
            ObjectNode row = measure(e.getValue().get());
            json.set(e.getKey(), row);
            rows.put(e.getKey(), row);
        }
        out.printf("%nStore round trips per AiService turn (%d turns; mean [least-most])%n", turns);
        out.printf("%-22s %12s %12s %12s %12s %16s%n", "store", "head checks", "reads", "appends", "other",
                "turn median/p99 ms");
        rows.forEach((name, row) -> out.printf("%-22s %12s %12s %12s %12s %16s%n", name, cell(row, Kind.HEAD_CHECK),
                cell(row, Kind.READ), cell(row, Kind.APPEND), Stats.f3(row.get("other_mean").asDouble()),
                Stats.f3(row.get("turn_ms").get("median").asDouble()) + " / "
                        + Stats.f3(row.get("turn_ms").get("p99").asDouble())));
        return json;
    }

    private static String cell(ObjectNode row, Kind kind) {
        ObjectNode k = (ObjectNode) row.get(kind.json);
        return Stats.f3(k.get("mean").asDouble()) + " [" + k.get("min").asLong() + "-" + k.get("max").asLong() + "]";
    }

    private ObjectNode measure(EventStore raw) {
        CountingStore store = new CountingStore(raw);
        TurnOverheadBench.HashingEmbeddingModel embeddings = new TurnOverheadBench.HashingEmbeddingModel(384);
        Random random = new Random(3);
        String[] words = Words.vocabulary(2_000, random);
        SessionRef session = new SessionRef(tenant, "round-trips-" + Long.toHexString(random.nextLong()), "chat-1");
        try (AgentMemory memory = AgentMemory.builder().store(store).embeddingModel(embeddings).windowSize(20).build()) {
            Assistant assistant = AiServices.builder(Assistant.class).chatModel(new InstantModel())
                    .chatMemoryProvider(memory.chatMemoryProvider())
                    .retrievalAugmentor(memory.retrievalAugmentor())
                    .tools(memory.tools()).build();
            long[][] counts = new long[Kind.values().length][turns];
            double[] ms = new double[turns];
            for (int t = 0; t < warmup + turns; t++) {
                String question = "What did we say about " + Words.sentence(words, random, 4) + "?";
                memory.awaitIndexed();
                store.reset();
                long start = System.nanoTime();
                assistant.chat(session, question);
                long took = System.nanoTime() - start;
                memory.awaitIndexed();
                if (t >= warmup) {
                    for (Kind k : Kind.values()) {
                        counts[k.ordinal()][t - warmup] = store.count(k);
                    }
                    ms[t - warmup] = took / 1e6;
                }
            }
            ObjectNode row = JsonNodeFactory.instance.objectNode();
            row.put("checks_head", raw.sharedWithOtherWriters());
            double other = 0;
            for (Kind k : Kind.values()) {
                long[] c = counts[k.ordinal()];
                ObjectNode o = row.putObject(k.json);
                double mean = java.util.Arrays.stream(c).average().orElse(0);
                o.put("mean", Stats.round(mean));
                o.put("min", java.util.Arrays.stream(c).min().orElse(0));
                o.put("max", java.util.Arrays.stream(c).max().orElse(0));
                if (k.ordinal() > Kind.APPEND.ordinal()) {
                    other += mean;
                }
            }
            row.put("other_mean", Stats.round(other));
            row.set("turn_ms", Stats.latency(ms));
            return row;
        }
    }

    /** Answers every request at once. */
    private static final class InstantModel implements ChatModel {
        private int n;

        @Override
        public ChatResponse doChat(ChatRequest request) {
            return ChatResponse.builder().aiMessage(AiMessage.from("Noted, answer " + (n++) + ".")).build();
        }
    }

    /** Passes every call on and counts it by kind. */
    static final class CountingStore extends ForwardingEventStore {
        private final AtomicLongArray counts = new AtomicLongArray(Kind.values().length);

        CountingStore(EventStore delegate) {
            super(delegate);
        }

        long count(Kind kind) {
            return counts.get(kind.ordinal());
        }

        void reset() {
            for (int i = 0; i < counts.length(); i++) {
                counts.set(i, 0);
            }
        }

        private void add(Kind kind) {
            counts.incrementAndGet(kind.ordinal());
        }

        @Override
        public void append(Partition partition, long expectedLastSeq, List<StoredEvent> events) {
            add(Kind.APPEND);
            super.append(partition, expectedLastSeq, events);
        }

        @Override
        public List<StoredEvent> read(Partition partition, long afterSeq) {
            add(Kind.READ);
            return super.read(partition, afterSeq);
        }

        @Override
        public long lastSequence(Partition partition) {
            add(Kind.HEAD_CHECK);
            return super.lastSequence(partition);
        }

        @Override
        public void rewrite(Partition partition, Map<Long, String> payloadBySeq) {
            add(Kind.REWRITE);
            super.rewrite(partition, payloadBySeq);
        }

        @Override
        public List<Partition> partitions(String tenant) {
            add(Kind.PARTITIONS);
            return super.partitions(tenant);
        }

        @Override
        public Optional<StoredSnapshot> snapshot(Partition partition) {
            add(Kind.SNAPSHOT_READ);
            return super.snapshot(partition);
        }

        @Override
        public boolean saveSnapshot(Partition partition, StoredSnapshot snapshot) {
            add(Kind.SNAPSHOT_WRITE);
            return super.saveSnapshot(partition, snapshot);
        }

        @Override
        public void deleteSnapshots(Partition partition) {
            add(Kind.SNAPSHOT_WRITE);
            super.deleteSnapshots(partition);
        }
    }
}

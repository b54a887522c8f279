package dev.agentmemory.bench;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentmemory.langchain4j.AgentMemory;
import dev.agentmemory.langchain4j.SessionRef;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ChatMessageDeserializer;
import dev.langchain4j.data.message.ChatMessageSerializer;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.store.memory.chat.ChatMemoryStore;
import dev.langchain4j.store.memory.chat.InMemoryChatMemoryStore;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.h2.jdbcx.JdbcConnectionPool;

/**
 * {@code ChatMemoryStore.updateMessages} cost per turn with 10, 1,000 and 10,000 messages in
 * the history, the whole history in the window ({@link MessageWindowChatMemory} with room for all
 * of it, the case where a store that rewrites the list pays most): ours on an H2 file against
 * LangChain4j's {@link InMemoryChatMemoryStore} and a plain JDBC store on an H2 file that deletes
 * and re-inserts the list on every update. A turn is what AiServices does: the user message and
 * the AI reply each added to the chat memory (each a {@code getMessages} plus an
 * {@code updateMessages}). Reported per system: the whole turn and the time inside
 * {@code updateMessages}, median and p99.
 */
final class StoreCostBench {

    static final int[] SIZES = {10, 1_000, 10_000};
    static final String OURS = "agent-memory";
    static final String IN_MEMORY = "langchain4j-in-memory";
    static final String REWRITE = "rewrite-jdbc";

    private final int turns;
    private final int rewriteTurnsAtLargest;
    private final Path dir;

    /**
     * @param turns                 measured turns per size and system (after a short warm-up)
     * @param rewriteTurnsAtLargest measured turns of the rewriting store at 10,000 (it takes seconds per turn)
     */
    StoreCostBench(int turns, int rewriteTurnsAtLargest, Path dir) {
        this.turns = turns;
        this.rewriteTurnsAtLargest = rewriteTurnsAtLargest;
        this.dir = dir;
    }

    ObjectNode run(int maxSize, PrintStream out) throws Exception {
        ObjectNode json = JsonNodeFactory.instance.objectNode();
        json.put("window", "whole history");
        json.put("turn", "user message + AI reply added through MessageWindowChatMemory");
        ArrayNode rows = json.putArray("rows");
        out.printf("%nChatMemoryStore cost per turn, whole history in the window (ms)%n");
        out.printf("%-9s %-24s %10s %10s %12s %12s%n", "messages", "system", "turn med", "turn p99", "update med",
                "update p99");
        Map<String, Double> at10 = new LinkedHashMap<>();
        Map<String, Double> atLargest = new LinkedHashMap<>();
        int largest = 0;
        for (String system : List.of(OURS, IN_MEMORY, REWRITE)) {
            // a discarded round first, so that the first size measured does not pay for a cold JVM
            measure(system, SIZES[0], 30);
        }
        for (int size : SIZES) {
            if (size > maxSize) {
                continue;
            }
            largest = size;
            ObjectNode row = rows.addObject();
            row.put("messages", size);
            for (String system : List.of(OURS, IN_MEMORY, REWRITE)) {
                int n = system.equals(REWRITE) && size >= 10_000 ? rewriteTurnsAtLargest : turns;
                double[][] ms = measure(system, size, n);
                ObjectNode s = row.putObject(system);
                s.put("turns", n);
                s.put("turn_median", Stats.round(Stats.percentile(ms[0], 50)));
                s.put("turn_p99", Stats.round(Stats.percentile(ms[0], 99)));
                s.put("update_median", Stats.round(Stats.percentile(ms[1], 50)));
                s.put("update_p99", Stats.round(Stats.percentile(ms[1], 99)));
                out.printf("%-9d %-24s %10s %10s %12s %12s%n", size, system, Stats.f3(Stats.percentile(ms[0], 50)),
                        Stats.f3(Stats.percentile(ms[0], 99)), Stats.f3(Stats.percentile(ms[1], 50)),
                        Stats.f3(Stats.percentile(ms[1], 99)));
                if (size == SIZES[0]) {
                    at10.put(system, Stats.percentile(ms[0], 50));
                }
                atLargest.put(system, Stats.percentile(ms[0], 50));
            }
        }
        if (largest > SIZES[0]) {
            ObjectNode ratio = json.putObject("turn_median_ratio_largest_vs_10");
            ratio.put("largest", largest);
            for (Map.Entry<String, Double> e : at10.entrySet()) {
                double r = Objects.requireNonNull(atLargest.get(e.getKey()), "measured at both sizes") / e.getValue();
                ratio.put(e.getKey(), Stats.round(r));
            }
            out.printf("turn median at %d vs at 10: %s x2 target for %s; others %s%n", largest,
                    Stats.f3(ratio.get(OURS).asDouble()), OURS, ratio);
        }
        return json;
    }

    /** Per measured turn: [0] whole turn ms, [1] ms inside updateMessages. */
    private double[][] measure(String system, int size, int n) throws Exception {
        Path where = Files.createTempDirectory(Files.createDirectories(dir), system + "-" + size + "-");
        if (system.equals(OURS)) {
            try (AgentMemory memory = AgentMemory.builder().h2File(where.resolve("memory")).build()) {
                return turns(memory.chatMemoryStore(), new SessionRef("bench", "user-1", "s" + size), size, n);
            }
        }
        if (system.equals(IN_MEMORY)) {
            return turns(new InMemoryChatMemoryStore(), "s" + size, size, n);
        }
        try (RewritingJdbcStore store = new RewritingJdbcStore(where.resolve("chat"))) {
            return turns(store, "s" + size, size, n);
        }
    }

    private static double[][] turns(ChatMemoryStore raw, Object id, int size, int n) {
        TimedChatMemoryStore store = new TimedChatMemoryStore(raw, false);
        List<ChatMessage> history = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            history.add(i % 2 == 0 ? UserMessage.from("question number " + i + " about my order and its delivery")
                    : AiMessage.from("answer number " + i + ": it ships on Tuesday from the second warehouse"));
        }
        store.updateMessages(id, history);
        ChatMemory memory = MessageWindowChatMemory.builder().id(id).maxMessages(Integer.MAX_VALUE)
                .chatMemoryStore(store).build();
        int warmup = Math.max(3, n / 10);
        double[][] ms = new double[2][n];
        for (int t = 0; t < warmup + n; t++) {
            store.nanos = 0;
            long start = System.nanoTime();
            memory.add(UserMessage.from("turn " + t + ": when does my order arrive?"));
            memory.add(AiMessage.from("reply " + t + ": it arrives on Thursday"));
            long took = System.nanoTime() - start;
            if (t >= warmup) {
                ms[0][t - warmup] = took / 1e6;
                ms[1][t - warmup] = store.nanos / 1e6;
            }
        }
        return ms;
    }

    /** The straightforward durable store: every update deletes and re-inserts the whole list in one transaction. */
    static final class RewritingJdbcStore implements ChatMemoryStore, AutoCloseable {
        private final JdbcConnectionPool pool;

        RewritingJdbcStore(Path file) throws SQLException {
            pool = JdbcConnectionPool.create("jdbc:h2:file:" + file.toAbsolutePath() + ";WRITE_DELAY=0", "sa", "");
            try (Connection c = pool.getConnection(); Statement st = c.createStatement()) {
                st.execute("CREATE TABLE IF NOT EXISTS chat (memory_id VARCHAR(200), pos INT, json CLOB, "
                        + "PRIMARY KEY (memory_id, pos))");
            }
        }

        @Override
        public List<ChatMessage> getMessages(Object memoryId) {
            try (Connection c = pool.getConnection();
                 PreparedStatement ps = c.prepareStatement("SELECT json FROM chat WHERE memory_id = ? ORDER BY pos")) {
                ps.setString(1, memoryId.toString());
                List<ChatMessage> out = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(ChatMessageDeserializer.messageFromJson(rs.getString(1)));
                    }
                }
                return out;
            } catch (SQLException e) {
                throw new IllegalStateException("cannot read messages of " + memoryId + ": " + e.getMessage(), e);
            }
        }

        @Override
        public void updateMessages(Object memoryId, List<ChatMessage> messages) {
            try (Connection c = pool.getConnection()) {
                c.setAutoCommit(false);
                try (PreparedStatement del = c.prepareStatement("DELETE FROM chat WHERE memory_id = ?");
                     PreparedStatement ins = c.prepareStatement(
                             "INSERT INTO chat (memory_id, pos, json) VALUES (?, ?, ?)")) {
                    del.setString(1, memoryId.toString());
                    del.executeUpdate();
                    for (int i = 0; i < messages.size(); i++) {
                        ins.setString(1, memoryId.toString());
                        ins.setInt(2, i);
                        ins.setString(3, ChatMessageSerializer.messageToJson(messages.get(i)));
                        ins.addBatch();
                    }
                    ins.executeBatch();
                }
                c.commit();
            } catch (SQLException e) {
                throw new IllegalStateException("cannot write messages of " + memoryId + ": " + e.getMessage(), e);
            }
        }

        @Override
        public void deleteMessages(Object memoryId) {
            updateMessages(memoryId, List.of());
        }

        @Override
        public void close() {
            pool.dispose();
        }
    }
}

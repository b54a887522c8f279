package dev.agentmemory.langchain4j;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ChatMessageDeserializer;
import dev.langchain4j.data.message.ChatMessageSerializer;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.store.memory.chat.ChatMemoryStore;
import org.h2.jdbcx.JdbcConnectionPool;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Per-turn cost of {@code updateMessages} with 10, 1,000 and 10,000 messages in the window (the
 * whole history in the window, so that a store rewriting the list pays for all of it): ours
 * (logs the delta in the engine's H2 event log) against a plain JDBC store on the same kind of
 * H2 file that deletes and re-inserts the list. A turn is two calls (user message, then AI
 * message), as AiServices makes them. Run with
 * {@code mvn -o -pl memory-langchain4j test -Dtest=StoreCostBenchmark -Dbench=true}.
 */
@EnabledIfSystemProperty(named = "bench", matches = "true")
class StoreCostBenchmark {

    private static final int TURNS = 20;

    @TempDir
    Path dir;

    @Test
    void measure_per_turn_cost() throws Exception {
        StringBuilder report = new StringBuilder("""
                whole history in the window (maxMessages >= history): ms per turn
                history  ours-h2  ours-in-memory-store  rewrite-all-h2
                """);
        for (int size : new int[] {10, 1_000, 10_000}) {
            double ours;
            try (AgentMemory memory = AgentMemory.builder().h2File(dir.resolve("ours-" + size)).build()) {
                ours = perTurn(memory.chatMemoryStore(), new SessionRef("bench", "u", "s" + size), size, size + 10);
            }
            double oursMem;
            try (AgentMemory memory = AgentMemory.builder().build()) {
                oursMem = perTurn(memory.chatMemoryStore(), new SessionRef("bench", "u", "s" + size), size, size + 10);
            }
            double naive;
            try (RewritingJdbcStore store = new RewritingJdbcStore(dir.resolve("naive-" + size))) {
                naive = perTurn(store, "bench/u/s" + size, size, size + 10);
            }
            report.append(String.format(Locale.ROOT, "%7d  %7.2f  %20.2f  %14.2f%n", size, ours, oursMem, naive));
        }
        report.append("window of 20 messages, history as given: ms per turn\nhistory  ours-h2  rewrite-all-h2\n");
        for (int size : new int[] {10, 1_000, 10_000}) {
            double ours;
            try (AgentMemory memory = AgentMemory.builder().h2File(dir.resolve("ours-w-" + size)).build()) {
                ours = perTurn(memory.chatMemoryStore(), new SessionRef("bench", "u", "s" + size), size, 20);
            }
            double naive;
            try (RewritingJdbcStore store = new RewritingJdbcStore(dir.resolve("naive-w-" + size))) {
                naive = perTurn(store, "bench/u/s" + size, size, 20);
            }
            report.append(String.format(Locale.ROOT, "%7d  %7.2f  %14.2f%n", size, ours, naive));
        }
        System.out.println(report);
        assertThat(report.toString()).contains("10000");
    }

    /** Builds a history of {@code size} messages (in windows of {@code window}), then times turns. */
    private static double perTurn(ChatMemoryStore store, Object id, int size, int window) {
        List<ChatMessage> all = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            all.add(i % 2 == 0 ? UserMessage.from("question number " + i + " about my order")
                    : AiMessage.from("answer number " + i + ": it ships on Tuesday"));
            if (all.size() == window || i == size - 1) {
                store.updateMessages(id, List.copyOf(all));
                all.clear();
            }
        }
        for (int warm = 0; warm < 5; warm++) {
            turn(store, id, warm, window);
        }
        long start = System.nanoTime();
        for (int t = 0; t < TURNS; t++) {
            turn(store, id, 1000 + t, window);
        }
        return (System.nanoTime() - start) / 1e6 / TURNS;
    }

    private static void turn(ChatMemoryStore store, Object id, int t, int window) {
        List<ChatMessage> messages = new ArrayList<>(store.getMessages(id));
        messages.add(UserMessage.from("turn " + t));
        store.updateMessages(id, slide(messages, window));
        messages = new ArrayList<>(store.getMessages(id));
        messages.add(AiMessage.from("reply " + t));
        store.updateMessages(id, slide(messages, window));
    }

    private static List<ChatMessage> slide(List<ChatMessage> messages, int window) {
        return messages.size() <= window ? messages : messages.subList(messages.size() - window, messages.size());
    }

    /** The store the issue compares against: every update deletes and re-inserts the whole list. */
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
                throw new IllegalStateException(e);
            }
        }

        @Override
        public void updateMessages(Object memoryId, List<ChatMessage> messages) {
            try (Connection c = pool.getConnection()) {
                c.setAutoCommit(false);
                try (PreparedStatement del = c.prepareStatement("DELETE FROM chat WHERE memory_id = ?");
                     PreparedStatement ins = c.prepareStatement("INSERT INTO chat (memory_id, pos, json) VALUES (?, ?, ?)")) {
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
                throw new IllegalStateException(e);
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

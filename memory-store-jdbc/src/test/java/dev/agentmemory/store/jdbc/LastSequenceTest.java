package dev.agentmemory.store.jdbc;

import dev.agentmemory.core.MemoryException;
import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.core.spi.StoredEvent;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code lastSequence} answers from the partition's head row, written in the transaction of each
 * append, and from the log only for a partition without one.
 */
class LastSequenceTest {

    private static final Partition ALICE = new Partition("shop", "alice");
    private static final Partition BOB = new Partition("shop", "bob");
    private static final Instant T0 = Instant.parse("2026-12-05T11:10:35.889367010Z");

    @TempDir
    Path dir;

    @Test
    void should_read_the_head_and_not_the_log_when_a_reopened_file_has_a_long_log() {
        // given: 20,000 events in a file, reopened so that H2's cache is empty
        Path file = dir.resolve("memory");
        try (EventStore store = JdbcStores.h2File(file, ReadCountingFileSystem.prefix())) {
            for (long seq = 0; seq < 20_000; seq += 1_000) {
                store.append(ALICE, seq, events(seq + 1, seq + 1_000, 20));
            }
            store.append(BOB, 0, events(1, 1, 20));
        }
        try (EventStore store = JdbcStores.h2File(file, ReadCountingFileSystem.prefix())) {
            // when
            long before = ReadCountingFileSystem.bytesRead();
            long last = store.lastSequence(ALICE);
            long read = ReadCountingFileSystem.bytesRead() - before;

            // then: the head row answered (H2 answered MAX(seq) by reading the partition's key entries: 400 KB here)
            assertThat(last).isEqualTo(20_000);
            assertThat(read).as("bytes read for lastSequence").isLessThan(64 * 1024);
        }
    }

    @Test
    void should_answer_from_the_log_when_a_partition_has_events_but_no_head() throws SQLException {
        // given: a log whose head row is missing (a damaged database, or rows written around the store)
        JdbcDataSource ds = inMemory();
        EventStore store = JdbcStores.dataSource(ds);
        store.append(ALICE, 0, events(1, 3, 10));
        store.append(BOB, 0, events(1, 2, 10));
        execute(ds, "DELETE FROM memory_heads WHERE user_id = 'alice'");

        // when
        long alice = store.lastSequence(ALICE);

        // then: the largest stored sequence, as before heads existed; the log itself is still refused
        assertThat(alice).isEqualTo(3);
        assertThat(store.lastSequence(BOB)).isEqualTo(2);
        assertThatThrownBy(() -> store.read(ALICE, 0)).isInstanceOf(MemoryException.class)
                .hasMessageEndingWith("the log of partition " + ALICE + " is damaged at seq 1: it has events but no head;"
                        + " its events are not served");
    }

    @Test
    void should_be_zero_when_a_partition_has_neither_head_nor_events() {
        EventStore store = JdbcStores.dataSource(inMemory());
        store.append(BOB, 0, events(1, 2, 10));

        assertThat(store.lastSequence(ALICE)).isZero();
        assertThat(store.lastSequence(new Partition("other", "bob"))).isZero();
    }

    @Test
    void should_follow_the_appends_of_two_stores_when_both_write_to_one_file() {
        // given: two stores on one H2 file (two data sources of one database in this process)
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:file:" + dir.resolve("shared") + ";DB_CLOSE_DELAY=-1");
        EventStore first = JdbcStores.dataSource(ds);
        EventStore second = JdbcStores.dataSource(ds);

        // when / then: each store sees the other's appends at once, per partition
        first.append(ALICE, 0, events(1, 2, 10));
        assertThat(second.lastSequence(ALICE)).isEqualTo(2);
        second.append(ALICE, 2, events(3, 5, 10));
        assertThat(first.lastSequence(ALICE)).isEqualTo(5);
        first.append(BOB, 0, events(1, 1, 10));
        second.append(ALICE, 5, events(6, 6, 10));
        assertThat(List.of(first.lastSequence(ALICE), first.lastSequence(BOB), second.lastSequence(ALICE),
                second.lastSequence(BOB))).containsExactly(6L, 1L, 6L, 1L);

        // and: a hard forget by one (it rewrites payloads and moves the head's chain) keeps the sequence
        second.rewrite(ALICE, Map.of(3L, "{\"forgotten\":true}"));
        assertThat(first.lastSequence(ALICE)).isEqualTo(6);
        assertThat(first.read(ALICE, 0)).extracting(StoredEvent::seq).containsExactly(1L, 2L, 3L, 4L, 5L, 6L);
        first.append(ALICE, 6, events(7, 7, 10));
        assertThat(second.lastSequence(ALICE)).isEqualTo(7);
        execute(ds, "SHUTDOWN");
    }

    private static List<StoredEvent> events(long from, long to, int payloadChars) {
        return LongStream.rangeClosed(from, to).mapToObj(seq -> new StoredEvent(seq, T0.plusMillis(seq),
                "record-written", "assistant", "trace-" + seq, "{\"n\":" + seq + ",\"text\":\""
                + "abcdefghij".repeat(payloadChars / 10) + "\"}")).toList();
    }

    private static JdbcDataSource inMemory() {
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:last-sequence-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        return ds;
    }

    private static void execute(JdbcDataSource ds, String sql) {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            st.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }
}

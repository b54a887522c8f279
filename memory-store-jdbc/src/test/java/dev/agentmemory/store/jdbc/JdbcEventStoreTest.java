package dev.agentmemory.store.jdbc;

import dev.agentmemory.core.MemoryException;
import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.core.testing.EventStoreContract;
import dev.agentmemory.core.spi.StoredEvent;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The store contract on H2 in memory, plus what only the JDBC store does. */
class JdbcEventStoreTest extends EventStoreContract {

    @Override
    protected EventStore newStore() {
        return JdbcStores.h2InMemory("contract-" + UUID.randomUUID());
    }

    /** The same contract on an embedded H2 file. */
    @Nested
    class OnH2File extends EventStoreContract {
        @TempDir
        Path dir;

        @Override
        protected EventStore newStore() {
            return JdbcStores.h2File(dir.resolve("events"));
        }

        @Test
        void should_compact_the_file_while_it_grows_and_lose_nothing_for_concurrent_readers() throws Exception {
            // given: a store that compacts past 1 MiB (the default is 64 MiB), and a reader running alongside
            store.close();
            Path file = dir.resolve("growing");
            store = JdbcStores.h2File(file, 1L << 20);
            java.util.concurrent.atomic.AtomicReference<Throwable> readerFailure = new java.util.concurrent.atomic.AtomicReference<>();
            java.util.concurrent.atomic.AtomicBoolean writing = new java.util.concurrent.atomic.AtomicBoolean(true);
            java.util.concurrent.atomic.AtomicLong reads = new java.util.concurrent.atomic.AtomicLong();
            Thread reader = new Thread(() -> {
                try {
                    while (writing.get()) {
                        long last = store.lastSequence(ALICE);
                        assertThat(store.read(ALICE, Math.max(0, last - 3))).hasSizeGreaterThanOrEqualTo((int) Math.min(3, last));
                        reads.incrementAndGet();
                    }
                } catch (Throwable t) {
                    readerFailure.set(t);
                }
            });
            reader.start();
            int appends = 1_200;

            // when
            try {
                for (int i = 1; i <= appends; i++) {
                    store.append(ALICE, i - 1, List.of(event(i, "payload " + i + " " + "x".repeat(200))));
                }
            } finally {
                writing.set(false);
                reader.join(30_000);
            }

            // then: without compaction the file grows by about 18 KiB per append (over 20 MiB here)
            long bytes = java.nio.file.Files.size(dir.resolve("growing.mv.db"));
            assertThat(readerFailure.get()).isNull();
            assertThat(reads.get()).isPositive();
            assertThat(bytes).isLessThan(12L << 20);
            assertThat(store.read(ALICE, 0)).hasSize(appends).extracting(StoredEvent::seq)
                    .containsExactlyElementsOf(java.util.stream.LongStream.rangeClosed(1, appends).boxed().toList());
        }

        @Test
        void should_wait_for_a_file_lock_that_is_released_soon_when_opening() throws Exception {
            // given: the file exists and something else holds its lock for half a second
            store.append(ALICE, 0, List.of(event(1, "one")));
            store.close();
            Path file = dir.resolve("events.mv.db");
            java.nio.channels.FileChannel channel = java.nio.channels.FileChannel.open(file,
                    java.nio.file.StandardOpenOption.WRITE);
            java.nio.channels.FileLock lock = channel.lock();
            Thread releaser = new Thread(() -> {
                try {
                    Thread.sleep(500);
                    lock.release();
                    channel.close();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            releaser.start();

            // when
            long start = System.nanoTime();
            store = JdbcStores.h2File(dir.resolve("events"));
            releaser.join();

            // then: it waited for the lock instead of failing, and nothing was lost
            assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(400_000_000L);
            assertThat(store.read(ALICE, 0)).extracting(StoredEvent::payload).containsExactly("one");
        }

        @Test
        void should_name_the_file_when_another_process_keeps_it_locked() throws Exception {
            // given
            store.append(ALICE, 0, List.of(event(1, "one")));
            store.close();
            Path file = dir.resolve("events.mv.db");

            // when: the lock is held for longer than the store waits (5 s)
            try (java.nio.channels.FileChannel channel = java.nio.channels.FileChannel.open(file,
                    java.nio.file.StandardOpenOption.WRITE); java.nio.channels.FileLock lock = channel.lock()) {
                assertThatThrownBy(() -> JdbcStores.h2File(dir.resolve("events")))
                        .isInstanceOf(MemoryException.class)
                        .hasMessage("the H2 file " + file.toAbsolutePath() + " is in use by another process (waited 5 s);"
                                + " close it there first");
            }

            // then: once released, it opens with everything in it
            store = JdbcStores.h2File(dir.resolve("events"));
            assertThat(store.read(ALICE, 0)).extracting(StoredEvent::payload).containsExactly("one");
        }

        @Test
        void should_close_without_leaving_an_h2_trace_file_or_a_lock() throws Exception {
            store.append(ALICE, 0, List.of(event(1, "one")));

            store.close();
            store.close();

            assertThat(dir.resolve("events.trace.db")).doesNotExist();
            try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(dir.resolve("events.mv.db"),
                    java.nio.file.StandardOpenOption.WRITE); java.nio.channels.FileLock lock = ch.tryLock()) {
                assertThat(lock).isNotNull();
            }
            store = JdbcStores.h2File(dir.resolve("events"));
        }

        @Test
        void should_find_every_event_when_the_file_is_reopened() {
            store.append(ALICE, 0, List.of(event(1, "one"), event(2, "two")));
            store.close();

            store = JdbcStores.h2File(dir.resolve("events.mv.db"));

            assertThat(store.read(ALICE, 0)).extracting(StoredEvent::payload).containsExactly("one", "two");
            assertThat(store.lastSequence(ALICE)).isEqualTo(2);
        }
    }

    @Test
    void should_move_payloads_out_of_h2_lobs_when_opening_a_version_1_database() throws SQLException {
        // given: a database as version 1 made it, with payloads in a CLOB column (one past H2's in-place size)
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:v1-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        String big = "{\"text\":\"" + "a".repeat(5_000) + "\"}";
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE memory_schema (version INTEGER NOT NULL)");
            st.execute("INSERT INTO memory_schema (version) VALUES (1)");
            st.execute("CREATE TABLE memory_events (tenant VARCHAR(128) NOT NULL, user_id VARCHAR(128) NOT NULL, "
                    + "seq BIGINT NOT NULL, at_time VARCHAR(40) NOT NULL, type VARCHAR(64) NOT NULL, "
                    + "actor VARCHAR(128) NOT NULL, trace_id VARCHAR(64) NOT NULL, payload CLOB NOT NULL, "
                    + "PRIMARY KEY (tenant, user_id, seq))");
            st.execute("INSERT INTO memory_events VALUES ('shop', 'alice', 1, '2024-05-01T10:00:01Z', 'record-written', "
                    + "'assistant', 'trace-1', 'small'), ('shop', 'alice', 2, '2024-05-01T10:00:02Z', 'record-written', "
                    + "'assistant', 'trace-2', '" + big + "')");
        }

        // when
        EventStore migrated = JdbcStores.dataSource(ds);

        // then: same events, payload column no longer a LOB, schema at the current version
        assertThat(migrated.read(ALICE, 0)).extracting(StoredEvent::payload).containsExactly("small", big);
        try (Connection c = ds.getConnection(); Statement st = c.createStatement();
             java.sql.ResultSet rs = st.executeQuery("SELECT DATA_TYPE FROM INFORMATION_SCHEMA.COLUMNS "
                     + "WHERE TABLE_NAME = 'MEMORY_EVENTS' AND COLUMN_NAME = 'PAYLOAD'")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).isEqualTo("CHARACTER VARYING");
        }
        try (Connection c = ds.getConnection(); Statement st = c.createStatement();
             java.sql.ResultSet rs = st.executeQuery("SELECT MAX(version) FROM memory_schema")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getInt(1)).isEqualTo(SchemaMigration.SCHEMA_VERSION);
        }
        migrated.append(ALICE, 2, List.of(event(3, "after")));
        assertThat(migrated.lastSequence(ALICE)).isEqualTo(3);
    }

    @Test
    void should_add_the_snapshot_table_when_opening_a_version_3_database() throws SQLException {
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:v3-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        JdbcStores.dataSource(ds).append(ALICE, 0, List.of(event(1, "kept")));
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            st.execute("DROP TABLE memory_snapshots");
            st.execute("DROP TABLE memory_vectors");
            st.execute("DELETE FROM memory_schema WHERE version >= 4");
        }

        EventStore migrated = JdbcStores.dataSource(ds);

        assertThat(migrated.read(ALICE, 0)).extracting(StoredEvent::payload).containsExactly("kept");
        assertThat(migrated.saveSnapshot(ALICE, new dev.agentmemory.core.spi.StoredSnapshot(1, "at one"))).isTrue();
        assertThat(migrated.snapshot(ALICE)).get().extracting(dev.agentmemory.core.spi.StoredSnapshot::seq).isEqualTo(1L);
        try (Connection c = ds.getConnection(); Statement st = c.createStatement();
             java.sql.ResultSet rs = st.executeQuery("SELECT MAX(version) FROM memory_schema")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getInt(1)).isEqualTo(SchemaMigration.SCHEMA_VERSION);
        }
    }

    @Test
    void should_add_the_vector_table_when_opening_a_version_4_database() throws SQLException {
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:v4-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        JdbcStores.dataSource(ds).append(ALICE, 0, List.of(event(1, "kept")));
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            st.execute("DROP TABLE memory_vectors");
            st.execute("DELETE FROM memory_schema WHERE version = 5");
        }
        dev.agentmemory.core.spi.VectorModel model = new dev.agentmemory.core.spi.VectorModel("m", 2);

        EventStore migrated = JdbcStores.dataSource(ds);
        migrated.saveVectors(ALICE, model, List.of(new dev.agentmemory.core.spi.StoredVector("m|1", 1, new float[] {1, 2})));

        assertThat(migrated.read(ALICE, 0)).extracting(StoredEvent::payload).containsExactly("kept");
        assertThat(migrated.vectors(ALICE, model, List.of("m|1")).get("m|1").vector()).containsExactly(1, 2);
        try (Connection c = ds.getConnection(); Statement st = c.createStatement();
             java.sql.ResultSet rs = st.executeQuery("SELECT MAX(version) FROM memory_schema")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getInt(1)).isEqualTo(5);
        }
    }

    @Test
    void should_keep_named_in_memory_databases_apart() {
        try (EventStore other = JdbcStores.h2InMemory("other-" + UUID.randomUUID())) {
            store.append(ALICE, 0, List.of(event(1, "here")));

            assertThat(other.read(ALICE, 0)).isEmpty();
        }
    }

    @Test
    void should_reject_database_name_when_it_is_not_an_identifier() {
        assertThatThrownBy(() -> JdbcStores.h2InMemory("a;INIT=RUNSCRIPT FROM 'x'"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("database name must be 1-64 letters, digits, _ or -: a;INIT=RUNSCRIPT FROM 'x'");
    }

    @Test
    void should_create_schema_once_when_a_data_source_is_opened_twice() {
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:twice-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        EventStore first = JdbcStores.dataSource(ds);
        first.append(ALICE, 0, List.of(event(1, "kept")));

        EventStore second = JdbcStores.dataSource(ds);

        assertThat(second.read(ALICE, 0)).extracting(StoredEvent::payload).containsExactly("kept");
    }

    @Test
    void should_refuse_a_database_whose_schema_is_newer() throws SQLException {
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:newer-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        JdbcStores.dataSource(ds);
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            st.execute("INSERT INTO memory_schema (version) VALUES (" + (SchemaMigration.SCHEMA_VERSION + 1) + ")");
        }

        assertThatThrownBy(() -> JdbcStores.dataSource(ds))
                .isInstanceOf(MemoryException.class)
                .hasMessageStartingWith("store jdbc:h2:mem:newer-")
                .hasMessageEndingWith(": database schema version " + (SchemaMigration.SCHEMA_VERSION + 1)
                        + " is newer than this library (" + SchemaMigration.SCHEMA_VERSION + ")");
    }
}

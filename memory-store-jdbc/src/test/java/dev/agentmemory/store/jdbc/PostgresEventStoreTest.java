package dev.agentmemory.store.jdbc;

import dev.agentmemory.core.MemoryException;
import dev.agentmemory.core.StaleVersionException;
import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.core.testing.EventStoreContract;
import dev.agentmemory.store.jdbc.testing.PostgresTestDatabase;
import dev.agentmemory.store.jdbc.testing.RequiresPostgres;
import dev.agentmemory.core.spi.StoredEvent;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The store contract on a real PostgreSQL server through {@link JdbcStores#connect} (a
 * HikariCP pool), each test on a fresh schema; plus what only a server store does: several
 * instances (pools) appending to one user, schema version rules, and credentials kept out of
 * every message. Skipped without a server (see {@link PostgresTestDatabase}).
 */
@ExtendWith(RequiresPostgres.class)
class PostgresEventStoreTest extends EventStoreContract {

    private static PostgresTestDatabase pg;
    private static final List<String> schemas = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void server() {
        if (PostgresTestDatabase.configured()) {
            pg = PostgresTestDatabase.require(PostgresEventStoreTest.class);
        }
    }

    @AfterAll
    static void dropSchemas() {
        if (pg != null) {
            schemas.forEach(pg::dropSchema);
        }
    }

    private static String freshSchema() {
        String schema = pg.createSchema("store");
        schemas.add(schema);
        return schema;
    }

    private static EventStore open(String schema) {
        return JdbcStores.connect(pg.urlOf(schema), pg.user(), pg.password());
    }

    @Override
    protected EventStore newStore() {
        return open(freshSchema());
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void should_lose_nothing_and_never_duplicate_a_sequence_when_three_instances_append_to_one_user() throws Exception {
        // given: three stores (three application instances, three pools) on one schema
        String schema = freshSchema();
        List<EventStore> instances = List.of(open(schema), open(schema), open(schema));
        int writersPerInstance = 3;
        int each = 20;
        ExecutorService threads = Executors.newFixedThreadPool(instances.size() * writersPerInstance);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Integer>> results = new ArrayList<>();
        try {
            for (int i = 0; i < instances.size(); i++) {
                for (int w = 0; w < writersPerInstance; w++) {
                    EventStore instance = instances.get(i);
                    String writer = "i" + i + "w" + w;
                    results.add(threads.submit(() -> {
                        start.await();
                        int stale = 0;
                        for (int n = 0; n < each; ) {
                            long last = instance.lastSequence(ALICE);
                            try {
                                instance.append(ALICE, last, List.of(event(last + 1, writer + "-" + n),
                                        event(last + 2, writer + "-" + n + "b")));
                                n++;
                            } catch (StaleVersionException e) {
                                stale++;
                            }
                        }
                        return stale;
                    }));
                }
            }

            // when
            start.countDown();
            int stale = 0;
            for (Future<Integer> f : results) {
                stale += f.get(120, TimeUnit.SECONDS);
            }

            // then: contiguous, every batch exactly once and whole, the same from every instance
            long total = 2L * instances.size() * writersPerInstance * each;
            for (EventStore instance : instances) {
                List<StoredEvent> log = instance.read(ALICE, 0);
                assertThat(log).extracting(StoredEvent::seq)
                        .containsExactlyElementsOf(LongStream.rangeClosed(1, total).boxed().toList());
                assertThat(log).extracting(StoredEvent::payload).doesNotHaveDuplicates();
                for (int s = 0; s < log.size(); s += 2) {
                    assertThat(log.get(s + 1).payload()).isEqualTo(log.get(s).payload() + "b");
                }
            }
            System.out.printf("POSTGRES: %d appends of 2 events from 3 instances, %d stale retries%n",
                    total / 2, stale);
        } finally {
            threads.shutdownNow();
            instances.forEach(EventStore::close);
        }
    }

    @Test
    void should_migrate_once_when_several_instances_start_together_on_an_empty_schema() throws Exception {
        String schema = freshSchema();
        ExecutorService threads = Executors.newFixedThreadPool(4);
        List<Future<EventStore>> opened = new ArrayList<>();
        CountDownLatch start = new CountDownLatch(1);
        try {
            for (int i = 0; i < 4; i++) {
                opened.add(threads.submit(() -> {
                    start.await();
                    return open(schema);
                }));
            }
            start.countDown();
            for (Future<EventStore> f : opened) {
                f.get(60, TimeUnit.SECONDS).close();
            }
        } finally {
            threads.shutdownNow();
        }
        try (Connection c = pg.connect(schema); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT version FROM memory_schema ORDER BY version")) {
            List<Integer> versions = new ArrayList<>();
            while (rs.next()) {
                versions.add(rs.getInt(1));
            }
            assertThat(versions).containsExactlyElementsOf(
                    java.util.stream.IntStream.rangeClosed(1, SchemaMigration.SCHEMA_VERSION).boxed().toList());
        }
    }

    @Test
    void should_give_the_last_sequence_from_the_head_and_from_the_log_when_the_head_row_is_missing() throws Exception {
        // given: two instances on one schema, each appending to alice
        String schema = freshSchema();
        try (EventStore first = open(schema); EventStore second = open(schema)) {
            first.append(ALICE, 0, List.of(event(1, "one"), event(2, "two")));
            second.append(ALICE, 2, List.of(event(3, "three")));
            first.append(BOB, 0, List.of(event(1, "bob")));

            // then: both read the head each append moved
            assertThat(List.of(first.lastSequence(ALICE), second.lastSequence(ALICE), second.lastSequence(BOB)))
                    .containsExactly(3L, 3L, 1L);

            // when: alice's head row is missing (rows written around the store, or a damaged database)
            try (Connection c = pg.connect(schema); Statement st = c.createStatement()) {
                st.execute("DELETE FROM memory_heads WHERE user_id = 'alice'");
            }

            // then: the largest stored sequence answers; a user without events is at 0
            assertThat(first.lastSequence(ALICE)).isEqualTo(3);
            assertThat(first.lastSequence(BOB)).isEqualTo(1);
            assertThat(first.lastSequence(new dev.agentmemory.core.spi.Partition("shop", "nobody"))).isZero();
        }
    }

    @Test
    void should_migrate_a_schema_3_database_to_snapshots_and_keep_its_events() throws Exception {
        String schema = freshSchema();
        try (EventStore first = open(schema)) {
            first.append(ALICE, 0, List.of(event(1, "kept")));
        }
        try (Connection c = pg.connect(schema); Statement st = c.createStatement()) {
            st.execute("DROP TABLE memory_snapshots");
            st.execute("DROP TABLE memory_vectors");
            st.execute("DELETE FROM memory_schema WHERE version >= 4");
        }

        try (EventStore migrated = open(schema)) {
            assertThat(migrated.read(ALICE, 0)).extracting(StoredEvent::payload).containsExactly("kept");
            assertThat(migrated.snapshot(ALICE)).isEmpty();
            assertThat(migrated.saveSnapshot(ALICE, new dev.agentmemory.core.spi.StoredSnapshot(2, "ahead"))).isFalse();
            assertThat(migrated.saveSnapshot(ALICE, new dev.agentmemory.core.spi.StoredSnapshot(1, "at one"))).isTrue();
            assertThat(migrated.saveSnapshot(ALICE, new dev.agentmemory.core.spi.StoredSnapshot(1, "replaced"))).isTrue();
            assertThat(migrated.snapshot(ALICE)).get().extracting(dev.agentmemory.core.spi.StoredSnapshot::payload)
                    .isEqualTo("replaced");
            migrated.deleteSnapshots(ALICE);
            assertThat(migrated.snapshot(ALICE)).isEmpty();
        }
        try (Connection c = pg.connect(schema); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT MAX(version) FROM memory_schema")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getInt(1)).isEqualTo(SchemaMigration.SCHEMA_VERSION);
        }
    }

    @Test
    void should_migrate_a_schema_4_database_to_stored_vectors_and_keep_its_events() throws Exception {
        String schema = freshSchema();
        try (EventStore first = open(schema)) {
            first.append(ALICE, 0, List.of(event(1, "kept")));
        }
        try (Connection c = pg.connect(schema); Statement st = c.createStatement()) {
            st.execute("DROP TABLE memory_vectors");
            st.execute("DELETE FROM memory_schema WHERE version = 5");
        }
        dev.agentmemory.core.spi.VectorModel model = new dev.agentmemory.core.spi.VectorModel("m", 2);

        try (EventStore migrated = open(schema)) {
            migrated.saveVectors(ALICE, model, List.of(new dev.agentmemory.core.spi.StoredVector("m|1", 1, new float[] {1, -2})));
            assertThat(migrated.read(ALICE, 0)).extracting(StoredEvent::payload).containsExactly("kept");
            assertThat(migrated.vectors(ALICE, model, List.of("m|1")).get("m|1").vector()).containsExactly(1, -2);
        }
        try (Connection c = pg.connect(schema); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT MAX(version) FROM memory_schema")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getInt(1)).isEqualTo(5);
        }
    }

    @Test
    void should_refuse_a_schema_newer_than_the_library_and_keep_its_data() throws Exception {
        String schema = freshSchema();
        try (EventStore first = open(schema)) {
            first.append(ALICE, 0, List.of(event(1, "kept")));
        }
        try (Connection c = pg.connect(schema); Statement st = c.createStatement()) {
            st.execute("INSERT INTO memory_schema (version) VALUES (" + (SchemaMigration.SCHEMA_VERSION + 1) + ")");
        }

        assertThatThrownBy(() -> open(schema)).isInstanceOf(MemoryException.class)
                .hasMessage("store " + pg.urlOf(schema) + ": database schema version " + (SchemaMigration.SCHEMA_VERSION + 1)
                        + " is newer than this library (" + SchemaMigration.SCHEMA_VERSION + ")");
        try (Connection c = pg.connect(schema); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT payload FROM memory_events")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).isEqualTo("kept");
        }
    }

    @Test
    void should_name_the_database_without_password_when_the_password_is_wrong() {
        String url = pg.urlOf(freshSchema());
        String wrong = "wrong-" + pg.password() + "-x9";

        assertThatThrownBy(() -> JdbcStores.connect(url, pg.user(), wrong))
                .isInstanceOf(MemoryException.class)
                .hasMessageStartingWith("cannot connect to " + url + " as " + pg.user() + ": ")
                .hasMessageContaining("password authentication failed")
                .satisfies(e -> assertCleanOf(e, wrong, pg.password()));
    }

    @Test
    void should_name_the_database_without_password_when_the_host_does_not_answer() {
        // a loopback port with no server on it; the password also sits in the URL, and is redacted
        String url = "jdbc:postgresql://127.0.0.1:9/agentmemory?password=secret-in-url-77";
        JdbcSettings settings = JdbcSettings.of(url, "someone", "secret-arg-88").connectionTimeout(Duration.ofSeconds(1));

        assertThat(settings.toString()).doesNotContain("secret-in-url-77").doesNotContain("secret-arg-88");
        assertThatThrownBy(() -> JdbcStores.connect(settings))
                .isInstanceOf(MemoryException.class)
                .hasMessageStartingWith("cannot connect to jdbc:postgresql://127.0.0.1:9/agentmemory?password=*** as someone: ")
                .hasMessageContaining("Connection to 127.0.0.1:9 refused")
                .satisfies(e -> assertCleanOf(e, "secret-in-url-77", "secret-arg-88"));
    }

    @Test
    void should_show_the_url_but_not_the_password_in_to_string() {
        String schema = freshSchema();
        try (EventStore s = open(schema)) {
            assertThat(s.toString()).isEqualTo("JdbcEventStore[" + pg.urlOf(schema) + "]")
                    .doesNotContain(pg.password());
        }
    }

    /** Neither secret anywhere in the exception's printed chain, and no frame of the pool in it. */
    private static void assertCleanOf(Throwable e, String... secrets) {
        StringWriter printed = new StringWriter();
        e.printStackTrace(new PrintWriter(printed));
        for (String secret : secrets) {
            assertThat(printed.toString()).doesNotContain(secret);
        }
        assertThat(printed.toString()).doesNotContain("com.zaxxer");
    }
}

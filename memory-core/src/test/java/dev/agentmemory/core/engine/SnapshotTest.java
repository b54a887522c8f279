package dev.agentmemory.core.engine;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ForgetMode;
import dev.agentmemory.core.ForgetTarget;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.audit.AuditReport;
import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.core.spi.StoredSnapshot;
import dev.agentmemory.core.store.InMemoryEventStore;
import dev.agentmemory.core.testing.CountingStore;
import dev.agentmemory.core.testing.Histories;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.List;
import java.util.function.Function;
import java.util.zip.CRC32C;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Snapshots: a cold load reads the latest snapshot plus the events after it; a damaged one is
 * ignored and rebuilt; a forget deletes them; audit compares them with a full replay. Across an
 * H2 reopen: {@code H2SnapshotReopenTest} in memory-store-jdbc.
 */
class SnapshotTest {

    private static final int EVERY = 100;
    private final Caller alice = Caller.of("shop", "alice");
    private final Partition alicePartition = new Partition("shop", "alice");

    private static MemoryEngine engine(EventStore store, int every) {
        return MemoryEngine.builder().store(store).snapshotEvery(every).build();
    }

    private static boolean auditMatches(MemoryEngine engine, Caller caller) {
        AuditReport report = engine.admin().audit(caller, Duration.ofDays(3650));
        assertThat(report.replayDifference()).isEmpty();
        return report.replayMatches();
    }

    @Test
    void should_load_a_long_history_from_the_snapshot_plus_the_tail() {
        CountingStore store = new CountingStore(new InMemoryEventStore());
        long last;
        try (MemoryEngine writer = engine(store, EVERY)) {
            Histories.mixed(writer, store, alice, 250);
            last = writer.admin().log(alice).size();
        }
        assertThat(store.snapshot(alicePartition)).get().extracting(StoredSnapshot::seq)
                .isEqualTo(last / EVERY * EVERY);
        store.resetCounts();

        MemoryEngine reader = engine(store, EVERY);
        assertThat(reader.current(alice, alice.persistent(), MemoryKey.of("pref.0"))).isPresent();

        // the load read only the events after the snapshot
        assertThat(store.lastReadFrom()).isEqualTo(last / EVERY * EVERY);
        assertThat(store.eventsRead()).isEqualTo(last % EVERY);
        // and serves the same state as a full replay (audit compares every part of it)
        assertThat(auditMatches(reader, alice)).isTrue();
    }

    @Test
    void should_write_snapshot_bytes_in_proportion_to_a_long_log_and_load_a_bounded_tail() {
        // given: a user whose state grows with every event (a new key each time), 100 events apart at first
        CountingStore store = new CountingStore(new InMemoryEventStore());
        int events = 20_000;
        try (MemoryEngine writer = engine(store, EVERY)) {
            for (int i = 0; i < events; i++) {
                writer.write(alice, Proposal.set(alice.persistent(), "fact." + i, "value " + i).kind(Kind.DECISION).build());
            }
        }
        long last = store.lastSequence(alicePartition);
        StoredSnapshot newest = store.snapshot(alicePartition).orElseThrow();

        // then: the snapshots written over the log weigh a few times the newest, not ~events/EVERY/2 times
        // (a fixed interval of 100 writes 200 snapshots here, about 100 times the newest in all)
        assertThat(store.snapshotsSaved()).isBetween(8L, 8L + 4 * 5 + 1);
        assertThat(store.snapshotCharsSaved()).isLessThanOrEqualTo(8L * newest.payload().length());

        // when: a cold load after the last commit
        store.resetCounts();
        MemoryEngine reader = engine(store, EVERY);
        assertThat(reader.current(alice, alice.persistent(), MemoryKey.of("fact." + (events - 1)))).isPresent();

        // then: it reads the newest snapshot and at most a quarter of the log after it, saving none
        assertThat(store.lastReadFrom()).isEqualTo(newest.seq());
        assertThat(store.eventsRead()).isEqualTo(last - newest.seq()).isLessThanOrEqualTo(last / 4);
        assertThat(store.snapshotsSaved()).isZero();
    }

    @Test
    void should_save_a_snapshot_at_load_when_the_tail_reaches_the_interval_at_the_logs_length() {
        // given: a log of 2,500 events written without snapshots (at seq 2,500 the interval is 400)
        CountingStore store = new CountingStore(new InMemoryEventStore());
        try (MemoryEngine writer = engine(store, 0)) {
            for (int i = 0; store.lastSequence(alicePartition) < 2_500; i++) {
                writer.write(alice, Proposal.set(alice.persistent(), "fact." + i, "value " + i).kind(Kind.DECISION).build());
            }
        }

        // when: loaded with snapshots on, then 299 events written (no multiple of 400 crossed) and loaded again
        // by another engine (this one stays open: its close would snapshot the tail, see SnapshotAtCloseTest)
        MemoryEngine engine = engine(store, EVERY);
        assertThat(engine.current(alice, alice.persistent(), MemoryKey.of("fact.0"))).isPresent();
        assertThat(store.snapshot(alicePartition)).get().extracting(StoredSnapshot::seq).isEqualTo(2_500L);
        for (int i = 0; store.lastSequence(alicePartition) < 2_500 + 299; i++) {
            engine.write(alice, Proposal.set(alice.persistent(), "more." + i, "value " + i).kind(Kind.DECISION).build());
        }
        assertThat(store.snapshot(alicePartition)).get().extracting(StoredSnapshot::seq).isEqualTo(2_500L);
        store.resetCounts();
        MemoryEngine reader = engine(store, EVERY);
        assertThat(reader.current(alice, alice.persistent(), MemoryKey.of("more.0"))).isPresent();

        // then: a tail of 299 events, under the interval at seq 2,799 (400): read, and no snapshot saved
        assertThat(store.eventsRead()).isEqualTo(299);
        assertThat(store.snapshotsSaved()).isZero();
        assertThat(auditMatches(reader, alice)).isTrue();
    }

    @Test
    void should_read_the_tail_on_another_thread_while_a_big_snapshot_decodes() {
        // given: 1,050 records of about 1 KB each: a snapshot of over 1 MB at seq 1,000, a tail of 50
        CountingStore store = new CountingStore(new InMemoryEventStore());
        String filler = "x".repeat(1_100);
        try (MemoryEngine writer = engine(store, EVERY)) {
            for (int i = 0; store.lastSequence(alicePartition) < 1_050; i++) {
                writer.write(alice, Proposal.set(alice.persistent(), "fact." + i, filler + i).kind(Kind.DECISION).build());
            }
        }
        StoredSnapshot newest = store.snapshot(alicePartition).orElseThrow();
        assertThat(newest.seq()).isEqualTo(1_000L);
        assertThat(newest.payload().length()).isGreaterThanOrEqualTo(Snapshots.OVERLAP_CHARS);

        // when: a cold load
        store.resetCounts();
        MemoryEngine reader = engine(store, EVERY);
        assertThat(reader.current(alice, alice.persistent(), MemoryKey.of("fact.1049"))).get()
                .extracting(MemoryRecord::text).isEqualTo(filler + 1049);

        // then: the tail was read after the snapshot, on another thread, and the state is a replay's
        assertThat(store.lastReadFrom()).isEqualTo(1_000L);
        assertThat(store.eventsRead()).isEqualTo(50);
        assertThat(store.lastReadThread()).isNotEmpty().isNotEqualTo(Thread.currentThread().getName());
        assertThat(auditMatches(reader, alice)).isTrue();

        // and: a big snapshot that is damaged or ahead of the log is ignored as a small one is (the
        // events read ahead after it are dropped: 50 after a damaged one, none after seq 6,000)
        Map<Function<StoredSnapshot, StoredSnapshot>, Long> damages = new LinkedHashMap<>();
        damages.put(s -> new StoredSnapshot(s.seq(), s.payload().replace("fact.7", "fact.8")), 1_050L + 50); // checksum
        damages.put(s -> new StoredSnapshot(s.seq() + 5_000, s.payload()), 1_050L);                       // ahead
        damages.forEach((damage, read) -> {
            store.alterSnapshots(damage::apply);
            store.resetCounts();
            MemoryEngine again = engine(store, EVERY);
            assertThat(again.current(alice, alice.persistent(), MemoryKey.of("fact.1049"))).isPresent();
            assertThat(store.lastReadFrom()).as("the whole log replayed").isZero();
            assertThat(store.eventsRead()).isEqualTo(read);
            store.alterSnapshots(s -> s);
            assertThat(auditMatches(again, alice)).isTrue();
        });
    }

    @Test
    void should_serve_the_same_state_with_and_without_snapshots() {
        InMemoryEventStore shared = new InMemoryEventStore();
        try (MemoryEngine writer = engine(shared, 7)) {
            Histories.mixed(writer, shared, alice, 300);
        }
        MemoryEngine withSnapshots = engine(shared, 7);
        MemoryEngine without = engine(shared, 0);
        for (int s = 0; s < 3; s++) {
            assertThat(withSnapshots.messages().window(alice, "s" + s)).isEqualTo(without.messages().window(alice, "s" + s));
            assertThat(withSnapshots.tasks().list(alice, "s" + s)).isEqualTo(without.tasks().list(alice, "s" + s));
        }
        assertThat(withSnapshots.view(alice, alice.persistent()).toString())
                .isEqualTo(without.view(alice, alice.persistent()).toString());
        assertThat(withSnapshots.ledger().pending(alice)).isEqualTo(without.ledger().pending(alice));
        assertThat(withSnapshots.aliases().resolve(alice, "alias3")).isEqualTo(without.aliases().resolve(alice, "alias3"));
        // writes continue the loaded state
        Histories.mixed(withSnapshots, shared, alice, 20);
        assertThat(auditMatches(withSnapshots, alice)).isTrue();
    }

    @Test
    void should_ignore_a_damaged_snapshot_replay_the_log_and_rebuild_it() {
        for (Function<StoredSnapshot, StoredSnapshot> damage : List.<Function<StoredSnapshot, StoredSnapshot>>of(
                s -> new StoredSnapshot(s.seq(), s.payload().replace("value", "valuE")),       // checksum mismatch
                s -> new StoredSnapshot(s.seq(), s.payload().substring(0, s.payload().length() / 2)), // cut short
                s -> new StoredSnapshot(s.seq(), "snapshot-v0:" + s.payload().substring(Snapshots.FORMAT.length())),
                s -> new StoredSnapshot(s.seq(), resealed(s.payload(), "P\u0005\u0003")),     // cut short, valid checksum
                s -> new StoredSnapshot(s.seq(), resealed(s.payload(), body(s.payload()) + "\u0001")), // bytes after its end
                s -> new StoredSnapshot(s.seq(), resealed(s.payload(), "{\"lastSeq\":")),     // JSON, valid checksum
                s -> new StoredSnapshot(s.seq() + 5_000, s.payload()))) {                     // ahead of the log
            CountingStore store = new CountingStore(new InMemoryEventStore());
            try (MemoryEngine writer = engine(store, EVERY)) {
                Histories.mixed(writer, store, alice, 250);
            }
            long last = store.lastSequence(alicePartition);
            store.alterSnapshots(damage::apply);
            store.resetCounts();

            MemoryEngine reader = engine(store, EVERY);
            assertThat(reader.current(alice, alice.persistent(), MemoryKey.of("pref.0"))).isPresent();
            assertThat(store.lastReadFrom()).as("the whole log replayed").isZero();
            assertThat(store.eventsRead()).isEqualTo(last);
            assertThat(store.snapshotsSaved()).as("the snapshot rebuilt").isEqualTo(1);
            store.alterSnapshots(s -> s);
            assertThat(auditMatches(reader, alice)).isTrue();
            assertThat(store.snapshot(alicePartition)).get().extracting(StoredSnapshot::seq).isEqualTo(last);
        }
    }

    @Test
    void should_delete_snapshots_when_anything_is_forgotten_soft_or_hard() {
        for (ForgetMode mode : ForgetMode.values()) {
            InMemoryEventStore store = new InMemoryEventStore();
            try (MemoryEngine engine = engine(store, EVERY)) {
                engine.write(alice, Proposal.set(alice.persistent(), "card", "SECRET-4111").kind(Kind.DECISION).build());
                Histories.mixed(engine, store, alice, 150);
                assertThat(store.snapshot(alicePartition)).get().extracting(StoredSnapshot::payload).asString()
                        .contains("SECRET-4111");

                engine.forget(alice, ForgetTarget.key(alice.persistent(), MemoryKey.of("card")), mode);

                assertThat(store.snapshot(alicePartition)).as(mode + " forget").isEmpty();
                // the next snapshot is taken from the state after the forget
                Histories.mixed(engine, store, alice, 120);
                assertThat(store.snapshot(alicePartition)).get().extracting(StoredSnapshot::payload).asString()
                        .doesNotContain("SECRET-4111");
            }
            MemoryEngine reopened = engine(store, EVERY);
            assertThat(reopened.current(alice, alice.persistent(), MemoryKey.of("card"))).isEmpty();
            assertThat(auditMatches(reopened, alice)).isTrue();
        }
    }

    @Test
    void should_report_a_snapshot_that_differs_from_the_replay_in_the_audit() {
        CountingStore store = new CountingStore(new InMemoryEventStore());
        try (MemoryEngine writer = engine(store, EVERY)) {
            writer.write(alice, Proposal.set(alice.persistent(), "city", "Berlin").kind(Kind.DECISION).build());
            Histories.mixed(writer, store, alice, 150);
        }
        // a well-formed snapshot (checksum right) whose contents do not follow from the log
        StoredSnapshot good = store.snapshot(alicePartition).orElseThrow();
        StoredSnapshot lying = new StoredSnapshot(good.seq(), resealed(good.payload(),
                body(good.payload()).replace("Berlin", "Munich")));
        store.alterSnapshots(s -> s.seq() == good.seq() ? lying : s);

        MemoryEngine engine = engine(store, EVERY);
        AuditReport report = engine.admin().audit(alice, Duration.ofDays(3650));

        assertThat(report.replayMatches()).isFalse();
        assertThat(report.consistent()).isFalse();
        assertThat(report.replayDifference()).contains("snapshot at seq " + good.seq())
                .contains("differs from a replay of the whole log");
        assertThat(store.snapshot(alicePartition)).as("the wrong snapshot is deleted").isEmpty();
        // after a reload the log decides again
        engine.admin().invalidateCache();
        assertThat(engine.current(alice, alice.persistent(), MemoryKey.of("city"))).get()
                .extracting(MemoryRecord::text).isEqualTo("Berlin");
        assertThat(auditMatches(engine, alice)).isTrue();
    }

    @Test
    void should_encrypt_snapshots_with_the_engine_key() {
        byte[] key = new byte[32];
        InMemoryEventStore store = new InMemoryEventStore();
        try (MemoryEngine engine = MemoryEngine.builder().store(store).encryptionKey(key).snapshotEvery(EVERY).build()) {
            engine.write(alice, Proposal.set(alice.persistent(), "city", "Berlin-Secret").kind(Kind.DECISION).build());
            Histories.mixed(engine, store, alice, 150);
        }
        String payload = store.snapshot(alicePartition).orElseThrow().payload();
        assertThat(payload).startsWith(Snapshots.FORMAT).doesNotContain("Berlin-Secret").doesNotContain("lastSeq");
        try (MemoryEngine engine = MemoryEngine.builder().store(store).encryptionKey(key).snapshotEvery(EVERY).build()) {
            assertThat(engine.current(alice, alice.persistent(), MemoryKey.of("city"))).get()
                    .extracting(MemoryRecord::text).isEqualTo("Berlin-Secret");
            assertThat(auditMatches(engine, alice)).isTrue();
        }
    }

    @Test
    void should_refuse_a_negative_snapshot_interval() {
        assertThatThrownBy(() -> MemoryEngine.builder().snapshotEvery(-1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("snapshotEvery");
    }

    @Test
    void should_write_no_snapshot_when_disabled() {
        InMemoryEventStore store = new InMemoryEventStore();
        try (MemoryEngine engine = engine(store, 0)) {
            Histories.mixed(engine, store, alice, 250);
        }
        assertThat(store.snapshot(alicePartition)).isEmpty();
    }

    private static String body(String payload) {
        return payload.substring(payload.indexOf(':', Snapshots.FORMAT.length()) + 1);
    }

    /** A snapshot payload with {@code body} and its right checksum. */
    static String resealed(String payload, String body) {
        CRC32C crc = new CRC32C();
        crc.update(body.getBytes(StandardCharsets.ISO_8859_1));
        return Snapshots.FORMAT + HexFormat.of().toHexDigits((int) crc.getValue()) + ":" + body;
    }
}

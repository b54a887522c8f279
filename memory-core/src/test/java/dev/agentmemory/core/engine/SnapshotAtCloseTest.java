package dev.agentmemory.core.engine;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryException;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.audit.AuditReport;
import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.core.spi.EventStore.ForwardingEventStore;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.core.spi.StoredSnapshot;
import dev.agentmemory.core.store.InMemoryEventStore;
import dev.agentmemory.core.testing.CountingStore;
import dev.agentmemory.core.testing.Histories;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

/**
 * A graceful close snapshots the users whose tail after their newest snapshot is long enough, so
 * that a restart loads them without replaying it; a failing snapshot at close neither fails the
 * close nor loses anything, and another instance's later writes win.
 */
class SnapshotAtCloseTest {

    private static final int EVERY = 100;
    /** At 2,700 events the interval is 400: the periodic snapshot is at 2,400, a tail of 300 follows. */
    private static final int LONG = 2_700;
    private final Caller alice = Caller.of("shop", "alice");
    private final Caller carol = Caller.of("shop", "carol");
    private final Caller bob = Caller.of("shop", "bob");

    private static MemoryEngine engine(EventStore store, int every) {
        return MemoryEngine.builder().store(store).snapshotEvery(every).build();
    }

    private static Partition partition(Caller caller) {
        return new Partition(caller.tenant(), caller.user());
    }

    @Test
    void should_load_from_a_snapshot_at_the_last_sequence_after_a_graceful_close() {
        // given: alice with a tail of 300 events after her periodic snapshot, bob with a short one
        CountingStore store = new CountingStore(new InMemoryEventStore());
        MemoryEngine writer = engine(store, EVERY);
        Histories.mixed(writer, store, alice, LONG);
        Histories.mixed(writer, store, bob, 150);
        long last = store.lastSequence(partition(alice));
        assertThat(store.snapshot(partition(alice))).get().extracting(StoredSnapshot::seq).isEqualTo(last / 400 * 400);
        long bobSnapshot = store.snapshot(partition(bob)).orElseThrow().seq();
        assertThat(store.lastSequence(partition(bob)) - bobSnapshot).isBetween(1L, EVERY - 1L);

        // when
        writer.close();

        // then: alice's snapshot is at her last sequence; bob's tail (under the interval) is left to the log
        assertThat(store.snapshot(partition(alice))).get().extracting(StoredSnapshot::seq).isEqualTo(last);
        assertThat(store.snapshot(partition(bob))).get().extracting(StoredSnapshot::seq).isEqualTo(bobSnapshot);

        // and: a new engine on the same store loads alice from it, reading no event
        store.resetCounts();
        MemoryEngine reopened = engine(store, EVERY);
        assertThat(reopened.current(alice, alice.persistent(), MemoryKey.of("pref.0"))).isPresent();
        assertThat(store.lastReadFrom()).isEqualTo(last);
        assertThat(store.eventsRead()).isZero();
        assertThat(store.snapshotsSaved()).isZero();

        // and serves what a replay of the whole log serves
        assertSameReads(reopened, engine(store, 0), alice);
        assertThat(auditMatches(reopened, alice)).isTrue();
    }

    @Test
    void should_close_and_keep_everything_when_the_snapshot_at_close_fails() {
        // given: two users with long tails, on a store whose snapshots start failing before the close
        InMemoryEventStore underlying = new InMemoryEventStore();
        FailingSnapshots store = new FailingSnapshots(underlying);
        MemoryEngine writer = engine(store, EVERY);
        Histories.mixed(writer, store, alice, LONG);
        Histories.mixed(writer, store, carol, LONG);
        writer.write(alice, Proposal.set(alice.persistent(), "city", "Lisbon").kind(Kind.DECISION).build());
        long aliceLast = store.lastSequence(partition(alice));
        long carolLast = store.lastSequence(partition(carol));
        long aliceSnapshot = underlying.snapshot(partition(alice)).orElseThrow().seq();
        store.failing = true;

        // when
        assertThatCode(writer::close).doesNotThrowAnyException();

        // then: both were tried (the first failure did not stop the second), and the store was closed all the same
        assertThat(store.attempts).hasValue(2);
        assertThat(store.closed).isTrue();

        // and: nothing is lost; the periodic snapshot plus the tail serve what the whole log serves
        assertThat(underlying.lastSequence(partition(alice))).isEqualTo(aliceLast);
        assertThat(underlying.lastSequence(partition(carol))).isEqualTo(carolLast);
        assertThat(underlying.snapshot(partition(alice))).get().extracting(StoredSnapshot::seq).isEqualTo(aliceSnapshot);
        MemoryEngine reopened = engine(underlying, EVERY);
        assertThat(reopened.current(alice, alice.persistent(), MemoryKey.of("city"))).get()
                .extracting(r -> r.text()).isEqualTo("Lisbon");
        assertSameReads(reopened, engine(underlying, 0), alice);
        assertSameReads(reopened, engine(underlying, 0), carol);
        assertThat(auditMatches(reopened, alice)).isTrue();
        assertThat(auditMatches(reopened, carol)).isTrue();
    }

    @Test
    void should_keep_no_snapshot_at_close_when_another_instance_wrote_after_it() {
        // given: alice's log of 2,700 events; a first instance loads it (snapshot at 2,700), writes 450
        // events (periodic snapshot at 2,800, the next at 3,200), then a second instance writes after it
        CountingStore store = new CountingStore(new InMemoryEventStore());
        try (MemoryEngine writer = engine(store, 0)) {
            Histories.mixed(writer, store, alice, LONG);
        }
        MemoryEngine first = engine(store, EVERY);
        Histories.mixed(first, store, alice, 450);
        long periodic = store.snapshot(partition(alice)).orElseThrow().seq();
        assertThat(periodic).isEqualTo(2_800L);
        MemoryEngine second = engine(store, EVERY);
        second.write(alice, Proposal.set(alice.persistent(), "city", "Porto").kind(Kind.DECISION).build());

        // when: the first closes with a state behind the log
        store.resetCounts();
        first.close();

        // then: its snapshot was refused (the log moved on), and a reload serves the second's write
        assertThat(store.snapshotsSaved()).isZero();
        assertThat(store.snapshot(partition(alice))).get().extracting(StoredSnapshot::seq).isEqualTo(periodic);
        MemoryEngine reopened = engine(store, EVERY);
        assertThat(reopened.current(alice, alice.persistent(), MemoryKey.of("city"))).get()
                .extracting(r -> r.text()).isEqualTo("Porto");
        assertSameReads(reopened, engine(store, 0), alice);
        assertThat(auditMatches(reopened, alice)).isTrue();

        // and: the second, whose state is the log's, snapshots it at close
        second.close();
        assertThat(store.snapshotsSaved()).isEqualTo(1);
        assertThat(store.snapshot(partition(alice))).get().extracting(StoredSnapshot::seq)
                .isEqualTo(store.lastSequence(partition(alice)));
    }

    private static void assertSameReads(MemoryEngine engine, MemoryEngine replayed, Caller caller) {
        for (int s = 0; s < 3; s++) {
            assertThat(engine.messages().window(caller, "s" + s)).isEqualTo(replayed.messages().window(caller, "s" + s));
            assertThat(engine.messages().history(caller, "s" + s)).isEqualTo(replayed.messages().history(caller, "s" + s));
            assertThat(engine.tasks().list(caller, "s" + s)).isEqualTo(replayed.tasks().list(caller, "s" + s));
        }
        assertThat(engine.view(caller, caller.persistent()).toString())
                .isEqualTo(replayed.view(caller, caller.persistent()).toString());
        assertThat(engine.ledger().pending(caller)).isEqualTo(replayed.ledger().pending(caller));
        assertThat(engine.aliases().resolve(caller, "alias3")).isEqualTo(replayed.aliases().resolve(caller, "alias3"));
    }

    private static boolean auditMatches(MemoryEngine engine, Caller caller) {
        AuditReport report = engine.admin().audit(caller, Duration.ofDays(3650));
        assertThat(report.replayDifference()).isEmpty();
        return report.replayMatches();
    }

    /** A store whose snapshots fail once {@link #failing} is set, as a store that lost its connection. */
    private static final class FailingSnapshots extends ForwardingEventStore {
        volatile boolean failing;
        final AtomicInteger attempts = new AtomicInteger();
        volatile boolean closed;

        FailingSnapshots(EventStore delegate) {
            super(delegate);
        }

        @Override
        public boolean saveSnapshot(Partition partition, StoredSnapshot snapshot) {
            if (failing) {
                attempts.incrementAndGet();
                throw new MemoryException("store test: cannot save the snapshot of " + partition + ": connection lost");
            }
            return super.saveSnapshot(partition, snapshot);
        }

        @Override
        public void close() {
            closed = true;
            super.close();
        }
    }
}

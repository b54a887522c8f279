package dev.agentmemory.core.engine;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ForgetMode;
import dev.agentmemory.core.ForgetTarget;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.MemoryRecord.Access;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.core.MemoryRecord.Status;
import dev.agentmemory.core.MemoryRecord.Trust;
import dev.agentmemory.core.MemoryValue;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.Scope;
import dev.agentmemory.core.event.StoredMessage;
import dev.agentmemory.core.internal.state.MemoryState;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.core.spi.StoredSnapshot;
import dev.agentmemory.core.store.InMemoryEventStore;
import dev.agentmemory.core.testing.CountingStore;
import dev.agentmemory.testing.TestClock;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The binary snapshot across a restart, over many generated histories: an engine that loads a
 * user from the snapshot plus the log after it holds exactly the state of a full replay of the
 * log and serves the same reads as an engine without snapshots. The histories use every field a
 * record has (validity windows, TTL, tags, agents and access, extraction, sensitive values,
 * verdicts, conflicts), tasks moved between sessions, aliases, the action ledger, sessions with
 * and without a window, forgotten records and messages, and text in many scripts, with quotes,
 * escapes and NUL characters.
 */
class SnapshotRoundTripTest {

    private static final List<String> TEXTS = List.of("white", "黑色的耳机", "Grüße, \"quoted\" \\ back",
            "line\nbreak\ttab", "emoji 🎧 and 𝄞", "nul\u0000inside", "", "  ", "مرحبا", "\u007f\u0080\u00ff",
            "日本語のテキスト、とても長い" + "x".repeat(300));
    private static final List<String> SESSIONS = List.of("s1", "s2", "s3");

    @Property(tries = 40)
    void should_restore_from_the_snapshot_the_state_a_full_replay_gives(@ForAll long seed) {
        Random random = new Random(seed);
        TestClock clock = TestClock.start();
        CountingStore store = new CountingStore(new InMemoryEventStore());
        Caller alice = Caller.of("shop", "alice");
        Partition partition = new Partition("shop", "alice");
        int every = 1 + random.nextInt(12);
        try (MemoryEngine writer = MemoryEngine.builder().store(store).clock(clock).snapshotEvery(every)
                .ttl(Kind.OBSERVATION, Duration.ofHours(3)).build()) {
            int ops = 40 + random.nextInt(120);
            for (int i = 0; i < ops; i++) {
                step(writer, alice, clock, random, i);
            }
            // a snapshot to load: at least one interval of events after the last forget
            for (int i = 0; store.snapshot(partition).isEmpty(); i++) {
                write(writer, alice, random, 1_000 + i);
            }
        }
        StoredSnapshot snapshot = store.snapshot(partition).orElseThrow();
        assertThat(snapshot.payload()).startsWith(Snapshots.FORMAT);
        store.resetCounts();

        try (MemoryEngine loaded = MemoryEngine.builder().store(store).clock(clock).snapshotEvery(every).build();
             MemoryEngine replayed = MemoryEngine.builder().store(store).clock(clock).snapshotEvery(0).build()) {
            MemoryState fromSnapshot = loaded.admin().<MemoryState>holding(alice, s -> s);
            assertThat(store.lastReadFrom()).as("loaded from the snapshot").isEqualTo(snapshot.seq());
            assertThat(fromSnapshot).isEqualTo(replayed.admin().replay(alice));
            MemoryState live = replayed.admin().holding(alice, s -> s);
            assertThat(fromSnapshot).isEqualTo(live);
            assertSameOrders(fromSnapshot, live);
            assertSameReads(loaded, replayed, alice);
            assertThat(loaded.admin().audit(alice, Duration.ofDays(3650)).replayMatches()).isTrue();
        }
    }

    @Test
    void should_restore_a_snapshot_many_times_the_decoder_window_with_texts_longer_than_it() {
        // given: a snapshot of thousands of records, some with values of hundreds of kilobytes of multibyte
        // text, so that its body spans many 64 KiB windows of the decoder and texts cross and outgrow them
        CountingStore store = new CountingStore(new InMemoryEventStore());
        Caller alice = Caller.of("shop", "alice");
        Partition partition = new Partition("shop", "alice");
        Random random = new Random(7);
        try (MemoryEngine writer = MemoryEngine.builder().store(store).snapshotEvery(500).maxValueBytes(1 << 20).build()) {
            for (int i = 0; i < 2_500; i++) {
                String text = i % 400 == 7 ? "日本語のテキスト 🎧 Grüße ".repeat(10_000 + random.nextInt(5_000)) + i
                        : TEXTS.get(random.nextInt(TEXTS.size())) + " " + i;
                writer.write(alice, Proposal.set(i % 3 == 0 ? alice.session("s1") : alice.persistent(),
                        "fact." + (i % 1_700), text).kind(Kind.DECISION).tag("t" + i % 5).build());
            }
        }
        StoredSnapshot snapshot = store.snapshot(partition).orElseThrow();
        assertThat(snapshot.payload().length()).as("body in windows").isGreaterThan(40 * (1 << 16));
        store.resetCounts();

        // when: an engine loads the user from it; then: the state of a full replay, orders included
        try (MemoryEngine loaded = MemoryEngine.builder().store(store).snapshotEvery(500).build();
             MemoryEngine replayed = MemoryEngine.builder().store(store).snapshotEvery(0).build()) {
            MemoryState fromSnapshot = loaded.admin().<MemoryState>holding(alice, s -> s);
            assertThat(store.lastReadFrom()).as("loaded from the snapshot").isEqualTo(snapshot.seq());
            MemoryState live = replayed.admin().holding(alice, s -> s);
            assertThat(fromSnapshot).isEqualTo(live);
            assertSameOrders(fromSnapshot, live);
        }
    }

    @Test
    void should_ignore_a_json_snapshot_of_an_older_version_and_rebuild_it() {
        // given: a log and, as the previous version left it, a snapshot-v1 (JSON) of its state
        CountingStore store = new CountingStore(new InMemoryEventStore());
        Caller alice = Caller.of("shop", "alice");
        Partition partition = new Partition("shop", "alice");
        try (MemoryEngine writer = MemoryEngine.builder().store(store).snapshotEvery(0).build()) {
            for (int i = 0; i < 30; i++) {
                writer.write(alice, Proposal.set(alice.persistent(), "fact." + i, "value " + i).kind(Kind.DECISION).build());
            }
        }
        long last = store.lastSequence(partition);
        String v1Body = "{\"lastSeq\":" + last + ",\"liveRecords\":30,\"records\":[],\"versions\":[],\"tasks\":[],"
                + "\"aliases\":{},\"actions\":[],\"sessions\":[]}";
        store.saveSnapshot(partition, new StoredSnapshot(last, "snapshot-v1:" + sha256(v1Body) + ":" + v1Body));
        store.resetCounts();

        // when: a new engine loads the user
        try (MemoryEngine engine = MemoryEngine.builder().store(store).snapshotEvery(10).build()) {
            // then: the whole log is replayed (the old snapshot, which says the user has nothing, is not used)
            assertThat(engine.current(alice, alice.persistent(), MemoryKey.of("fact.29"))).get()
                    .extracting(MemoryRecord::text).isEqualTo("value 29");
            assertThat(engine.view(alice, alice.persistent()).keys()).hasSize(30);
            assertThat(store.lastReadFrom()).isZero();
            assertThat(store.eventsRead()).isEqualTo(last);
            // and the snapshot is rebuilt in the current format
            assertThat(store.snapshot(partition)).get().extracting(StoredSnapshot::payload).asString()
                    .startsWith(Snapshots.FORMAT);
            assertThat(engine.admin().audit(alice, Duration.ofDays(3650)).replayMatches()).isTrue();
        }
        store.resetCounts();
        try (MemoryEngine again = MemoryEngine.builder().store(store).snapshotEvery(10).build()) {
            assertThat(again.view(alice, alice.persistent()).keys()).hasSize(30);
            assertThat(store.lastReadFrom()).as("the rebuilt snapshot is used").isEqualTo(last);
        }
    }

    @Test
    void should_ignore_a_snapshot_with_any_one_byte_changed_or_cut_and_serve_the_log() {
        CountingStore store = new CountingStore(new InMemoryEventStore());
        Caller alice = Caller.of("shop", "alice");
        Partition partition = new Partition("shop", "alice");
        Random random = new Random(7);
        try (MemoryEngine writer = MemoryEngine.builder().store(store).snapshotEvery(20).build()) {
            for (int i = 0; store.lastSequence(partition) < 60; i++) {
                step(writer, alice, TestClock.start(), random, i);
            }
            for (int i = 0; store.snapshot(partition).isEmpty(); i++) {
                write(writer, alice, random, 1_000 + i);
            }
        }
        StoredSnapshot good = store.snapshot(partition).orElseThrow();
        MemoryState expected;
        try (MemoryEngine replayed = MemoryEngine.builder().store(store).snapshotEvery(0).build()) {
            expected = replayed.admin().replay(alice);
        }
        String payload = good.payload();
        int bodyStart = payload.indexOf(':', Snapshots.FORMAT.length()) + 1;
        for (int at = Snapshots.FORMAT.length(); at < payload.length(); at += 1 + payload.length() / 97) {
            for (boolean cut : List.of(false, true)) {
                char flipped = (char) ((payload.charAt(at) ^ (at < bodyStart ? 0x01 : 0x20)) & 0xFF);
                String damaged = cut ? payload.substring(0, at)
                        : payload.substring(0, at) + flipped + payload.substring(at + 1);
                store.alterSnapshots(s -> new StoredSnapshot(s.seq(), damaged));
                store.resetCounts();
                try (MemoryEngine engine = MemoryEngine.builder().store(store).snapshotEvery(20).build()) {
                    MemoryState loaded = engine.admin().holding(alice, s -> s);
                    assertThat(loaded).as("byte %d %s", at, cut ? "cut" : "flipped")
                            .isEqualTo(expected);
                    assertThat(store.lastReadFrom()).as("byte %d: the whole log replayed", at).isZero();
                }
                store.alterSnapshots(s -> s);
            }
        }
    }

    @Test
    void should_load_a_sealed_snapshot_with_its_key_and_refuse_another_key_as_the_log_does() {
        CountingStore store = new CountingStore(new InMemoryEventStore());
        Caller alice = Caller.of("shop", "alice");
        Partition partition = new Partition("shop", "alice");
        byte[] key = new byte[32];
        byte[] otherKey = new byte[32];
        otherKey[0] = 1;
        Random random = new Random(11);
        try (MemoryEngine writer = MemoryEngine.builder().store(store).encryptionKey(key).snapshotEvery(10).build()) {
            writer.write(alice, Proposal.set(alice.persistent(), "city", "Berlin-Secret").kind(Kind.DECISION).build());
            for (int i = 0; store.lastSequence(partition) < 45; i++) {
                step(writer, alice, TestClock.start(), random, i);
            }
            for (int i = 0; store.snapshot(partition).isEmpty(); i++) {
                write(writer, alice, random, 1_000 + i);
            }
        }
        StoredSnapshot sealed = store.snapshot(partition).orElseThrow();
        assertThat(sealed.payload()).doesNotContain("Berlin-Secret");

        // another key: the log cannot be read either, and the read fails rather than serving less
        try (MemoryEngine wrong = MemoryEngine.builder().store(store).encryptionKey(otherKey).snapshotEvery(10).build()) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> wrong.current(alice, alice.persistent(), MemoryKey.of("city")))
                    .isInstanceOf(dev.agentmemory.core.MemoryException.class).hasMessageContaining("wrong key");
        }
        assertThat(store.snapshot(partition)).as("kept for the right key").contains(sealed);

        // the right key: loaded from the snapshot, the same state as a replay
        store.resetCounts();
        try (MemoryEngine right = MemoryEngine.builder().store(store).encryptionKey(key).snapshotEvery(10).build()) {
            MemoryState loaded = right.admin().holding(alice, s -> s);
            assertThat(store.lastReadFrom()).isEqualTo(sealed.seq());
            assertThat(loaded).isEqualTo(right.admin().replay(alice));
            assertThat(loaded.records()).isNotEmpty();
        }
    }

    /** One random operation of the public API (one the engine refuses as bad input leaves the state as it was). */
    private static void step(MemoryEngine engine, Caller alice, TestClock clock, Random random, int i) {
        try {
            randomStep(engine, alice, clock, random, i);
        } catch (IllegalArgumentException refused) {
            // e.g. a text too long for an alias
        }
    }

    private static void randomStep(MemoryEngine engine, Caller alice, TestClock clock, Random random, int i) {
        String session = SESSIONS.get(random.nextInt(SESSIONS.size()));
        switch (random.nextInt(14)) {
            case 0, 1, 2, 3 -> write(engine, alice, random, i);
            case 4 -> {
                // a less trusted value for a key that may hold a trusted one: a conflict candidate
                engine.propose(alice, Proposal.set(alice.persistent(), "k" + random.nextInt(6), text(random))
                        .kind(Kind.INFERENCE).source(Source.MODEL).extractedBy("model-" + random.nextInt(2), "p1").build());
            }
            case 5 -> {
                List<MemoryRecord> live = engine.admin().replay(alice).records().stream()
                        .filter(r -> r.status() != Status.FORGOTTEN).toList();
                if (!live.isEmpty()) {
                    MemoryRecord r = live.get(random.nextInt(live.size()));
                    if (random.nextBoolean()) {
                        engine.verification().confirm(alice, r.id());
                    } else {
                        engine.verification().refute(alice, r.id(), "checked: " + text(random));
                    }
                }
            }
            case 6 -> {
                String task = "t" + random.nextInt(4);
                try {
                    switch (random.nextInt(4)) {
                        case 0 -> engine.tasks().start(alice, session, task, random.nextBoolean() ? null : text(random));
                        case 1 -> engine.tasks().suspend(alice, session, task);
                        case 2 -> engine.tasks().resume(alice, session, task);
                        default -> engine.tasks().end(alice, session, task);
                    }
                } catch (IllegalStateException | IllegalArgumentException invalidStep) {
                    // part of the random walk
                }
            }
            case 7 -> engine.aliases().register(alice, "order:" + random.nextInt(5), "alias " + text(random).strip()
                    + random.nextInt(3));
            case 8 -> {
                String op = "op-" + random.nextInt(6);
                if (engine.ledger().action(alice, op).isPresent()) {
                    engine.ledger().complete(alice, op, random.nextBoolean(), MemoryValue.of(text(random)));
                } else {
                    engine.ledger().begin(alice, op, "refund", MemoryValue.parse("{\"amount\":" + random.nextInt(100)
                            + ",\"note\":" + MemoryValue.of(text(random)).json() + "}"));
                }
            }
            case 9, 10 -> engine.messages().change(alice, session, window -> {
                long next = engine.messages().history(alice, session).isEmpty() ? 0
                        : engine.messages().history(alice, session).lastKey() + 1;
                List<Long> evicted = window.size() > 3 && random.nextBoolean() ? List.of(window.get(0).index()) : List.of();
                String t = text(random);
                // now and then a message placed in front of the window (a smaller order)
                long order = random.nextInt(5) == 0 ? -next : next;
                return new MemoryEngine.Messages.WindowChange(evicted, List.of(new StoredMessage(next, order,
                        random.nextBoolean() ? "USER" : "AI", "{\"text\":" + MemoryValue.of(t).json() + "}", t)));
            });
            case 11 -> {
                clock.advance(Duration.ofHours(1 + random.nextInt(3)));
                engine.verification().expireDue(alice);
            }
            case 12 -> {
                int what = random.nextInt(10);
                if (what < 5) {
                    engine.forget(alice, ForgetTarget.key(alice.persistent(), MemoryKey.of("k" + random.nextInt(6))),
                            random.nextBoolean() ? ForgetMode.SOFT : ForgetMode.HARD);
                } else if (what < 9) {
                    engine.forget(alice, ForgetTarget.messages(session, List.of((long) random.nextInt(4))), ForgetMode.SOFT);
                } else {
                    engine.forget(alice, ForgetTarget.user(), ForgetMode.SOFT);
                }
            }
            default -> engine.admin().collect(alice);
        }
    }

    /** A record with a random choice of every field a proposal sets. */
    private static void write(MemoryEngine engine, Caller alice, Random random, int i) {
        List<Scope> scopes = List.of(alice.persistent(), alice.session("s1"), alice.task("s1", "t1"),
                alice.task("s2", "t2"));
        Scope scope = scopes.get(random.nextInt(scopes.size()));
        String key = random.nextInt(3) == 0 ? "order:" + random.nextInt(4) + ".color" : "k" + random.nextInt(6);
        Proposal.Builder p = Proposal.set(scope, MemoryKey.of(key), random.nextInt(5) == 0
                        ? MemoryValue.parse("{\"n\":" + i + ",\"list\":[1,2.5,true],\"s\":" + MemoryValue.of(text(random)).json() + "}")
                        : random.nextInt(6) == 0 ? MemoryValue.of(i - 50L) : MemoryValue.of(text(random)))
                .kind(random.nextBoolean() ? Kind.DECISION : Kind.PREFERENCE)
                .source(Source.USER, "msg-" + random.nextInt(1_000));
        if (random.nextBoolean()) {
            p.confidence(random.nextDouble());
        }
        if (random.nextInt(4) == 0) {
            p.observedAt(TestClock.DEFAULT_START.minusSeconds(random.nextInt(100_000)).minusNanos(random.nextInt(1_000)));
        }
        if (random.nextInt(3) == 0) {
            Instant from = TestClock.DEFAULT_START.plus(Duration.ofDays(random.nextInt(30) - 15));
            p.validity(from, random.nextBoolean() ? null : from.plusSeconds(1 + random.nextInt(1_000_000)).plusNanos(123));
        }
        if (random.nextInt(3) == 0) {
            p.ttl(Duration.ofMinutes(1 + random.nextInt(300)));
        }
        for (int t = random.nextInt(3); t > 0; t--) {
            p.tag("tag-" + random.nextInt(4));
        }
        if (random.nextInt(4) == 0) {
            p.access(random.nextBoolean() ? Access.PROTECTED : Access.PRIVATE).owner("agent-" + random.nextInt(2));
        }
        if (random.nextInt(5) == 0) {
            p.sensitive();
        }
        if (random.nextInt(6) == 0) {
            p.trust(Trust.UNTRUSTED);
        }
        engine.propose(alice, p.build());
    }

    private static String text(Random random) {
        return TEXTS.get(random.nextInt(TEXTS.size()));
    }

    private static void assertSameReads(MemoryEngine a, MemoryEngine b, Caller alice) {
        List<Scope> scopes = new ArrayList<>(List.of(alice.persistent()));
        for (String s : SESSIONS) {
            scopes.add(alice.session(s));
            assertThat(a.messages().window(alice, s)).as("window of %s", s).isEqualTo(b.messages().window(alice, s));
            assertThat(a.messages().history(alice, s)).isEqualTo(b.messages().history(alice, s));
            assertThat(a.tasks().list(alice, s)).isEqualTo(b.tasks().list(alice, s));
        }
        for (Scope s : scopes) {
            assertThat(a.view(alice, s).toString()).isEqualTo(b.view(alice, s).toString());
        }
        assertThat(a.ledger().pending(alice)).isEqualTo(b.ledger().pending(alice));
    }

    /** The iteration orders that {@link MemoryState#equals} does not compare: records, scopes, keys, ledger. */
    private static void assertSameOrders(MemoryState a, MemoryState b) {
        assertThat(List.copyOf(a.records())).as("records in write order").containsExactlyElementsOf(b.records());
        assertThat(List.copyOf(a.scopes())).as("scopes").containsExactlyElementsOf(b.scopes());
        for (Scope s : b.scopes()) {
            assertThat(List.copyOf(a.keys(s).entrySet())).as("keys of %s", s).containsExactlyElementsOf(b.keys(s).entrySet());
        }
        assertThat(List.copyOf(a.actions())).as("ledger").containsExactlyElementsOf(b.actions());
        assertThat(a.allTasks()).as("tasks").containsExactlyElementsOf(b.allTasks());
    }

    private static String sha256(String body) {
        try {
            return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                    .digest(body.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}

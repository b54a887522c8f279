package dev.agentmemory.store.jdbc.reliability;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ForgetMode;
import dev.agentmemory.core.ForgetReceipt;
import dev.agentmemory.core.ForgetTarget;
import dev.agentmemory.core.ScopeView.KeyState;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.Scope.Layer;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.engine.MemoryEngine.Messages;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.ReadOptions;
import dev.agentmemory.core.Scope;
import dev.agentmemory.core.event.StoredMessage;
import dev.agentmemory.store.jdbc.JdbcStores;
import dev.agentmemory.testing.DiskScan;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 6, test 6 (engine side): forgetting for real. After a hard forget and the store's
 * compaction, the forgotten values' bytes are nowhere in the H2 database files (raw bytes
 * scanned), nor in the readable log or the decoded log; what was not forgotten is still there
 * (the control that shows the scan can see). After a soft forget, no later read returns the
 * value ({@code applicableAt} and reads of the past, {@code asOf}, included).
 */
class ForgettingForRealTest {

    private final Caller alice = Caller.of("shop", "alice");
    private final Caller bob = Caller.of("shop", "bob");
    private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2024-10-15T10:00:00Z"));
    private final Clock clock = new Clock() {
        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now.get();
        }
    };

    private void tick() {
        now.set(now.get().plusSeconds(60));
    }

    @Test
    void should_leave_no_byte_of_a_hard_forgotten_value_in_the_database_file_when_compacted(@TempDir Path dir) {
        // given
        Scope session = alice.session("s1");
        try (MemoryEngine engine = MemoryEngine.builder().store(JdbcStores.h2File(dir.resolve("mem"))).clock(clock).build()) {
            engine.write(alice, Proposal.set(alice.persistent(), "card.number", "FORGET-card-4111-v1").kind(Kind.DECISION).build());
            tick();
            engine.write(alice, Proposal.set(alice.persistent(), "card.number", "FORGET-card-5500-v2").kind(Kind.DECISION).build());
            engine.write(alice, Proposal.set(session, "address", "FORGET-address-Elm-Street").build());
            engine.tasks().start(alice, "s1", "t1", "task");
            engine.write(alice, Proposal.set(alice.task("s1", "t1"), "note", "FORGET-task-note").build());
            engine.messages().change(alice, "s1", w -> new Messages.WindowChange(List.of(), List.of(
                    new StoredMessage(0, 0, "USER", "{\"text\":\"FORGET-message-zero\"}", "FORGET-message-zero"),
                    new StoredMessage(1, 1, "USER", "{\"text\":\"FORGET-message-one\"}", "FORGET-message-one"))));
            engine.write(alice, Proposal.set(alice.persistent(), "profile.name", "KEEP-alice-name").kind(Kind.DECISION).build());
            engine.write(bob, Proposal.set(bob.persistent(), "card.number", "KEEP-bob-card").kind(Kind.DECISION).build());
            // forgetting the session scope takes its tasks and messages with it
            List<String> forgotten = List.of("FORGET-card-4111-v1", "FORGET-card-5500-v2", "FORGET-address-Elm-Street",
                    "FORGET-task-note", "FORGET-message-zero", "FORGET-message-one");
            List<String> kept = List.of("KEEP-alice-name", "KEEP-bob-card");
            // control: before forgetting, the scan finds every value in the file
            for (String v : concat(forgotten, kept)) {
                assertThat(DiskScan.filesContaining(dir, v)).as("control: %s on disk before forgetting", v).isNotEmpty();
            }

            // when
            ForgetReceipt key = engine.forget(alice, ForgetTarget.key(alice.persistent(), MemoryKey.of("card.number")), ForgetMode.HARD);
            ForgetReceipt scope = engine.forget(alice, ForgetTarget.scope(session), ForgetMode.HARD);
            engine.forget(alice, ForgetTarget.messages("s1", List.of(0L)), ForgetMode.HARD);
            long before = DiskScan.bytes(dir);
            engine.admin().compact();
            long after = DiskScan.bytes(dir);

            // then
            assertThat(key.recordIds()).hasSize(2);
            assertThat(scope.recordIds()).hasSize(2);
            for (String v : forgotten) {
                assertThat(DiskScan.filesContaining(dir, v)).as("%s on disk after hard forget + compact", v).isEmpty();
                assertThat(String.join("\n", engine.admin().readableLog(alice))).doesNotContain(v);
                assertThat(engine.admin().log(alice).toString()).doesNotContain(v);
            }
            for (String v : kept) {
                assertThat(DiskScan.filesContaining(dir, v)).as("%s kept on disk", v).isNotEmpty();
            }
            assertThat(engine.current(alice, alice.persistent(), MemoryKey.of("profile.name"))).get()
                    .extracting(MemoryRecord::text).isEqualTo("KEEP-alice-name");
            assertThat(engine.admin().audit(alice, java.time.Duration.ofDays(1)).replayMatches()).isTrue();
            System.out.printf("FORGETTING (hard): values forgotten=%d, scanned absent on disk/readable log/log=%d, "
                    + "controls present=%d, database bytes before compact=%d after=%d%n", forgotten.size(),
                    forgotten.size(), kept.size(), before, after);
        }
        // and after a restart the scrubbed log replays to the same state
        try (MemoryEngine engine = MemoryEngine.builder().store(JdbcStores.h2File(dir.resolve("mem"))).clock(clock).build()) {
            assertThat(engine.admin().audit(alice, java.time.Duration.ofDays(1)).replayMatches()).isTrue();
            assertThat(engine.view(alice, alice.persistent()).values()).containsOnlyKeys(MemoryKey.of("profile.name"));
        }
    }

    @Test
    void should_leave_no_byte_of_any_value_when_the_whole_user_is_hard_forgotten(@TempDir Path dir) {
        try (MemoryEngine engine = MemoryEngine.builder().store(JdbcStores.h2File(dir.resolve("mem"))).clock(clock).build()) {
            // given
            engine.write(alice, Proposal.set(alice.persistent(), "a", "USER-GONE-one").kind(Kind.DECISION).build());
            engine.write(alice, Proposal.set(alice.session("s"), "b", "USER-GONE-two").build());
            engine.messages().change(alice, "s", w -> new Messages.WindowChange(List.of(),
                    List.of(new StoredMessage(0, 0, "USER", "{\"t\":\"USER-GONE-three\"}", "USER-GONE-three"))));
            engine.tasks().start(alice, "s", "t", "USER-GONE-title");
            engine.write(bob, Proposal.set(bob.persistent(), "a", "BOB-STAYS").kind(Kind.DECISION).build());
            assertThat(DiskScan.filesContaining(dir, "USER-GONE-one")).isNotEmpty();

            // when
            engine.forget(alice, ForgetTarget.user(), ForgetMode.HARD);
            engine.admin().compact();

            // then
            List<String> leftovers = new ArrayList<>();
            for (String v : List.of("USER-GONE-one", "USER-GONE-two", "USER-GONE-three", "USER-GONE-title")) {
                if (!DiskScan.filesContaining(dir, v).isEmpty()) {
                    leftovers.add(v + " (disk)");
                }
                if (String.join("\n", engine.admin().readableLog(alice)).contains(v)) {
                    leftovers.add(v + " (readable log)");
                }
            }
            System.out.println("FORGETTING (hard, whole user): leftovers=" + leftovers);
            assertThat(leftovers).isEmpty();
            assertThat(DiskScan.filesContaining(dir, "BOB-STAYS")).isNotEmpty();
        }
    }

    @Test
    void should_never_return_a_soft_forgotten_value_when_any_read_looks_later_or_into_the_past() {
        // given
        MemoryEngine engine = MemoryEngine.builder().clock(clock).build();
        Scope session = alice.session("s1");
        engine.write(alice, Proposal.set(session, "secret", "SOFT-v1").build());
        tick();
        engine.write(alice, Proposal.set(session, "secret", "SOFT-v2").build());
        long seqBefore = engine.admin().log(alice).size();
        Instant timeBefore = now.get();
        engine.messages().change(alice, "s1", w -> new Messages.WindowChange(List.of(),
                List.of(new StoredMessage(0, 0, "USER", "{\"t\":\"SOFT-message\"}", "SOFT-message"))));
        tick();

        // when
        engine.forget(alice, ForgetTarget.key(session, MemoryKey.of("secret")), ForgetMode.SOFT);
        engine.forget(alice, ForgetTarget.messages("s1", List.of(0L)), ForgetMode.SOFT);
        tick();

        // then: every read, now and of the past
        List<String> seen = new ArrayList<>();
        engine.current(alice, session, MemoryKey.of("secret")).ifPresent(r -> seen.add("current " + r.text()));
        KeyState ks = engine.keyState(alice, session, MemoryKey.of("secret"), ReadOptions.withArchived());
        if (!ks.isEmpty()) {
            seen.add("keyState " + ks);
        }
        engine.view(alice, session).values().values().forEach(v -> seen.add("view " + v));
        engine.history(alice, session, MemoryKey.of("secret")).stream().filter(r -> r.value() != null)
                .forEach(r -> seen.add("history " + r.text()));
        engine.servable(alice, Layer.SESSION).forEach(k -> seen.add("servable " + k.key()));
        engine.applicableAt(alice, session, MemoryKey.of("secret"), timeBefore).ifPresent(r -> seen.add("applicableAt " + r.text()));
        // Reads of the past do not bring a forgotten value back either.
        engine.asOfSequence(alice, session, seqBefore).values().values().forEach(v -> seen.add("asOfSequence " + v));
        engine.asOf(alice, session, timeBefore).values().values().forEach(v -> seen.add("asOf " + v));
        engine.messages().window(alice, "s1").forEach(m -> seen.add("window " + m.text()));
        engine.messages().history(alice, "s1").values().stream().filter(m -> m.text() != null)
                .forEach(m -> seen.add("messageHistory " + m.text()));
        String readable = String.join("\n", engine.admin().readableLog(alice));
        System.out.println("FORGETTING (soft): reads after forget that returned the value: " + seen);
        assertThat(seen).isEmpty();
        assertThat(readable).doesNotContain("SOFT-message");
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }
}

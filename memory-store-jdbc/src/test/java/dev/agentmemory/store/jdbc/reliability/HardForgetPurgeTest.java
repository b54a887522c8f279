package dev.agentmemory.store.jdbc.reliability;

import dev.agentmemory.testing.DiskScan;
import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ForgetMode;
import dev.agentmemory.core.ForgetTarget;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.engine.MemoryEngine.Messages;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.event.StoredMessage;
import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.core.spi.StoredSnapshot;
import dev.agentmemory.store.jdbc.JdbcStores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When a hard forget returns, no file under the store's folder holds the forgotten value in
 * UTF-8 or UTF-16 (either byte order), without anyone calling {@code compact()}; values not
 * forgotten are still there (the scan can see them).
 */
class HardForgetPurgeTest {

    private static final List<Charset> ENCODINGS = List.of(StandardCharsets.UTF_8, StandardCharsets.UTF_16LE,
            StandardCharsets.UTF_16BE);

    private final Caller alice = Caller.of("shop", "alice");

    @Test
    void should_leave_no_copy_of_a_hard_forgotten_value_in_any_file_when_forget_returns(@TempDir Path dir)
            throws IOException {
        String secret = "SECRET-card-4111-1111";
        String kept = "KEEP-profile-name";
        try (MemoryEngine engine = MemoryEngine.builder().store(JdbcStores.h2File(dir.resolve("mem"))).build()) {
            // given: the value written, rewritten around by other writes (each commit copies pages)
            engine.write(alice, Proposal.set(alice.persistent(), "card.number", secret).kind(Kind.DECISION).build());
            for (int i = 0; i < 30; i++) {
                engine.write(alice, Proposal.set(alice.persistent(), "note." + i, "note " + i).kind(Kind.DECISION).build());
            }
            engine.write(alice, Proposal.set(alice.persistent(), "profile.name", kept).kind(Kind.DECISION).build());
            engine.messages().change(alice, "s1", w -> new Messages.WindowChange(List.of(), List.of(
                    new StoredMessage(0, 0, "USER", "{\"text\":\"my card is " + secret + "\"}", "my card is " + secret))));
            assertThat(filesHolding(dir, secret)).as("control: the value is on disk before forgetting").isNotEmpty();

            // when: no compact() call
            engine.forget(alice, ForgetTarget.key(alice.persistent(), MemoryKey.of("card.number")), ForgetMode.HARD);

            // then: gone from every file while the store is open, and the rest is still readable
            assertThat(filesHolding(dir, secret)).as("files holding the value after forget returned").isEmpty();
            assertThat(engine.current(alice, alice.persistent(), MemoryKey.of("profile.name"))).isPresent();
        }
        assertThat(filesHolding(dir, secret)).as("files holding the value after close").isEmpty();
        assertThat(filesHolding(dir, kept)).as("control: a value not forgotten is found by the scan").isNotEmpty();
        try (MemoryEngine engine = MemoryEngine.builder().store(JdbcStores.h2File(dir.resolve("mem"))).build()) {
            assertThat(engine.admin().audit(alice, java.time.Duration.ofDays(1)).replayMatches()).isTrue();
        }
    }

    @Test
    void should_leave_no_copy_in_a_snapshot_either(@TempDir Path dir) throws IOException {
        String secret = "SECRET-card-4222-2222";
        EventStore store = JdbcStores.h2File(dir.resolve("mem"));
        try (MemoryEngine engine = MemoryEngine.builder().store(store).snapshotEvery(10).build()) {
            // given: a snapshot that holds the value (taken after it was written)
            engine.write(alice, Proposal.set(alice.persistent(), "card.number", secret).kind(Kind.DECISION).build());
            for (int i = 0; i < 25; i++) {
                engine.write(alice, Proposal.set(alice.persistent(), "note." + i, "note " + i).kind(Kind.DECISION).build());
            }
            assertThat(store.snapshot(new Partition("shop", "alice"))).as("control: a snapshot exists")
                    .get().extracting(StoredSnapshot::payload).asString().contains(secret);

            engine.forget(alice, ForgetTarget.key(alice.persistent(), MemoryKey.of("card.number")), ForgetMode.HARD);

            assertThat(filesHolding(dir, secret)).as("files holding the value after forget returned").isEmpty();
            // snapshots resume from the state after the forget
            for (int i = 0; i < 12; i++) {
                engine.write(alice, Proposal.set(alice.persistent(), "later." + i, "later " + i).kind(Kind.DECISION).build());
            }
            assertThat(store.snapshot(new Partition("shop", "alice"))).isPresent();
        }
        assertThat(filesHolding(dir, secret)).as("files holding the value after close").isEmpty();
        try (MemoryEngine engine = MemoryEngine.builder().store(JdbcStores.h2File(dir.resolve("mem"))).build()) {
            assertThat(engine.current(alice, alice.persistent(), MemoryKey.of("card.number"))).isEmpty();
            assertThat(engine.admin().audit(alice, java.time.Duration.ofDays(1)).replayMatches()).isTrue();
        }
    }

    /** Each file under {@code dir} that holds {@code text} in one of {@link #ENCODINGS}, with the encoding. */
    static List<String> filesHolding(Path dir, String text) throws IOException {
        List<String> hits = new ArrayList<>();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                byte[] bytes = Files.readAllBytes(f);
                for (Charset cs : ENCODINGS) {
                    if (DiskScan.indexOf(bytes, text.getBytes(cs)) >= 0) {
                        hits.add(f.getFileName() + " (" + cs + ")");
                    }
                }
            }
        }
        return hits;
    }
}

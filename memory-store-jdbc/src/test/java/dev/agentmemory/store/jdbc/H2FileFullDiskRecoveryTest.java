package dev.agentmemory.store.jdbc;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.MemoryException;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryValue;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.Scope;
import dev.agentmemory.core.StaleVersionException;
import dev.agentmemory.core.audit.AuditReport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 22, item 2: recovering from a full disk without restarting the process. The H2 file sits on
 * {@link FullDiskFileSystem}, whose writes fail with "No space left on device" once its free space
 * is used up, so H2's own code meets the full disk (its MVStore fails the write and H2 closes the
 * database). The application then closes its engine, space is freed, and a new engine on the same
 * file in the same JVM opens it, finds every acknowledged write, audits clean and writes on; the
 * folder holds the same files after {@code close()} as before, and no {@code .trace.db}.
 */
class H2FileFullDiskRecoveryTest {

    private static final Caller ALICE = Caller.of("shop", "alice");
    private static final Scope S1 = ALICE.session("s1");
    private static final String BIG = "x".repeat(2_000);

    @TempDir
    Path dir;

    @AfterEach
    void free_the_disk() {
        FullDiskFileSystem.freeEverything();
    }

    @Test
    void should_reopen_in_the_same_process_once_space_is_freed_after_a_write_hit_a_full_disk() throws IOException {
        // given: a store with some writes, on a disk with little room left
        Path file = dir.resolve("memory.mv.db");
        FullDiskFileSystem.freeEverything();
        MemoryEngine engine = open(file);
        List<String> acknowledged = new ArrayList<>();
        FullDiskFileSystem.freeBytes(200 << 10);

        // when: writing until the disk is full
        MemoryException full = writeUntilFull(engine, acknowledged);
        FullDiskFileSystem.freeEverything();
        engine.close();

        // then: the failure was clear, and close() let the file go and wrote nothing more
        assertThat(full).as("the disk filled up").isNotNull().isNotInstanceOf(StaleVersionException.class);
        assertThat(full.getMessage()).as(full.getMessage()).contains(file.toString())
                .containsIgnoringCase("No space left on device");
        assertThat(acknowledged).as("writes before the disk filled").hasSizeGreaterThan(3);
        Map<String, Long> afterClose = listing();
        assertThat(afterClose.keySet()).containsExactlyInAnyOrder("memory.mv.db", "memory.hwm", "memory.owner");

        // and: a new engine on the same file in this process has every acknowledged write, audits clean, writes on
        try (MemoryEngine reopened = open(file)) {
            assertAcknowledged(reopened, acknowledged);
            write(reopened, "after-recovery");
        }
        assertThat(listing().keySet()).containsExactlyInAnyOrder("memory.mv.db", "memory.hwm", "memory.owner");
        try (MemoryEngine again = MemoryEngine.builder().store(JdbcStores.h2File(file)).build()) {
            acknowledged.add("after-recovery");
            assertAcknowledged(again, acknowledged);
        }
    }

    @Test
    void should_release_the_file_when_closing_after_a_failed_write_fails_in_h2_itself() throws IOException {
        // given: a write failed on the full disk, and the disk is still full while the engine closes
        // (H2's SHUTDOWN, which writes the file's last chunk, fails too)
        Path file = dir.resolve("memory.mv.db");
        FullDiskFileSystem.freeEverything();
        MemoryEngine engine = open(file);
        List<String> acknowledged = new ArrayList<>();
        FullDiskFileSystem.freeBytes(120 << 10);
        assertThat(writeUntilFull(engine, acknowledged)).isNotNull();
        FullDiskFileSystem.failEveryWrite();

        // when
        engine.close();
        Map<String, Long> afterClose = listing();
        FullDiskFileSystem.freeEverything();

        // then: nothing was left behind, and the same process opens the file again
        assertThat(afterClose.keySet()).containsExactlyInAnyOrder("memory.mv.db", "memory.hwm", "memory.owner");
        try (MemoryEngine reopened = open(file)) {
            assertAcknowledged(reopened, acknowledged);
            write(reopened, "after-recovery");
        }
        assertThat(listing().keySet()).containsExactlyInAnyOrder("memory.mv.db", "memory.hwm", "memory.owner");
    }

    private static MemoryEngine open(Path file) {
        return MemoryEngine.builder().store(JdbcStores.h2File(file, FullDiskFileSystem.prefix())).build();
    }

    private static MemoryException writeUntilFull(MemoryEngine engine, List<String> acknowledged) {
        for (int i = 0; i < 10_000; i++) {
            try {
                write(engine, "k" + i);
                acknowledged.add("k" + i);
            } catch (MemoryException e) {
                return e;
            }
        }
        return null;
    }

    private static void write(MemoryEngine engine, String key) {
        engine.write(ALICE, Proposal.set(S1, MemoryKey.of(key), MemoryValue.of(BIG + key)).build());
    }

    private static void assertAcknowledged(MemoryEngine engine, List<String> keys) {
        for (String key : keys) {
            assertThat(engine.current(ALICE, S1, MemoryKey.of(key)).map(r -> r.value().text()))
                    .as("acknowledged %s", key).contains(BIG + key);
        }
        AuditReport audit = engine.admin().audit(ALICE, Duration.ofDays(365));
        assertThat(audit.consistent()).as(String.join("\n", audit.lines())).isTrue();
        assertThat(audit.lines()).as("the audit's findings").hasSize(1);
    }

    /** The folder's files and their sizes. */
    private Map<String, Long> listing() throws IOException {
        Map<String, Long> out = new TreeMap<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : files.toList()) {
                out.put(p.getFileName().toString(), Files.size(p));
            }
        }
        return out;
    }
}

package dev.agentmemory.store.jdbc.reliability;

import dev.agentmemory.core.MemoryException;
import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.core.spi.StoredEvent;
import dev.agentmemory.store.jdbc.JdbcStores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * One owner per H2 file: a second store on a file that is open, in this JVM or in another
 * process, is refused with an error naming the file, and the first owner keeps working.
 */
class SingleOwnerTest {

    private static final Partition ALICE = new Partition("shop", "alice");

    @TempDir
    Path dir;

    private static StoredEvent event(long seq, String payload) {
        return new StoredEvent(seq, Instant.parse("2024-10-15T10:00:00Z").plusSeconds(seq), "t", "a", "tr", payload);
    }

    @Test
    void should_refuse_a_second_store_on_the_same_file_in_this_jvm_and_keep_the_first_working() throws Exception {
        Path file = dir.resolve("events");
        Files.createDirectories(dir.resolve("sub"));
        Files.createSymbolicLink(dir.resolve("link"), dir);
        try (EventStore first = JdbcStores.h2File(file)) {
            first.append(ALICE, 0, List.of(event(1, "one")));

            // the same file by its name, with .mv.db, through "sub/..", and through a link to the folder
            for (Path same : List.of(file, dir.resolve("events.mv.db"), dir.resolve("sub/../events"),
                    dir.resolve("link").resolve("events"))) {
                assertThatThrownBy(() -> JdbcStores.h2File(same))
                        .as("second open through %s", same)
                        .isInstanceOf(MemoryException.class)
                        .hasMessageStartingWith("the H2 file ")
                        .hasMessageContaining("events.mv.db is in use by another store in this process;")
                        .hasMessageEndingWith(" close it there first");
            }

            // the refusals changed nothing for the owner
            first.append(ALICE, 1, List.of(event(2, "two")));
            assertThat(first.read(ALICE, 0)).extracting(StoredEvent::payload).containsExactly("one", "two");
        }

        // released on close
        try (EventStore again = JdbcStores.h2File(file)) {
            assertThat(again.read(ALICE, 0)).extracting(StoredEvent::payload).containsExactly("one", "two");
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void should_refuse_a_store_on_a_file_that_another_process_has_open() throws Exception {
        // given: the crash test's writer, in a child JVM, owning the file and writing to it
        Path db = dir.resolve("shared");
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-cp", CrashConsistencyTest.childClassPath(), CrashWriter.class.getName(),
                db.toString(), "1", "1", "1");
        pb.redirectError(dir.resolve("child.err").toFile());
        Process child = pb.start();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            String line = r.readLine();
            assertThat(line).as("child output (stderr: %s)", dir.resolve("child.err")).startsWith("READY");

            // then: refused after the lock wait, with the same kind of message as in one JVM
            // (a child that died meanwhile released the file: say so, with what it printed)
            assertThatThrownBy(() -> {
                EventStore opened = JdbcStores.h2File(db);
                opened.close();
                if (!child.isAlive()) {
                    throw new AssertionError("the owning child exited (code " + child.exitValue() + ") before the"
                            + " second open; its stderr: " + Files.readString(dir.resolve("child.err")));
                }
            })
                    .isInstanceOf(MemoryException.class)
                    .hasMessage("the H2 file " + db + ".mv.db is in use by another process (waited 5 s);"
                            + " close it there first");
            assertThat(child.isAlive()).isTrue();
            assertThat(r.readLine()).as("the owner still acknowledges writes").isNotNull();
        } finally {
            child.destroyForcibly();
            child.waitFor(30, TimeUnit.SECONDS);
        }

        // once the owner is gone, the file opens here
        try (EventStore store = JdbcStores.h2File(db)) {
            assertThat(store.partitions(CrashWriter.TENANT)).isNotEmpty();
        }
    }
}

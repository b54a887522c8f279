package dev.agentmemory.store.jdbc;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.MemoryException;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryValue;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.Scope;
import dev.agentmemory.core.audit.AuditReport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 22, item 3: an H2 file restored without its high-water mark ({@code .mv.db} copied alone,
 * whole, cut short or older) is refused with one line naming the file and how to accept it; opened
 * with {@link H2FileOption#ACCEPT_MISSING_HIGH_WATER_MARK} it serves what it holds, gets a fresh
 * mark, and every audit reports that it was opened without one. A new file and a file that never
 * committed a write open without any option.
 */
class MissingHighWaterMarkTest {

    private static final Caller ALICE = Caller.of("shop", "alice");
    private static final Scope S1 = ALICE.session("s1");
    private static final int WRITES = 6;

    @TempDir
    Path dir;

    private Path original;
    /** The original file after its first write: a whole, older copy of it. */
    private Path older;

    @BeforeEach
    void write_a_store() throws IOException {
        original = dir.resolve("original").resolve("memory");
        older = dir.resolve("older.mv.db");
        try (MemoryEngine engine = MemoryEngine.builder().store(JdbcStores.h2File(original)).build()) {
            for (int i = 1; i <= WRITES; i++) {
                engine.write(ALICE, Proposal.set(S1, MemoryKey.of("k" + i), MemoryValue.of("v" + i)).build());
                if (i == 1) {
                    Files.copy(mv(original), older); // the file is synced after each write
                }
            }
        }
        assertThat(hwm(original)).exists();
    }

    @Test
    void should_refuse_a_whole_file_copied_without_its_mark_naming_the_file_and_how_to_accept_it() throws IOException {
        Path copy = copyAlone("whole", mv(original));

        assertThatThrownBy(() -> JdbcStores.h2File(copy))
                .isInstanceOf(MemoryException.class)
                .hasMessage("the H2 file " + mv(copy) + " holds " + WRITES + " write transactions but has no high-water"
                        + " mark (" + hwm(copy) + " is missing or unreadable), so whether it lost writes cannot be"
                        + " checked: restore it with its .hwm, or open it as it is with"
                        + " H2FileOption.ACCEPT_MISSING_HIGH_WATER_MARK (AgentMemory: acceptMissingHighWaterMark(),"
                        + " agentmemory.h2.accept-missing-high-water-mark=true)");
        assertThat(hwm(copy)).doesNotExist();
        // refused again, and the file is released: the refusal holds nothing open
        assertThatThrownBy(() -> JdbcStores.h2File(copy)).hasMessageContaining("has no high-water mark");
    }

    @Test
    void should_refuse_an_older_or_cut_short_file_copied_without_its_mark() throws IOException {
        Path olderCopy = copyAlone("older", older);
        assertThatThrownBy(() -> JdbcStores.h2File(olderCopy))
                .isInstanceOf(MemoryException.class)
                .hasMessageStartingWith("the H2 file " + mv(olderCopy) + " holds 1 write transactions but has no"
                        + " high-water mark");

        // cut within what the writes after the first added: a file cut back to before its first
        // write holds an empty store, which nothing but the mark tells from a new one (where that
        // point falls depends on the schema's layout in the file)
        long size = Files.size(mv(original));
        long first = Files.size(older);
        for (double fraction : new double[] {0.9, 0.75, 0.5}) {
            Path cut = copyAlone("cut-" + fraction, mv(original));
            try (RandomAccessFile f = new RandomAccessFile(mv(cut).toFile(), "rw")) {
                f.setLength(first + (long) ((size - first) * fraction));
            }
            assertThatThrownBy(() -> JdbcStores.h2File(cut))
                    .as("cut at %s", fraction)
                    .isInstanceOf(MemoryException.class)
                    .hasMessageContaining(mv(cut).toString());
        }
    }

    @Test
    void should_open_a_file_without_its_mark_when_told_to_and_report_it_in_every_audit() throws IOException {
        Path copy = copyAlone("accepted", older);
        String finding = "store: the H2 file " + mv(copy) + " was opened without its high-water mark when it held 1"
                + " write transactions; completeness unverified (writes before then may have been lost)";

        try (MemoryEngine engine = MemoryEngine.builder()
                .store(JdbcStores.h2File(copy, H2FileOption.ACCEPT_MISSING_HIGH_WATER_MARK)).build()) {
            assertThat(value(engine, "k1")).isEqualTo("v1");
            assertThat(value(engine, "k2")).isNull();
            AuditReport audit = engine.admin().audit(ALICE, Duration.ofDays(365));
            assertThat(audit.consistent()).isTrue();
            assertThat(audit.lines()).contains(finding);
            engine.write(ALICE, Proposal.set(S1, MemoryKey.of("k7"), MemoryValue.of("v7")).build());
        }
        assertThat(hwm(copy)).exists();

        // the fresh mark lets it open without the option; the finding stays
        try (MemoryEngine engine = MemoryEngine.builder().store(JdbcStores.h2File(copy)).build()) {
            assertThat(value(engine, "k7")).isEqualTo("v7");
            assertThat(engine.admin().audit(ALICE, Duration.ofDays(365)).lines()).contains(finding);
        }
    }

    @Test
    void should_open_a_new_file_and_one_that_never_committed_a_write_and_give_each_a_mark() throws IOException {
        Path fresh = dir.resolve("fresh").resolve("memory");
        try (MemoryEngine engine = MemoryEngine.builder().store(JdbcStores.h2File(fresh)).build()) {
            assertThat(hwm(fresh)).as("a mark from the start").exists();
            assertThat(engine.admin().audit(ALICE, Duration.ofDays(1)).storeFindings()).isEmpty();
        }
        Files.delete(hwm(fresh));

        try (MemoryEngine engine = MemoryEngine.builder().store(JdbcStores.h2File(fresh)).build()) {
            engine.write(ALICE, Proposal.set(S1, MemoryKey.of("k"), MemoryValue.of("v")).build());
            assertThat(engine.admin().audit(ALICE, Duration.ofDays(1)).storeFindings()).isEmpty();
        }
        assertThat(hwm(fresh)).exists();
    }

    private Path copyAlone(String name, Path mvFile) throws IOException {
        Path copy = dir.resolve(name).resolve("memory");
        Files.createDirectories(copy.getParent());
        Files.copy(mvFile, mv(copy));
        return copy;
    }

    private static String value(MemoryEngine engine, String key) {
        return engine.current(ALICE, S1, MemoryKey.of(key)).map(r -> r.value().text()).orElse(null);
    }

    private static Path mv(Path prefix) {
        return prefix.resolveSibling(prefix.getFileName() + ".mv.db");
    }

    private static Path hwm(Path prefix) {
        return prefix.resolveSibling(prefix.getFileName() + ".hwm");
    }
}

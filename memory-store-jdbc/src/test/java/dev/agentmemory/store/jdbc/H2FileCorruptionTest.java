package dev.agentmemory.store.jdbc;

import dev.agentmemory.core.MemoryException;
import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.core.spi.StoredEvent;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

/**
 * An H2 file that lost or changed bytes is never served as if it were the file the store wrote:
 * each damaged copy either fails to open with an error naming the file, or serves the partitions
 * it can verify exactly as written and refuses the others with an error naming the file.
 */
class H2FileCorruptionTest {

    private static final String TENANT = "shop";
    private static final List<String> USERS = List.of("alice", "bob", "carol");
    private static final int APPENDS = 12;
    private static final Instant T0 = Instant.parse("2024-10-15T10:00:00Z");

    @TempDir
    Path dir;

    private Path original;
    private final Map<Partition, List<StoredEvent>> written = new LinkedHashMap<>();

    @BeforeEach
    void write_a_store() {
        original = dir.resolve("original");
        try (EventStore store = JdbcStores.h2File(original.resolve("events"))) {
            for (int i = 1; i <= APPENDS; i++) {
                for (String user : USERS) {
                    Partition p = new Partition(TENANT, user);
                    StoredEvent e = new StoredEvent(i, T0.plusSeconds(i), "record-written", "assistant", "t-" + i,
                            "{\"value\":\"value-" + user + "-" + i + "-" + "x".repeat(40) + "\"}");
                    store.append(p, i - 1, List.of(e));
                    written.computeIfAbsent(p, k -> new ArrayList<>()).add(e);
                }
            }
        }
    }

    @Test
    void should_refuse_an_empty_file_instead_of_opening_it_as_a_new_database() throws IOException {
        Path copy = copyOfOriginal("empty");
        Files.write(mvFile(copy), new byte[0]);

        assertThatThrownBy(() -> JdbcStores.h2File(copy.resolve("events")))
                .isInstanceOf(MemoryException.class)
                .hasMessageContaining(mvFile(copy).toString())
                .hasMessageContaining("is empty (0 bytes)");
        assertThat(Files.size(mvFile(copy))).isZero();
    }

    @Test
    void should_refuse_a_file_that_holds_only_its_header() throws IOException {
        for (int headerBytes : new int[] {4096, 8192}) {
            Path copy = copyOfOriginal("header-" + headerBytes);
            truncate(mvFile(copy), headerBytes);

            assertThatThrownBy(() -> JdbcStores.h2File(copy.resolve("events")))
                    .isInstanceOf(MemoryException.class)
                    .hasMessageContaining(mvFile(copy).toString());
        }
    }

    @Test
    void should_refuse_or_verify_a_file_truncated_at_several_offsets() throws IOException {
        long size = Files.size(mvFile(original));
        for (double fraction : new double[] {0.97, 0.9, 0.75, 0.5, 0.25, 0.1}) {
            long at = (long) (size * fraction);
            Path copy = copyOfOriginal("cut-" + at);
            truncate(mvFile(copy), at);

            assertRefusedOrVerified(copy, "truncated at " + at + " of " + size);
        }
    }

    @Test
    void should_refuse_a_file_cut_back_to_an_older_version_of_itself() throws IOException {
        // given: the file as it was before its last writes (a consistent older version), with today's mark
        Path older = dir.resolve("older");
        try (EventStore store = JdbcStores.h2File(older.resolve("events"))) {
            store.append(new Partition(TENANT, "alice"), 0, List.of(written.get(new Partition(TENANT, "alice")).get(0)));
        }
        Path copy = copyOfOriginal("rolled-back");
        Files.copy(mvFile(older), mvFile(copy), java.nio.file.StandardCopyOption.REPLACE_EXISTING);

        // then
        assertThatThrownBy(() -> JdbcStores.h2File(copy.resolve("events")))
                .isInstanceOf(MemoryException.class)
                .hasMessageContaining(mvFile(copy).toString())
                .hasMessageContaining("has lost writes it had acknowledged")
                .hasMessageContaining("holds 1 write transactions")
                .hasMessageContaining("records " + APPENDS * USERS.size());
    }

    @Test
    void should_refuse_the_partition_whose_payload_has_a_flipped_byte_and_serve_the_others() throws IOException {
        Path copy = copyOfOriginal("payload");
        int flipped = flipEvery(mvFile(copy), "value-bob-7-", 8);
        assertThat(flipped).isPositive();

        try (EventStore store = JdbcStores.h2File(copy.resolve("events"))) {
            assertThatThrownBy(() -> store.read(new Partition(TENANT, "bob"), 0))
                    .isInstanceOf(MemoryException.class)
                    .hasMessageContaining(mvFile(copy).toString())
                    .hasMessageContaining("partition shop/bob is damaged at seq 7: its checksum does not match");
            assertThat(store.read(new Partition(TENANT, "alice"), 0)).isEqualTo(written.get(new Partition(TENANT, "alice")));
            assertThat(store.read(new Partition(TENANT, "carol"), 0)).isEqualTo(written.get(new Partition(TENANT, "carol")));
        }
    }

    @Test
    void should_refuse_or_verify_a_file_with_a_flipped_byte_in_a_sequence_number() throws IOException {
        // the row's sequence sits between its user id and its time: "carol" <seq> "2024-10-15T10:00:05Z"
        Path copy = copyOfOriginal("seq");
        byte[] bytes = Files.readAllBytes(mvFile(copy));
        byte[] user = "carol".getBytes(StandardCharsets.UTF_8);
        byte[] time = T0.plusSeconds(5).toString().getBytes(StandardCharsets.UTF_8);
        int flipped = 0;
        for (int i = 0; i + user.length + 8 + time.length < bytes.length; i++) {
            if (!startsWith(bytes, i, user)) {
                continue;
            }
            for (int gap = 1; gap <= 4; gap++) {
                if (startsWith(bytes, i + user.length + gap, time)) {
                    bytes[i + user.length + gap - 1] ^= 0x02; // the last byte of the sequence's encoding
                    flipped++;
                }
            }
        }
        assertThat(flipped).isPositive();
        Files.write(mvFile(copy), bytes);

        assertRefusedOrVerified(copy, "sequence flipped");
    }

    @Test
    void should_refuse_or_verify_a_file_with_flipped_bytes_in_its_page_structure() throws IOException {
        // H2's chunk headers ("chunk:...") and page headers around them
        Path copy = copyOfOriginal("pages");
        int flipped = flipEvery(mvFile(copy), "chunk:", 3);
        assertThat(flipped).isPositive();

        assertRefusedOrVerified(copy, "chunk headers flipped");
    }

    @Test
    void should_never_serve_other_data_when_any_single_byte_is_flipped() throws IOException {
        long size = Files.size(mvFile(original));
        Random random = new Random(15);
        for (int i = 0; i < 40; i++) {
            long at = (long) (random.nextDouble() * size);
            Path copy = copyOfOriginal("flip-" + i);
            try (RandomAccessFile f = new RandomAccessFile(mvFile(copy).toFile(), "rw")) {
                f.seek(at);
                int b = f.read();
                f.seek(at);
                f.write(b ^ (1 << random.nextInt(8)));
            }

            assertRefusedOrVerified(copy, "byte " + at + " of " + size + " flipped");
        }
    }

    @Test
    void should_name_the_partition_and_sequence_when_a_stored_time_cannot_be_parsed() throws Exception {
        // given: a row whose time and checksum were both replaced with something that is not an instant
        Path copy = copyOfOriginal("bad-time");
        try (EventStore store = JdbcStores.h2File(copy.resolve("events"))) {
            store.append(new Partition(TENANT, "dave"), 0, List.of(new StoredEvent(1, T0, "t", "a", "tr", "p")));
        }
        Partition dave = new Partition(TENANT, "dave");
        long hash = EventDigest.event(dave, 1, "yesterday", "t", "a", "tr", "p");
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(
                "jdbc:h2:file:" + copy.resolve("events") + ";WRITE_DELAY=0", "sa", "");
             java.sql.Statement st = c.createStatement()) {
            st.execute("UPDATE memory_events SET at_time = 'yesterday', event_hash = " + hash + ", chain_hash = "
                    + EventDigest.chain(0, hash) + " WHERE user_id = 'dave'");
            st.execute("UPDATE memory_heads SET chain_head = " + EventDigest.chain(0, hash) + " WHERE user_id = 'dave'");
            st.execute("SHUTDOWN");
        }

        try (EventStore store = JdbcStores.h2File(copy.resolve("events"))) {
            assertThatThrownBy(() -> store.read(dave, 0))
                    .isInstanceOf(MemoryException.class)
                    .hasMessageStartingWith("store " + mvFile(copy) + ": partition shop/dave seq 1: stored time 'yesterday'"
                            + " is not an instant")
                    .hasCauseInstanceOf(java.time.format.DateTimeParseException.class);
        }
    }

    /**
     * The copy either fails to open with an error naming its file, or each partition reads exactly
     * as written or fails with an error naming the file; nothing else.
     */
    private void assertRefusedOrVerified(Path copy, String damage) {
        String file = mvFile(copy).toString();
        EventStore store;
        try {
            store = JdbcStores.h2File(copy.resolve("events"));
        } catch (MemoryException e) {
            assertThat(e.getMessage()).as("open of a file with %s", damage).contains(file);
            return;
        } catch (RuntimeException e) {
            throw new AssertionError("open of a file with " + damage + " failed without naming it: " + e, e);
        }
        try (store) {
            List<Partition> listed;
            try {
                listed = store.partitions(TENANT);
            } catch (MemoryException e) {
                assertThat(e.getMessage()).as("listing a file with %s", damage).contains(file);
                return;
            }
            for (Map.Entry<Partition, List<StoredEvent>> p : written.entrySet()) {
                List<StoredEvent> read;
                try {
                    read = store.read(p.getKey(), 0);
                } catch (MemoryException e) {
                    assertThat(e.getMessage()).as("reading %s of a file with %s", p.getKey(), damage).contains(file);
                    continue;
                } catch (RuntimeException e) {
                    throw new AssertionError("reading " + p.getKey() + " of a file with " + damage
                            + " failed without naming it: " + e, e);
                }
                if (!read.equals(p.getValue())) {
                    fail("a file with " + damage + " served other data for " + p.getKey() + ": " + read);
                }
                if (!listed.contains(p.getKey())) {
                    fail("a file with " + damage + " does not list " + p.getKey() + " but serves it");
                }
            }
            for (Partition p : listed) {
                if (!written.containsKey(p)) {
                    try {
                        List<StoredEvent> read = store.read(p, 0);
                        fail("a file with " + damage + " serves a partition never written: " + p + " " + read);
                    } catch (MemoryException e) {
                        assertThat(e.getMessage()).contains(file);
                    }
                }
            }
        }
    }

    private Path copyOfOriginal(String name) throws IOException {
        Path copy = dir.resolve(name);
        Files.createDirectories(copy);
        try (var files = Files.list(original)) {
            for (Path f : files.toList()) {
                Files.copy(f, copy.resolve(f.getFileName()));
            }
        }
        return copy;
    }

    private static Path mvFile(Path folder) {
        return folder.resolve("events.mv.db");
    }

    private static void truncate(Path file, long size) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(size);
        }
    }

    /** Flips one bit of the byte {@code offset} bytes into every occurrence of {@code text}; returns how many. */
    private static int flipEvery(Path file, String text, int offset) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        byte[] needle = text.getBytes(StandardCharsets.UTF_8);
        int count = 0;
        for (int i = 0; i + needle.length <= bytes.length; i++) {
            if (startsWith(bytes, i, needle)) {
                bytes[i + offset] ^= 0x04;
                count++;
            }
        }
        Files.write(file, bytes);
        return count;
    }

    private static boolean startsWith(byte[] bytes, int at, byte[] prefix) {
        if (at < 0 || at + prefix.length > bytes.length) {
            return false;
        }
        for (int j = 0; j < prefix.length; j++) {
            if (bytes[at + j] != prefix[j]) {
                return false;
            }
        }
        return true;
    }
}

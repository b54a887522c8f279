package dev.agentmemory.store.jdbc;

import dev.agentmemory.core.MemoryException;
import dev.agentmemory.core.StaleVersionException;
import dev.agentmemory.core.spi.EventStore;

import javax.sql.DataSource;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Opens an {@link EventStore} on a relational database through JDBC: an embedded H2 file (the
 * default of {@code AgentMemory.builder().h2File(path)}), an in-memory H2 database, a database
 * server such as PostgreSQL through a pool the store opens, or a {@link DataSource} the
 * application owns. Pass the store to {@code MemoryEngine.builder().store(...)}.
 *
 * <pre>{@code
 * MemoryEngine engine = MemoryEngine.builder().store(JdbcStores.h2File(Path.of("data/memory"))).build();
 * }</pre>
 *
 * <p>Every store keeps the same schema (created or migrated when it opens) and checks what it
 * reads: each row carries a checksum and the value of a hash chain over its partition's log, and
 * a partition whose log does not match is refused (a {@link MemoryException} naming the store,
 * the partition, the sequence and what is wrong) while the others stay readable. What differs per
 * database (type names, DDL, how a key conflict is reported) is chosen from the driver's product
 * name. Every store is thread-safe.
 */
public final class JdbcStores {

    /** Files are compacted automatically once they have grown past this size (see {@link #h2File(Path)}). */
    static final long DEFAULT_AUTO_COMPACT_MIN_BYTES = 64L << 20;

    private JdbcStores() {
    }

    /**
     * An embedded H2 database in {@code file} (H2 adds {@code .mv.db}); created when missing.
     * Every append is on the disk (written and fsynced) before it returns, and survives a killed
     * process. H2 never reuses freed space in the file here (reusing it lost acknowledged appends
     * in the kill test), so the file is compacted automatically once it has grown past 64 MiB and
     * four times its size after the last compaction; calls wait while that runs.
     *
     * <p>One store per file: while this store is open, another {@code h2File} on the same file
     * (in this JVM, or through another path to it) is refused with a {@link MemoryException}, as
     * a second process is (after waiting 5 s for its lock); share this store instead.
     * {@link EventStore#close()} releases the file. The store also keeps a high-water mark beside
     * the file ({@code <name>.hwm}: the count of its write transactions, synced after each commit,
     * so that a file cut short or replaced by an older copy is refused at open), and holds an
     * operating-system lock on {@code <name>.owner} while open, so that no other process opens the
     * file, not even while H2 compacts it. A file that has committed writes but no mark (its
     * {@code .mv.db} copied or restored alone) is refused too, unless opened with
     * {@link H2FileOption#ACCEPT_MISSING_HIGH_WATER_MARK}. An existing file that is empty or holds
     * no memory schema is refused rather than treated as a new database.
     *
     * @throws MemoryException when the file is in use, empty, not a memory database, damaged,
     *         or has lost writes it had acknowledged
     */
    public static EventStore h2File(Path file) {
        return h2File(file, DEFAULT_AUTO_COMPACT_MIN_BYTES);
    }

    /**
     * As {@link #h2File(Path)}, with {@code options}: {@link H2FileOption#ACCEPT_MISSING_HIGH_WATER_MARK}
     * opens a file restored without its {@code .hwm} (refused otherwise), and records that it did:
     * every audit then reports that its completeness is unverified.
     */
    public static EventStore h2File(Path file, H2FileOption... options) {
        Objects.requireNonNull(file, "file");
        boolean accept = false;
        for (H2FileOption option : Objects.requireNonNull(options, "options")) {
            accept |= Objects.requireNonNull(option, "option") == H2FileOption.ACCEPT_MISSING_HIGH_WATER_MARK;
        }
        return JdbcEventStore.onH2(H2Database.file(file, DEFAULT_AUTO_COMPACT_MIN_BYTES), accept);
    }

    /** As {@link #h2File(Path)}, compacting once the file exceeds {@code autoCompactMinBytes} (tests). */
    static EventStore h2File(Path file, long autoCompactMinBytes) {
        Objects.requireNonNull(file, "file");
        return JdbcEventStore.onH2(H2Database.file(file, autoCompactMinBytes), false);
    }

    /** As {@link #h2File(Path)}, through H2's file system {@code fileSystem} (tests: one that fills up). */
    static EventStore h2File(Path file, String fileSystem) {
        Objects.requireNonNull(file, "file");
        return JdbcEventStore.onH2(H2Database.file(file, DEFAULT_AUTO_COMPACT_MIN_BYTES, fileSystem), false);
    }

    /**
     * A named in-memory H2 database that lives until this store is closed.
     *
     * @throws IllegalArgumentException when {@code name} is not 1-64 letters, digits, {@code _} or {@code -}
     */
    public static EventStore h2InMemory(String name) {
        Objects.requireNonNull(name, "name");
        if (!name.matches("[A-Za-z0-9_-]{1,64}")) {
            throw new IllegalArgumentException("database name must be 1-64 letters, digits, _ or -: " + name);
        }
        return JdbcEventStore.onH2(H2Database.inMemory(name), false);
    }

    /**
     * A store on the database server at {@code url} (PostgreSQL 15 or later:
     * {@code jdbc:postgresql://host:5432/db}; the application adds the driver,
     * {@code org.postgresql:postgresql}), through a pool of {@link JdbcSettings#DEFAULT_POOL_SIZE}
     * connections that the store opens and closes. See {@link #connect(JdbcSettings)}.
     */
    public static EventStore connect(String url, String user, String password) {
        return connect(JdbcSettings.of(url, user, password));
    }

    /**
     * A store on a database server through a HikariCP pool it opens (and closes with the store).
     * The schema is created or migrated now, one starting instance at a time. An acknowledged
     * append is committed, and on PostgreSQL durable (its default {@code synchronous_commit =
     * on}); a batch is one transaction; two instances appending the same sequence of one user
     * cannot both succeed (the primary key refuses the second, which fails with
     * {@link StaleVersionException}). Errors and {@code toString()} name the URL without password.
     *
     * @throws MemoryException when the server cannot be reached, refuses the login, or holds a
     *                         newer schema
     */
    public static EventStore connect(JdbcSettings settings) {
        Objects.requireNonNull(settings, "settings");
        return JdbcEventStore.onServer(PooledDatabase.open(settings));
    }

    /**
     * A store in the database of a {@link DataSource} the application owns (e.g. its own pool):
     * the store only borrows connections, and closing it leaves the data source open.
     */
    public static EventStore dataSource(DataSource dataSource) {
        return JdbcEventStore.onDataSource(Objects.requireNonNull(dataSource, "dataSource"));
    }
}

package dev.agentmemory.store.jdbc;

import dev.agentmemory.core.MemoryException;
import org.h2.jdbcx.JdbcConnectionPool;
import org.jspecify.annotations.Nullable;

import javax.sql.DataSource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.nio.channels.FileChannel;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * An embedded H2 database that {@link JdbcEventStore} opened and owns: a connection pool, and for
 * a file the lock wait at open, one writer at a time, a synced checkpoint after each commit,
 * compaction by copying the file, and {@code SHUTDOWN} at close so the file's lock is released.
 */
final class H2Database implements Database {

    /** H2's "database may be already in use": the file is locked by another process. */
    private static final int H2_FILE_LOCKED = 90020;
    private static final long LOCK_WAIT_MILLIS = 5_000;

    /**
     * The {@code .mv.db} files open in this JVM, by canonical path. H2 shares one database among
     * all connections of a JVM to the same file, so a second store on it would not see the first
     * one's cached state, and closing either would close both: a second open is refused instead,
     * the way another process is refused by the file lock.
     */
    private static final Set<Path> OPEN_FILES = ConcurrentHashMap.newKeySet();

    private volatile String url;
    /** H2's file system prefix of the URL: {@code file:}, or a test's wrapper around it. */
    private final String fileSystem;
    /** The {@code .mv.db} file, or null for an in-memory database. */
    private final @Nullable Path file;
    /** The key of {@link #file} in {@link #OPEN_FILES}. */
    private final @Nullable Path owned;
    /** Where a new file is built until its schema is in place; null when the file existed. */
    private final @Nullable Path creating;
    private final @Nullable HighWaterMark mark;
    /** Keeps other processes out of the file while it is open, compactions included. */
    private final @Nullable ProcessLock processLock;
    private volatile JdbcConnectionPool pool;
    /**
     * On an H2 file, one write transaction at a time. H2's MVStore skips a commit's store when
     * another thread's store moved the version meanwhile, taking it to include this commit; under
     * concurrent appends an acknowledged append then went missing after a kill, about one
     * CrashConsistencyTest run in five, even with {@code CHECKPOINT SYNC}. The fsync that every
     * append waits for is serial anyway, so this costs little.
     */
    private final ReentrantLock fileWrites = new ReentrantLock();
    /**
     * On an H2 file: every database call holds the read side; compaction, which closes and
     * reopens the database, holds the write side, so no call sees the pool being swapped.
     */
    private final ReentrantReadWriteLock gate = new ReentrantReadWriteLock();
    /** Compact automatically once the file exceeds this and four times its size after the last compaction. */
    private final long autoCompactMinBytes;
    private volatile long compactedBytes;
    private final AtomicLong appendsSinceSizeCheck = new AtomicLong();
    private volatile boolean closed;

    private H2Database(String url, String fileSystem, @Nullable Path file, @Nullable Path owned, @Nullable Path creating,
                       long autoCompactMinBytes, @Nullable ProcessLock processLock) {
        this.processLock = processLock;
        this.fileSystem = fileSystem;
        this.url = url;
        this.file = file;
        this.owned = owned;
        this.creating = creating;
        this.mark = file == null ? null : HighWaterMark.beside(file);
        this.autoCompactMinBytes = autoCompactMinBytes;
        this.pool = openPool();
        awaitFileLock();
    }

    /**
     * The database in {@code file} ({@code .mv.db} added when missing), created when missing,
     * with every commit synced to the disk and freed space never reused.
     */
    static H2Database file(Path file, long autoCompactMinBytes) {
        return file(file, autoCompactMinBytes, "file:");
    }

    /**
     * As {@link #file(Path, long)}, through H2's file system {@code fileSystem} (a prefix such as
     * {@code file:}; tests register a wrapper of their own that fails writes like a full disk).
     */
    static H2Database file(Path file, long autoCompactMinBytes, String fileSystem) {
        String path = file.toAbsolutePath().toString();
        if (path.endsWith(".mv.db")) {
            path = path.substring(0, path.length() - ".mv.db".length());
        }
        Path mvFile = Path.of(path + ".mv.db");
        Path owned = canonical(mvFile);
        if (!OPEN_FILES.add(owned)) {
            throw new MemoryException("the H2 file " + mvFile + " is in use by another store in this process;"
                    + " close it there first");
        }
        ProcessLock processLock;
        try {
            processLock = ProcessLock.acquire(Path.of(path + ".owner"), LOCK_WAIT_MILLIS, mvFile);
        } catch (RuntimeException e) {
            OPEN_FILES.remove(owned);
            throw e;
        }
        try {
            Path creating = null;
            String base = path;
            if (Files.exists(mvFile)) {
                long size = Files.size(mvFile);
                if (size == 0) {
                    throw new MemoryException("the H2 file " + mvFile + " is empty (0 bytes): it lost its contents or"
                            + " was never a memory database; refusing to open it as a new one (delete it to start afresh)");
                }
            } else {
                // Built under another name and moved into place once its schema is committed, so
                // that a file under the real name always holds a whole schema: a process killed
                // while creating leaves no half-made file that a restart would have to guess about.
                base = path + ".creating";
                creating = Path.of(base + ".mv.db");
                Files.deleteIfExists(creating);
            }
            return new H2Database(url(fileSystem, base), fileSystem, mvFile, owned, creating, autoCompactMinBytes, processLock);
        } catch (IOException e) {
            processLock.release();
            OPEN_FILES.remove(owned);
            throw new MemoryException("cannot open the H2 file " + mvFile + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            processLock.release();
            OPEN_FILES.remove(owned);
            throw e;
        }
    }

    /**
     * {@code TRACE_LEVEL_FILE=0}: H2 writes no {@code <name>.trace.db} beside the file (it did on a
     * failed write, and at every close after one); every error reaches the caller as an exception.
     */
    private static String url(String fileSystem, String base) {
        return "jdbc:h2:" + fileSystem + base
                + ";WRITE_DELAY=0;REUSE_SPACE=FALSE;DB_CLOSE_ON_EXIT=FALSE;TRACE_LEVEL_FILE=0";
    }

    /** The real path of {@code mvFile}'s folder (links resolved) with its name; as given when the folder is missing. */
    private static Path canonical(Path mvFile) {
        Path abs = mvFile.toAbsolutePath().normalize();
        try {
            return Objects.requireNonNull(abs.getParent(), "a file lies in a folder").toRealPath().resolve(abs.getFileName());
        } catch (IOException e) {
            return abs;
        }
    }

    /** A named in-memory database that lives until {@link #close()}. */
    static H2Database inMemory(String name) {
        return new H2Database("jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1", "mem:", null, null, null, Long.MAX_VALUE, null);
    }

    /**
     * Called once the schema is in place: a new file moves to its real name now. Closes the
     * database when that fails.
     */
    void opened() {
        if (creating != null) {
            try {
                shutdown();
                pool.dispose();
                mark().delete(); // left by a file of this name that was deleted
                Files.move(creating, file, StandardCopyOption.ATOMIC_MOVE);
                syncFolder(Objects.requireNonNull(file().getParent(), "a file lies in a folder"));
            } catch (IOException | SQLException e) {
                close();
                throw new MemoryException("cannot create the H2 file " + file + ": " + e.getMessage(), e);
            }
            url = url(fileSystem, file().toString().substring(0, file().toString().length() - ".mv.db".length()));
            pool = openPool();
            holdOpen();
        }
        this.compactedBytes = isFile() ? fileSize() : 0;
    }

    /** The {@code .mv.db} file; only for a file database (see {@link #isFile()}). */
    private Path file() {
        return Objects.requireNonNull(file, "not an H2 file database");
    }

    /** The high-water mark beside the file; only for a file database. */
    private HighWaterMark mark() {
        return Objects.requireNonNull(mark, "not an H2 file database");
    }

    private static void syncFolder(Path folder) {
        try (FileChannel ch = FileChannel.open(folder, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException e) {
            // not every platform can sync a folder; the move itself is atomic
        }
    }

    private void shutdown() throws SQLException {
        shutdown("SHUTDOWN");
    }

    private void shutdown(String command) throws SQLException {
        try (Connection c = DriverManager.getConnection(url, "sa", ""); Statement st = c.createStatement()) {
            st.execute(command);
        }
    }

    @Override
    public String name() {
        return file != null ? file.toString() : url.substring(0, url.indexOf(';'));
    }

    @Override
    public boolean keepsHighWaterMark() {
        return isFile();
    }

    @Override
    public long highWaterMark() {
        return mark == null ? 0 : mark.read();
    }

    /** The high-water mark beside the file; empty when it is missing or unreadable. */
    java.util.OptionalLong findHighWaterMark() {
        return mark().find();
    }

    /** Writes {@code writes} as the high-water mark beside the file, synced. */
    void writeHighWaterMark(long writes) {
        mark().write(writes);
    }

    /** The path of the high-water mark beside the file, for messages. */
    Path highWaterMarkPath() {
        return mark().path();
    }

    @Override
    public boolean mustHoldSchema() {
        return isFile() && creating == null;
    }

    /** An embedded database is this store's alone: a second owner of the file is refused. */
    @Override
    public boolean sharedWithOtherWriters() {
        return false;
    }

    private JdbcConnectionPool openPool() {
        JdbcConnectionPool p = JdbcConnectionPool.create(url, "sa", "");
        p.setMaxConnections(16);
        return p;
    }

    /**
     * Opens the database now, with a connection left in the pool, so that the file's lock is held
     * from here on (the pool connects lazily; until then another process could take the file).
     */
    private void holdOpen() {
        try (Connection c = pool.getConnection()) {
            // returned to the pool, which keeps it open
        } catch (SQLException e) {
            throw new MemoryException("cannot open the H2 file " + file + ": " + e.getMessage(), e);
        }
    }

    private boolean isFile() {
        return file != null;
    }

    /**
     * Waits up to {@link #LOCK_WAIT_MILLIS} for another process to release an H2 file; a process
     * restarted right after the previous one was killed can find the lock not yet released (the
     * kill test saw this about once in a hundred restarts).
     *
     * @throws MemoryException when the file is still locked after that
     */
    private void awaitFileLock() {
        if (!isFile()) {
            return;
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(LOCK_WAIT_MILLIS);
        while (true) {
            try (Connection c = pool.getConnection()) {
                return;
            } catch (SQLException e) {
                if (e.getErrorCode() != H2_FILE_LOCKED) {
                    return;
                }
                if (System.nanoTime() > deadline) {
                    pool.dispose();
                    OPEN_FILES.remove(owned);
                    throw new MemoryException("the H2 file " + file + " is in use by another process (waited "
                            + LOCK_WAIT_MILLIS / 1000 + " s); close it there first", e);
                }
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    @Override
    public DataSource dataSource() {
        return pool;
    }

    @Override
    public Held reading() {
        if (!isFile()) {
            return () -> { };
        }
        gate.readLock().lock();
        return () -> gate.readLock().unlock();
    }

    @Override
    public Held writing() {
        if (!isFile()) {
            return () -> { };
        }
        Held read = reading();
        fileWrites.lock();
        return () -> {
            fileWrites.unlock();
            read.close();
        };
    }

    /**
     * For an embedded H2 file: makes the committed change durable before the append returns
     * ({@code CHECKPOINT SYNC} waits for the write and syncs the file). Without it, H2 may still
     * be writing the last commit from a background thread when the process is killed, and an
     * acknowledged append is lost (CrashConsistencyTest caught this). Costs one sync per append;
     * batch proposals to amortise it. A plain {@code CHECKPOINT} does not wait for that write:
     * the same test lost acknowledged appends with it, even with checkpoints serialised.
     */
    @Override
    public void afterCommit(Connection c, long writes) throws SQLException {
        if (!isFile()) {
            return;
        }
        try (Statement st = c.createStatement()) {
            st.execute("CHECKPOINT SYNC");
        }
        mark().write(writes);
    }

    /** Checks the file's size every 256 appends and compacts it once it has grown too much. */
    @Override
    public void afterAppend() {
        if (!isFile() || appendsSinceSizeCheck.incrementAndGet() % 256 != 0) {
            return;
        }
        long size = fileSize();
        if (size > autoCompactMinBytes && size > 4 * compactedBytes) {
            compact();
        }
    }

    private long fileSize() {
        try {
            return Files.size(file);
        } catch (IOException e) {
            return 0;
        }
    }

    /**
     * For an embedded H2 file: closes the database, copies its live data into a fresh,
     * uncompressed file (so purged bytes leave it, and a byte scan of the file can prove it), then
     * reopens it. No-op in memory.
     */
    @Override
    public synchronized void compact() {
        if (!isFile()) {
            return;
        }
        gate.writeLock().lock();
        try {
            compactClosed();
        } finally {
            gate.writeLock().unlock();
        }
    }

    private void compactClosed() {
        pool.dispose();
        try {
            shutdown();
        } catch (SQLException e) {
            throw new MemoryException("cannot close the H2 file " + file + " for compaction: " + e.getMessage(), e);
        }
        // Copy the live data into a fresh file, uncompressed: SHUTDOWN COMPACT compresses every
        // page, which hides from a byte scan whether a purged value is really gone.
        String path = file().toString();
        try {
            org.h2.mvstore.MVStoreTool.compact(fileSystem + path, false);
        } catch (RuntimeException e) {
            throw new MemoryException("cannot compact the H2 database " + path + ": " + e.getMessage(), e);
        }
        pool = openPool();
        holdOpen();
        compactedBytes = fileSize();
    }

    /**
     * Closes the database and lets the file go, on every path: whatever fails on the way (H2's
     * {@code SHUTDOWN} after a full disk, an error of H2's own), the OS lock on {@code .owner}
     * and this JVM's registration of the file are released before this returns, so a new store
     * can open the file in this process once the cause is fixed. Never throws.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            closeDatabase();
        } finally {
            try {
                if (mark != null) {
                    mark.close();
                }
                if (creating != null) {
                    Files.deleteIfExists(creating);
                }
            } catch (IOException | RuntimeException e) {
                // a leftover creating file is deleted at the next creation
            } finally {
                if (processLock != null) {
                    processLock.release();
                }
                if (owned != null) {
                    OPEN_FILES.remove(owned);
                }
            }
        }
    }

    /**
     * {@code SHUTDOWN} closes the database now, even if a connection is still out, so that the
     * file's lock is released when close() returns and another process can open it. It runs on a
     * connection of its own: a pooled one would try to roll back on its way back to the closed
     * database. When it fails (a full disk: H2 writes the file's last chunk as it closes),
     * {@code SHUTDOWN IMMEDIATELY} closes the database without writing, as a killed process would
     * leave it: nothing uncommitted was acknowledged, and the next open recovers the last commit.
     */
    private void closeDatabase() {
        try {
            shutdown("SHUTDOWN");
        } catch (SQLException | RuntimeException e) {
            try {
                shutdown("SHUTDOWN IMMEDIATELY");
            } catch (SQLException | RuntimeException again) {
                // the database is gone already (H2 closed it when a write failed)
            }
        } finally {
            try {
                pool.dispose();
            } catch (RuntimeException e) {
                // its connections are to the closed database
            }
        }
    }
}

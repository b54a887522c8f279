package dev.agentmemory.store.jdbc;

import dev.agentmemory.core.MemoryException;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;

/**
 * An exclusive operating-system lock on a file of its own beside an H2 database ({@code
 * <name>.owner}), held for as long as the store is open: H2's own lock on the database file is
 * let go while the store compacts it (H2 closes the database to do so), and this one is not, so
 * no other process opens the file in that moment either. Released when the store closes, or by
 * the operating system when the process dies.
 */
final class ProcessLock {

    private final FileChannel channel;
    private final FileLock lock;

    private ProcessLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Takes the lock on {@code lockFile}, waiting up to {@code waitMillis} for another process to
     * let it go (a process restarted right after a kill can find it still held for a moment).
     *
     * @throws MemoryException naming {@code database} when another process still holds it
     */
    static ProcessLock acquire(Path lockFile, long waitMillis, Path database) {
        FileChannel channel;
        try {
            Path folder = lockFile.toAbsolutePath().getParent();
            if (folder != null) {
                Files.createDirectories(folder); // as H2 does for the database file
            }
            channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw new MemoryException("cannot open the H2 file " + database + ": cannot create its lock file "
                    + lockFile + ": " + e.getMessage(), e);
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMillis);
        try {
            while (true) {
                FileLock lock = channel.tryLock();
                if (lock != null) {
                    return new ProcessLock(channel, lock);
                }
                if (System.nanoTime() > deadline) {
                    throw new MemoryException("the H2 file " + database + " is in use by another process (waited "
                            + waitMillis / 1000 + " s); close it there first");
                }
                Thread.sleep(100);
            }
        } catch (IOException e) {
            closeQuietly(channel);
            throw new MemoryException("cannot open the H2 file " + database + ": cannot lock " + lockFile + ": "
                    + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            closeQuietly(channel);
            throw new MemoryException("interrupted while waiting for the H2 file " + database, e);
        } catch (RuntimeException e) {
            closeQuietly(channel);
            throw e;
        }
    }

    /** Lets the lock go; never throws. */
    void release() {
        try {
            lock.release();
        } catch (IOException e) {
            // closing the channel releases it too
        }
        closeQuietly(channel);
    }

    private static void closeQuietly(FileChannel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            // nothing left to release
        }
    }
}

package dev.agentmemory.store.jdbc;

import org.h2.store.fs.FilePath;
import org.h2.store.fs.FilePathWrapper;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A disk that fills up, for H2: its file system {@code fulldisk:} passes every call to the real
 * files, and a write that would grow the files it opened past {@link #freeBytes} fails with
 * {@code IOException("No space left on device")}, as the kernel's {@code ENOSPC} does. H2's own
 * code runs as on a real full disk: its MVStore sees the failed write, H2 closes the database.
 * Public (with a public constructor) because H2 creates instances by reflection. One disk per JVM;
 * tests that use it set its space first.
 */
public final class FullDiskFileSystem extends FilePathWrapper {

    private static final String PREFIX = "fulldisk:";
    private static final AtomicLong FREE = new AtomicLong(Long.MAX_VALUE);
    private static volatile boolean failEveryWrite;

    static {
        FilePath.register(new FullDiskFileSystem());
    }

    /** The prefix of this file system in H2's URLs; registers it with H2 first (once per JVM). */
    static String prefix() {
        return PREFIX;
    }

    /** Leaves {@code bytes} of free space on the disk. */
    static void freeBytes(long bytes) {
        FREE.set(bytes);
    }

    /** Frees the disk: writes succeed again. */
    static void freeEverything() {
        failEveryWrite = false;
        FREE.set(Long.MAX_VALUE);
    }

    /**
     * Fails every write from now on, also those within a file's size (H2 rewrites its header
     * there as it closes the database), until {@link #freeEverything()}.
     */
    static void failEveryWrite() {
        failEveryWrite = true;
    }

    @Override
    public String getScheme() {
        return "fulldisk";
    }

    @Override
    public FileChannel open(String mode) throws IOException {
        return new Quota(super.open(mode));
    }

    /** A file whose growth is taken from the disk's free space. */
    private static final class Quota extends DelegatingFileChannel {

        Quota(FileChannel base) {
            super(base);
        }

        private void take(long position, int length) throws IOException {
            if (failEveryWrite) {
                throw new IOException("No space left on device");
            }
            long growth = position + length - base.size();
            if (growth <= 0) {
                return;
            }
            long free = FREE.get();
            if (free < growth || !FREE.compareAndSet(free, free == Long.MAX_VALUE ? free : free - growth)) {
                throw new IOException("No space left on device");
            }
        }

        @Override
        public synchronized int write(ByteBuffer src, long position) throws IOException {
            take(position, src.remaining());
            return super.write(src, position);
        }

        @Override
        public synchronized int write(ByteBuffer src) throws IOException {
            take(base.position(), src.remaining());
            return super.write(src);
        }
    }
}

package dev.agentmemory.store.jdbc;

import org.h2.store.fs.FilePath;
import org.h2.store.fs.FilePathWrapper;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A disk that counts what H2 reads from it: its file system {@code countreads:} passes every call
 * to the real files and adds the bytes of each read to {@link #bytesRead()}. For tests of how much
 * of a file a call reads (after a reopen, H2's cache is empty: every page it needs comes from here).
 * Public (with a public constructor) because H2 creates instances by reflection.
 */
public final class ReadCountingFileSystem extends FilePathWrapper {

    private static final String PREFIX = "countreads:";
    private static final AtomicLong READ = new AtomicLong();

    static {
        FilePath.register(new ReadCountingFileSystem());
    }

    /** The prefix of this file system in H2's URLs; registers it with H2 first (once per JVM). */
    static String prefix() {
        return PREFIX;
    }

    /** Bytes read through this file system since the JVM started. */
    static long bytesRead() {
        return READ.get();
    }

    @Override
    public String getScheme() {
        return "countreads";
    }

    @Override
    public FileChannel open(String mode) throws IOException {
        return new Counted(super.open(mode));
    }

    /** A file whose reads are counted. */
    private static final class Counted extends DelegatingFileChannel {

        Counted(FileChannel base) {
            super(base);
        }

        @Override
        public int read(ByteBuffer dst, long position) throws IOException {
            return counted(super.read(dst, position));
        }

        @Override
        public int read(ByteBuffer dst) throws IOException {
            return counted(super.read(dst));
        }

        private static int counted(int n) {
            if (n > 0) {
                READ.addAndGet(n);
            }
            return n;
        }
    }
}

package dev.agentmemory.store.jdbc;

import org.h2.store.fs.FileBase;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;

/**
 * A file of H2's file system that passes every call to the real one: the base of the test file
 * systems ({@link ReadCountingFileSystem}, {@link FullDiskFileSystem}), each of which overrides
 * only the calls it changes. Closing it closes the real file.
 */
abstract class DelegatingFileChannel extends FileBase {

    /** The real file. */
    protected final FileChannel base;

    DelegatingFileChannel(FileChannel base) {
        this.base = base;
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
        return base.read(dst, position);
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        return base.read(dst);
    }

    @Override
    public int write(ByteBuffer src, long position) throws IOException {
        return base.write(src, position);
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        return base.write(src);
    }

    @Override
    public long position() throws IOException {
        return base.position();
    }

    @Override
    public FileChannel position(long newPosition) throws IOException {
        base.position(newPosition);
        return this;
    }

    @Override
    public long size() throws IOException {
        return base.size();
    }

    @Override
    public FileChannel truncate(long size) throws IOException {
        base.truncate(size);
        return this;
    }

    @Override
    public void force(boolean metaData) throws IOException {
        base.force(metaData);
    }

    @Override
    public FileLock tryLock(long position, long size, boolean shared) throws IOException {
        return base.tryLock(position, size, shared);
    }

    @Override
    protected void implCloseChannel() throws IOException {
        base.close();
    }
}

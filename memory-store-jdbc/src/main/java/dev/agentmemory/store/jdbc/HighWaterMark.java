package dev.agentmemory.store.jdbc;

import dev.agentmemory.core.MemoryException;
import org.jspecify.annotations.Nullable;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * The durable high-water mark of an H2 file, kept beside it ({@code <name>.hwm}): the number of
 * write transactions the file has committed. The file itself cannot tell that it lost its most
 * recent writes (H2 opens a file whose tail was cut at the last complete older version, which is
 * consistent in itself); this mark, written and synced after each commit, can. The file may be
 * one write ahead of the mark (killed between the two), never behind it.
 *
 * <p>Two 32-byte slots, written alternately, each with its own CRC: a write torn by a crash
 * damages one slot, and the other still holds the previous mark. A missing mark (no file, or no
 * valid slot) is told apart from a mark of 0 by {@link #find()}: the store writes a mark as soon
 * as it opens a file, so a file that has committed writes and no mark was copied or restored
 * without it (see {@link WriteCounter#checkAtOpen}).
 */
final class HighWaterMark implements AutoCloseable {

    private static final int SLOT = 32;
    private static final long MAGIC = 0x41474d4857_4d3031L; // "AGMHWM01"-ish

    private final Path path;
    /** Open from the first write until {@link #close()}. */
    private @Nullable FileChannel channel;

    private HighWaterMark(Path path) {
        this.path = path;
    }

    /** The mark beside the {@code .mv.db} file {@code database}. */
    static HighWaterMark beside(Path database) {
        String name = database.getFileName().toString();
        String base = name.endsWith(".mv.db") ? name.substring(0, name.length() - ".mv.db".length()) : name;
        return new HighWaterMark(database.resolveSibling(base + ".hwm"));
    }

    Path path() {
        return path;
    }

    /** The highest valid mark, 0 when there is none. */
    long read() {
        return find().orElse(0);
    }

    /** The highest valid mark; empty when the file is missing or holds no valid slot. */
    java.util.OptionalLong find() {
        if (!Files.exists(path)) {
            return java.util.OptionalLong.empty();
        }
        try {
            byte[] bytes = Files.readAllBytes(path);
            long best = -1;
            for (int slot = 0; slot + SLOT <= bytes.length && slot < 2 * SLOT; slot += SLOT) {
                ByteBuffer b = ByteBuffer.wrap(bytes, slot, SLOT);
                long magic = b.getLong();
                long writes = b.getLong();
                long check = b.getLong();
                if (magic == MAGIC && check == crc(writes)) {
                    best = Math.max(best, writes);
                }
            }
            return best < 0 ? java.util.OptionalLong.empty() : java.util.OptionalLong.of(best);
        } catch (IOException e) {
            throw new MemoryException("cannot read the high-water mark " + path + ": " + e.getMessage(), e);
        }
    }

    /** Records that the file has committed {@code writes} write transactions; synced before it returns. */
    void write(long writes) {
        try {
            if (channel == null) {
                channel = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            }
            ByteBuffer b = ByteBuffer.allocate(SLOT).putLong(MAGIC).putLong(writes).putLong(crc(writes)).putLong(0);
            b.flip();
            long at = (writes % 2) * SLOT;
            while (b.hasRemaining()) {
                at += channel.write(b, at);
            }
            channel.force(false);
        } catch (IOException e) {
            throw new MemoryException("cannot write the high-water mark " + path + ": " + e.getMessage(), e);
        }
    }

    /** Removes the mark (before a new file takes this name). */
    void delete() throws IOException {
        close();
        Files.deleteIfExists(path);
    }

    private static long crc(long writes) {
        CRC32C crc = new CRC32C();
        crc.update(ByteBuffer.allocate(16).putLong(MAGIC).putLong(writes).array());
        return crc.getValue();
    }

    @Override
    public void close() {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException e) {
                // nothing is lost: every write was synced
            }
            channel = null;
        }
    }
}

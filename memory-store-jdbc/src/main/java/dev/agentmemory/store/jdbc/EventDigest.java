package dev.agentmemory.store.jdbc;

import dev.agentmemory.core.spi.Partition;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The checksums of a stored log: each event's own (over its partition, sequence and every stored
 * column) and the chain over a partition's log ({@code chain(n) = H(chain(n-1), event(n))},
 * {@code chain(0) = 0}), which proves order and completeness. 64 bits of SHA-256 each: this
 * detects damage, it is not a defence against someone who rewrites the file on purpose.
 */
final class EventDigest {

    private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    });

    private EventDigest() {
    }

    /** The checksum of one stored row; {@code at} as stored (text). */
    static long event(Partition p, long seq, String at, String type, String actor, String traceId, String payload) {
        MessageDigest md = SHA256.get();
        md.reset();
        field(md, p.tenant());
        field(md, p.user());
        md.update(ByteBuffer.allocate(8).putLong(seq).array());
        field(md, at);
        field(md, type);
        field(md, actor);
        field(md, traceId);
        field(md, payload);
        return ByteBuffer.wrap(md.digest()).getLong();
    }

    /** The chain value after an event with checksum {@code event} follows chain value {@code previous}. */
    static long chain(long previous, long event) {
        MessageDigest md = SHA256.get();
        md.reset();
        md.update(ByteBuffer.allocate(16).putLong(previous).putLong(event).array());
        return ByteBuffer.wrap(md.digest()).getLong();
    }

    private static void field(MessageDigest md, String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        md.update(ByteBuffer.allocate(4).putInt(b.length).array());
        md.update(b);
    }
}

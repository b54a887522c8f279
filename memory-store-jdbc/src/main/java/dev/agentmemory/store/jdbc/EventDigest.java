package dev.agentmemory.store.jdbc;

import dev.agentmemory.core.spi.Partition;

import java.nio.charset.StandardCharsets;
import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The checksums of a stored log: each event's own (over its partition, sequence and every stored
 * column) and the chain over a partition's log ({@code chain(n) = H(chain(n-1), event(n))},
 * {@code chain(0) = 0}), which proves order and completeness. 64 bits of SHA-256 each: this
 * detects damage, it is not a defence against someone who rewrites the file on purpose.
 */
final class EventDigest {

    /** A thread's SHA-256 and the bytes around it: no allocation per field beyond its UTF-8 bytes. */
    private static final class Sha256 {
        final MessageDigest md;
        /** Lengths and sequences before they are hashed, then the digest. */
        final byte[] scratch = new byte[32];

        Sha256() {
            try {
                md = MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("SHA-256 is missing from this JVM", e);
            }
        }

        void updateLong(long v) {
            putLong(scratch, 0, v);
            md.update(scratch, 0, 8);
        }

        /** The field's length (4 bytes, big-endian), then its UTF-8 bytes. */
        void updateField(String s) {
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            int n = b.length;
            scratch[0] = (byte) (n >>> 24);
            scratch[1] = (byte) (n >>> 16);
            scratch[2] = (byte) (n >>> 8);
            scratch[3] = (byte) n;
            md.update(scratch, 0, 4);
            md.update(b);
        }

        /** The first 8 bytes of the digest, big-endian; resets the digest. */
        long digestFirstLong() {
            try {
                md.digest(scratch, 0, 32);
            } catch (DigestException e) {
                throw new IllegalStateException("SHA-256 did not fit 32 bytes", e);
            }
            long v = 0;
            for (int i = 0; i < 8; i++) {
                v = (v << 8) | (scratch[i] & 0xFF);
            }
            return v;
        }

        private static void putLong(byte[] b, int at, long v) {
            for (int i = 7; i >= 0; i--) {
                b[at + i] = (byte) v;
                v >>>= 8;
            }
        }
    }

    private static final ThreadLocal<Sha256> SHA256 = ThreadLocal.withInitial(Sha256::new);

    private EventDigest() {
    }

    /** The checksum of one stored row; {@code at} as stored (text). */
    static long event(Partition p, long seq, String at, String type, String actor, String traceId, String payload) {
        Sha256 sha = SHA256.get();
        sha.md.reset();
        sha.updateField(p.tenant());
        sha.updateField(p.user());
        sha.updateLong(seq);
        sha.updateField(at);
        sha.updateField(type);
        sha.updateField(actor);
        sha.updateField(traceId);
        sha.updateField(payload);
        return sha.digestFirstLong();
    }

    /** The chain value after an event with checksum {@code event} follows chain value {@code previous}. */
    static long chain(long previous, long event) {
        Sha256 sha = SHA256.get();
        sha.md.reset();
        sha.updateLong(previous);
        sha.updateLong(event);
        return sha.digestFirstLong();
    }
}

package dev.agentmemory.store.jdbc;

import dev.agentmemory.core.spi.Partition;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The checksums are the ones every stored file holds: SHA-256 over the row's fields as written
 * down here (a length, big-endian, before each field's UTF-8 bytes), first 8 bytes big-endian.
 */
class EventDigestTest {

    private static final Partition P = new Partition("shop", "alice");

    @Test
    void should_hash_each_field_as_its_length_and_utf8_bytes_when_given_texts_of_every_kind() throws Exception {
        List<String> payloads = List.of("", "a", "{\"text\":\"plain ASCII\"}", "caf\u00e9 na\u00efve \u00fc\u00df",
                "\u4e2d\u6587\u7684\u504f\u597d", "emoji \ud83d\ude00 and \ud83c\udf89", "lone high \ud800 surrogate",
                "lone low \udc00 surrogate", "high at the end \ud83d", "\udc00\ud800 reversed pair",
                "x".repeat(100_000), "\u00ff".repeat(5_000) + "\u0100");
        long chain = 0;
        long seq = 1;
        for (String payload : payloads) {
            String at = "2026-12-05T11:10:35.889367010Z";

            long event = EventDigest.event(P, seq, at, "record-written", "assistant", "trace-" + seq, payload);
            long next = EventDigest.chain(chain, event);

            assertThat(event).as(payload.length() > 40 ? payload.substring(0, 40) : payload)
                    .isEqualTo(reference(P, seq, at, "record-written", "assistant", "trace-" + seq, payload));
            assertThat(next).isEqualTo(first8(sha256(ByteBuffer.allocate(16).putLong(chain).putLong(event).array())));
            chain = next;
            seq++;
        }
    }

    @Test
    void should_give_the_checksums_files_hold_when_given_a_row_as_earlier_versions_wrote_it() {
        // the values computed for this row before the digest stopped allocating per field
        long event = EventDigest.event(P, 7, "2024-05-01T10:00:01Z", "record-written", "assistant", "trace-7",
                "{\"key\":\"language\",\"value\":\"\u4e2d\u6587\"}");

        assertThat(event).isEqualTo(855529269592694401L);
        assertThat(EventDigest.chain(0, event)).isEqualTo(-4641956872206773907L);
    }

    private static long reference(Partition p, long seq, String... fieldsAfterSeq) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(bytes);
            writeField(out, p.tenant());
            writeField(out, p.user());
            out.writeLong(seq);
            for (String f : fieldsAfterSeq) {
                writeField(out, f);
            }
            return first8(sha256(bytes.toByteArray()));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void writeField(DataOutputStream out, String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
    }

    private static byte[] sha256(byte[] b) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(b);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static long first8(byte[] digest) {
        return ByteBuffer.wrap(digest).getLong();
    }
}

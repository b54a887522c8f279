package dev.agentmemory.core.internal.codec;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.agentmemory.core.MemoryException;
import dev.agentmemory.core.event.Change;
import dev.agentmemory.core.event.LoggedEvent;
import dev.agentmemory.core.internal.state.PartitionState;
import dev.agentmemory.core.internal.state.StateImage;
import dev.agentmemory.core.spi.StoredEvent;
import org.jspecify.annotations.Nullable;

import javax.crypto.Cipher;
import javax.crypto.SecretKey;
import javax.crypto.spec.GCMParameterSpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * Turns events into stored payloads and back: JSON, optionally sealed with AES-GCM under a
 * caller-supplied key (sealed payloads start with {@value #SEALED}). Thread-safe.
 */
public final class EventCodec {
    private static final String SEALED = "aesgcm1:";
    private static final int IV_BYTES = 12;
    private static final byte PLAIN_IMAGE = 'P';
    private static final byte SEALED_IMAGE = 'S';
    private static final ObjectMapper JSON = JsonMapper.builder()
            .addModule(new com.fasterxml.jackson.datatype.jsr310.JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();
    /** Reads a change: its root deserializer found once, not looked up again for every event. */
    private static final ObjectReader CHANGE_READER = JSON.readerFor(Change.class);

    private final @Nullable SecretKey key;
    private final SecureRandom random = new SecureRandom();

    public EventCodec(@Nullable SecretKey key) {
        this.key = key;
    }

    /** Whether payloads are sealed with a key (then nothing derived from them is stored in the clear). */
    public boolean seals() {
        return key != null;
    }

    /** The stored form of an event. */
    public StoredEvent encode(LoggedEvent e) {
        return new StoredEvent(e.seq(), e.at(), e.change().type(), e.actor(), e.traceId(), encodeChange(e.change()));
    }

    /** The payload of a change. */
    public String encodeChange(Change change) {
        String json;
        try {
            json = JSON.writeValueAsString(change);
        } catch (JsonProcessingException e) {
            throw new MemoryException("cannot encode " + change.type() + ": " + e.getOriginalMessage(), e);
        }
        checkUnicode(json, change);
        return key == null ? json : seal(json);
    }

    /**
     * Refuses text that UTF-8 cannot hold (a lone UTF-16 surrogate in a title, alias, message,
     * tag...): a store would keep a replacement character instead, so the state served before a
     * restart would differ from the state replayed after it.
     */
    private static void checkUnicode(String json, Change change) {
        for (int i = 0; i < json.length(); i++) {
            char c = json.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < json.length() && Character.isLowSurrogate(json.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                int from = Math.max(0, i - 40);
                String near = json.substring(from, i).replaceAll("[\\p{Cntrl}\\p{Cs}]", "?");
                throw new IllegalArgumentException("text holds a lone surrogate (invalid Unicode), in " + change.type()
                        + " after: " + near);
            }
        }
    }

    /**
     * The body of a snapshot of {@code image}: {@code P} and the image's binary form
     * ({@link ImageCodec}: no 0 byte), or, when the codec has a key, {@code S} and the Base64 of
     * that form sealed like event payloads. Every byte is a character of ISO-8859-1 other than NUL.
     */
    public byte[] encodeImage(StateImage image) {
        byte[] plain = ImageCodec.encode(image);
        if (key == null) {
            byte[] out = new byte[plain.length + 1];
            out[0] = PLAIN_IMAGE;
            System.arraycopy(plain, 0, out, 1, plain.length);
            return out;
        }
        byte[] sealed = Base64.getEncoder().encode(sealBytes(plain));
        byte[] out = new byte[sealed.length + 1];
        out[0] = SEALED_IMAGE;
        System.arraycopy(sealed, 0, out, 1, sealed.length);
        return out;
    }

    /**
     * The state whose image a snapshot body ({@link #encodeImage}) holds, its bytes being the
     * ISO-8859-1 characters {@code body[from, to)} (a character above U+00FF counts as its low 8
     * bits), restored through {@link PartitionState.Restoring} as it is read.
     *
     * @throws MemoryException when it is sealed and no (or another) key is configured, or cannot be decoded
     */
    public PartitionState decodeState(String body, int from, int to) {
        if (from >= to) {
            throw new MemoryException("cannot decode a snapshot: it is empty");
        }
        char kind = body.charAt(from);
        if (kind == PLAIN_IMAGE) {
            return ImageCodec.decode(body, from + 1, to);
        }
        if (kind != SEALED_IMAGE) {
            throw new MemoryException("cannot decode a snapshot: it is neither plain nor sealed");
        }
        if (key == null) {
            throw new MemoryException("a snapshot is encrypted but no encryption key is configured");
        }
        byte[] plain;
        try {
            plain = openBytes(Base64.getDecoder().decode(body.substring(from + 1, to)), "a snapshot");
        } catch (IllegalArgumentException e) {
            throw new MemoryException("cannot decrypt a snapshot: wrong key or damaged payload", e);
        }
        return ImageCodec.decode(plain, 0, plain.length);
    }

    /** The event a stored form holds. */
    public LoggedEvent decode(StoredEvent s) {
        String json = s.payload().startsWith(SEALED) ? open(s.payload(), "event " + s.seq()) : s.payload();
        try {
            Change change = CHANGE_READER.readValue(json);
            return new LoggedEvent(s.seq(), s.at(), s.actor(), s.traceId(), change);
        } catch (JsonProcessingException e) {
            throw new MemoryException("cannot decode event " + s.seq() + " (" + s.type() + "): " + e.getOriginalMessage(), e);
        }
    }

    private String seal(String json) {
        return SEALED + Base64.getEncoder().encodeToString(sealBytes(json.getBytes(StandardCharsets.UTF_8)));
    }

    /** The IV and the AES-GCM ciphertext of {@code plain} under the key. */
    private byte[] sealBytes(byte[] plain) {
        try {
            byte[] iv = new byte[IV_BYTES];
            random.nextBytes(iv);
            Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
            c.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(128, iv));
            byte[] ct = c.doFinal(plain);
            byte[] out = new byte[iv.length + ct.length];
            System.arraycopy(iv, 0, out, 0, iv.length);
            System.arraycopy(ct, 0, out, iv.length, ct.length);
            return out;
        } catch (GeneralSecurityException e) {
            throw new MemoryException("cannot encrypt: " + e.getMessage(), e);
        }
    }

    private String open(String payload, String what) {
        if (key == null) {
            throw new MemoryException(what + " is encrypted but no encryption key is configured");
        }
        byte[] in;
        try {
            in = Base64.getDecoder().decode(payload.substring(SEALED.length()));
        } catch (IllegalArgumentException e) {
            throw new MemoryException("cannot decrypt " + what + ": wrong key or damaged payload", e);
        }
        return new String(openBytes(in, what), StandardCharsets.UTF_8);
    }

    /** The plain bytes of an IV and ciphertext made by {@link #sealBytes}. */
    private byte[] openBytes(byte[] in, String what) {
        if (key == null) {
            throw new MemoryException(what + " is encrypted but no encryption key is configured");
        }
        try {
            Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
            c.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(128, in, 0, IV_BYTES));
            return c.doFinal(in, IV_BYTES, in.length - IV_BYTES);
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            throw new MemoryException("cannot decrypt " + what + ": wrong key or damaged payload", e);
        }
    }
}

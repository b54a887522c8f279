package dev.agentmemory.core.ledger;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;

/**
 * Stable ids for side-effecting actions, derived from the business intent, so that the same
 * intent always gets the same id (and is never submitted twice).
 */
public final class OperationId {
    private OperationId() {
    }

    /**
     * The id of an intent: the action name and the parts that make it the same business intent
     * (e.g. {@code of("create-exchange", "order:20241015", "earbuds", "white")}).
     */
    public static String of(String action, String... parts) {
        Objects.requireNonNull(action, "action");
        if (action.isBlank()) {
            throw new IllegalArgumentException("action must not be blank");
        }
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(action.getBytes(StandardCharsets.UTF_8));
            for (String part : parts) {
                Objects.requireNonNull(part, "part");
                sha.update((byte) 0);
                sha.update(part.getBytes(StandardCharsets.UTF_8));
            }
            return action.replaceAll("[^A-Za-z0-9_-]", "_") + "-" + HexFormat.of().formatHex(sha.digest(), 0, 12);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }
}

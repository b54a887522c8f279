package dev.agentmemory.inspector;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;

/** The random access token and CSRF token of one inspector run, and the cookie that carries the first. */
record Secrets(String token, String csrf, int port) {

    private static final SecureRandom RANDOM = new SecureRandom();

    static Secrets random(int port) {
        return new Secrets(randomToken(), randomToken(), port);
    }

    private static String randomToken() {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** The cookie's name: one per port, so that two inspectors on one host do not overwrite each other's. */
    String cookieName() {
        return "agentmemory_inspector_" + port;
    }

    boolean isToken(String candidate) {
        return same(token, candidate);
    }

    boolean isCsrf(String candidate) {
        return same(csrf, candidate);
    }

    /** Constant-time comparison, so that the time to refuse says nothing about the token. */
    private static boolean same(String expected, String candidate) {
        return MessageDigest.isEqual(expected.getBytes(StandardCharsets.UTF_8), candidate.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public String toString() {
        return "Secrets[port=" + port + "]";
    }
}

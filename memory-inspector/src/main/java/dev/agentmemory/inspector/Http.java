package dev.agentmemory.inspector;

import com.sun.net.httpserver.HttpExchange;
import org.jspecify.annotations.Nullable;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/** One request: its query parameters, a bounded body, and the ways to answer. */
final class Http {

    /** The largest request body read (a forget is a few hundred bytes). */
    static final int MAX_BODY = 16 * 1024;

    private final HttpExchange exchange;
    private final Map<String, String> params = new LinkedHashMap<>();

    Http(HttpExchange exchange) {
        this.exchange = exchange;
        String raw = exchange.getRequestURI().getRawQuery();
        if (raw != null) {
            for (String pair : raw.split("&")) {
                if (pair.isEmpty()) {
                    continue;
                }
                int eq = pair.indexOf('=');
                String k = decode(eq < 0 ? pair : pair.substring(0, eq));
                String v = eq < 0 ? "" : decode(pair.substring(eq + 1));
                params.putIfAbsent(k, v);
            }
        }
    }

    private static String decode(String s) {
        try {
            return URLDecoder.decode(s, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw new BadRequest("query is not URL-encoded: " + e.getMessage());
        }
    }

    @Nullable String param(String name) {
        return params.get(name);
    }

    String method() {
        return exchange.getRequestMethod();
    }

    @Nullable String header(String name) {
        return exchange.getRequestHeaders().getFirst(name);
    }

    /** The request body, refused when over {@link #MAX_BODY} bytes. */
    byte[] body() throws IOException {
        try (InputStream in = exchange.getRequestBody()) {
            byte[] bytes = in.readNBytes(MAX_BODY + 1);
            if (bytes.length > MAX_BODY) {
                throw new BadRequest("request body over " + MAX_BODY + " bytes");
            }
            return bytes;
        }
    }

    void text(int status, String text) throws IOException {
        send(status, "text/plain; charset=utf-8", text.getBytes(StandardCharsets.UTF_8));
    }

    void json(int status, byte[] json) throws IOException {
        send(status, "application/json; charset=utf-8", json);
    }

    void send(int status, String contentType, byte[] body) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", contentType);
        exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
        if (body.length > 0) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    /** A request that names something malformed: answered 400 with the message. */
    static final class BadRequest extends RuntimeException {
        private static final long serialVersionUID = 1L;

        BadRequest(String message) {
            super(message);
        }
    }

    /** A request the inspector may not answer (another tenant, forgetting off, no CSRF token): 403. */
    static final class Refused extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Refused(String message) {
            super(message);
        }
    }

    /** A user, key or session that does not exist: 404. */
    static final class NotFound extends RuntimeException {
        private static final long serialVersionUID = 1L;

        NotFound(String message) {
            super(message);
        }
    }
}

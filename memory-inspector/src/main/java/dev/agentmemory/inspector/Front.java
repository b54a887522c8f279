package dev.agentmemory.inspector;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import org.jspecify.annotations.Nullable;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * Every request passes here: the security headers, the host check, the access token (query once,
 * then the cookie), the static page and its assets from the jar, and the JSON API behind
 * {@code /api/}. Nothing is served before the token is checked.
 */
final class Front implements HttpHandler {

    /** Only this jar's script and styles; no inline script or style, no other origin, no framing. */
    static final String CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            + "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

    private static final Map<String, String> ASSETS = Map.of(
            "/", "web/index.html",
            "/app.js", "web/app.js",
            "/app.css", "web/app.css");

    private static final System.Logger LOG = System.getLogger(Front.class.getName());

    private final Secrets secrets;
    private final InspectorOptions options;
    private final Api api;

    Front(Secrets secrets, InspectorOptions options, Api api) {
        this.secrets = secrets;
        this.options = options;
        this.api = api;
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            Headers h = exchange.getResponseHeaders();
            h.set("Content-Security-Policy", CSP);
            h.set("X-Content-Type-Options", "nosniff");
            h.set("Referrer-Policy", "no-referrer");
            h.set("X-Frame-Options", "DENY");
            h.set("Cache-Control", "no-store");
            h.set("Cross-Origin-Opener-Policy", "same-origin");
            h.set("Cross-Origin-Resource-Policy", "same-origin");
            Http http = new Http(exchange);
            if (!hostIsLocal(exchange.getRequestHeaders().getFirst("Host"))) {
                // a page of another site that rebinds its name to 127.0.0.1 arrives with its own host name
                http.text(421, "refused: this inspector answers only http://127.0.0.1:" + secrets.port() + "/");
                return;
            }
            String path = exchange.getRequestURI().getRawPath();
            String queryToken = http.param("token");
            if (queryToken != null && "GET".equals(exchange.getRequestMethod()) && "/".equals(path)) {
                if (!secrets.isToken(queryToken)) {
                    http.text(401, "refused: wrong access token");
                    return;
                }
                // the token moves into a cookie the page's script cannot read, and leaves the address bar
                h.add("Set-Cookie", secrets.cookieName() + "=" + secrets.token()
                        + "; Path=/; HttpOnly; SameSite=Strict");
                h.set("Location", "/");
                http.text(303, "signed in");
                return;
            }
            String presented = queryToken != null ? queryToken : cookie(exchange, secrets.cookieName());
            if (presented == null) {
                http.text(401, "refused: no access token (open the address the inspector printed at start)");
                return;
            }
            if (!secrets.isToken(presented)) {
                http.text(401, "refused: wrong access token");
                return;
            }
            if (path.startsWith("/api/")) {
                api.handle(http, path.substring("/api/".length()));
                return;
            }
            String asset = ASSETS.get(path);
            if (asset == null || !"GET".equals(exchange.getRequestMethod())) {
                http.text(404, "not found: " + path);
                return;
            }
            serve(http, asset);
        } catch (RuntimeException e) {
            // never a stack trace to the page; the operator finds it in the log
            LOG.log(System.Logger.Level.WARNING, "memory inspector: " + exchange.getRequestMethod() + " "
                    + exchange.getRequestURI().getRawPath() + " failed", e);
            try {
                new Http(exchange).text(500, "inspector error: " + e.getClass().getSimpleName());
            } catch (IOException | RuntimeException ignored) {
                // the response was already under way
            }
        }
    }

    private boolean hostIsLocal(@Nullable String host) {
        return host != null && (host.equals("127.0.0.1:" + secrets.port()) || host.equals("localhost:" + secrets.port()));
    }

    private static void serve(Http http, String asset) throws IOException {
        try (InputStream in = Front.class.getResourceAsStream(asset)) {
            if (in == null) {
                http.text(500, "missing from the jar: " + asset);
                return;
            }
            String type = asset.endsWith(".js") ? "text/javascript; charset=utf-8"
                    : asset.endsWith(".css") ? "text/css; charset=utf-8" : "text/html; charset=utf-8";
            http.send(200, type, in.readAllBytes());
        }
    }

    static @Nullable String cookie(HttpExchange exchange, String name) {
        List<String> headers = exchange.getRequestHeaders().get("Cookie");
        if (headers == null) {
            return null;
        }
        for (String header : headers) {
            for (String part : header.split(";")) {
                String p = part.trim();
                int eq = p.indexOf('=');
                if (eq > 0 && p.substring(0, eq).equals(name)) {
                    return p.substring(eq + 1);
                }
            }
        }
        return null;
    }

    @Override
    public String toString() {
        return "Front[" + options.tenant() + "]";
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}

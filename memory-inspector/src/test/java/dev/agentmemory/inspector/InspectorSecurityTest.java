package dev.agentmemory.inspector;

import dev.agentmemory.core.MemoryKey;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The inspector's security properties over plain HTTP, as an attacker on the same machine or a
 * page of another site would try them: no token, a wrong token, the cookie flow, a forged forget
 * without the CSRF token or from another origin, another tenant's user, a rebound host name, and
 * the headers that keep stored markup inert. Also that reads and forgets land in the user's log
 * with who made them.
 */
class InspectorSecurityTest {

    private static Fixture fixture;
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @BeforeAll
    static void start() {
        fixture = new Fixture(true);
    }

    @AfterAll
    static void stop() {
        fixture.close();
    }

    private static URI at(String pathAndQuery) {
        return URI.create(fixture.inspector.address() + pathAndQuery.substring(1));
    }

    private static HttpResponse<String> get(String pathAndQuery, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(at(pathAndQuery)).GET();
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String cookie() {
        return "agentmemory_inspector_" + fixture.inspector.address().getPort() + "=" + fixture.inspector.token();
    }

    private static HttpResponse<String> post(String body, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(at("/api/forget"))
                .POST(HttpRequest.BodyPublishers.ofString(body));
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String csrf() throws Exception {
        String session = get("/api/session", "Cookie", cookie()).body();
        return session.replaceAll(".*\"csrf\":\"([^\"]+)\".*", "$1");
    }

    @Test
    void should_refuse_every_path_when_no_token_is_given() throws Exception {
        for (String path : List.of("/", "/app.js", "/api/session", "/api/users", "/api/memory?user=alice&section=persistent")) {
            HttpResponse<String> r = get(path);
            assertThat(r.statusCode()).as(path).isEqualTo(401);
            assertThat(r.body()).as(path).isEqualTo("refused: no access token (open the address the inspector printed at start)");
        }
    }

    @Test
    void should_refuse_a_wrong_token_in_the_address_and_in_the_cookie() throws Exception {
        HttpResponse<String> query = get("/?token=not-the-token");
        assertThat(query.statusCode()).isEqualTo(401);
        assertThat(query.body()).isEqualTo("refused: wrong access token");
        assertThat(query.headers().firstValue("Set-Cookie")).isEmpty();
        HttpResponse<String> cookie = get("/api/users", "Cookie",
                "agentmemory_inspector_" + fixture.inspector.address().getPort() + "=" + fixture.inspector.token() + "x");
        assertThat(cookie.statusCode()).isEqualTo(401);
        assertThat(cookie.body()).doesNotContain("alice");
    }

    @Test
    void should_move_the_token_into_an_http_only_strict_cookie_and_out_of_the_address() throws Exception {
        HttpResponse<String> r = get("/?token=" + fixture.inspector.token());
        assertThat(r.statusCode()).isEqualTo(303);
        assertThat(r.headers().firstValue("Location")).contains("/");
        assertThat(r.headers().firstValue("Set-Cookie")).contains(cookie() + "; Path=/; HttpOnly; SameSite=Strict");
        HttpResponse<String> page = get("/", "Cookie", cookie());
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).contains("<script src=\"/app.js\" defer></script>");
    }

    @Test
    void should_send_a_strict_content_security_policy_with_every_answer() throws Exception {
        for (String path : List.of("/", "/app.js", "/api/users")) {
            HttpResponse<String> r = get(path, "Cookie", cookie());
            assertThat(r.statusCode()).isEqualTo(200);
            String csp = r.headers().firstValue("Content-Security-Policy").orElseThrow();
            assertThat(csp).contains("default-src 'none'", "script-src 'self'", "frame-ancestors 'none'")
                    .doesNotContain("unsafe-inline", "unsafe-eval", "http:", "https:");
            assertThat(r.headers().firstValue("X-Content-Type-Options")).contains("nosniff");
        }
        assertThat(get("/", "Cookie", cookie()).body()).doesNotContain("<script>", "style=", "onload", "onclick");
    }

    @Test
    void should_refuse_another_tenants_user() throws Exception {
        HttpResponse<String> r = get("/api/memory?tenant=globex&user=mallory&section=persistent", "Cookie", cookie());
        assertThat(r.statusCode()).isEqualTo(403);
        assertThat(r.body()).isEqualTo("{\"error\":\"tenant \\\"globex\\\" is outside this inspector, which shows tenant acme only\"}");
        HttpResponse<String> sameName = get("/api/memory?user=mallory&section=persistent", "Cookie", cookie());
        assertThat(sameName.statusCode()).isEqualTo(404);
        assertThat(sameName.body()).doesNotContain("globex-only");
        assertThat(get("/api/users", "Cookie", cookie()).body()).contains("alice").doesNotContain("mallory");
    }

    @Test
    void should_refuse_a_forged_forget_without_the_csrf_token() throws Exception {
        String body = "{\"user\":\"alice\",\"target\":\"key\",\"scope\":\"persistent\",\"key\":\"profile.drink\",\"mode\":\"soft\"}";
        HttpResponse<String> none = post(body, "Cookie", cookie(), "Content-Type", "application/json");
        assertThat(none.statusCode()).isEqualTo(403);
        assertThat(none.body()).isEqualTo("{\"error\":\"a forget needs this page's CSRF token\"}");
        HttpResponse<String> wrong = post(body, "Cookie", cookie(), "Content-Type", "application/json",
                "X-CSRF-Token", fixture.inspector.token());
        assertThat(wrong.statusCode()).isEqualTo(403);
        HttpResponse<String> otherSite = post(body, "Cookie", cookie(), "Content-Type", "application/json",
                "X-CSRF-Token", csrf(), "Origin", "http://evil.example");
        assertThat(otherSite.statusCode()).isEqualTo(403);
        HttpResponse<String> form = post(body, "Cookie", cookie(), "Content-Type", "text/plain", "X-CSRF-Token", csrf());
        assertThat(form.statusCode()).isEqualTo(400);
        assertThat(fixture.engine.current(fixture.alice, fixture.alice.persistent(), MemoryKey.of("profile.drink")))
                .as("nothing forgotten by a refused forget").isPresent();
    }

    @Test
    void should_refuse_a_forget_on_a_read_only_inspector() throws Exception {
        try (MemoryInspector readOnly = MemoryInspector.start(fixture.memory, InspectorOptions.builder("acme").build())) {
            String token = "agentmemory_inspector_" + readOnly.address().getPort() + "=" + readOnly.token();
            HttpResponse<String> session = HTTP.send(HttpRequest.newBuilder(readOnly.address().resolve("/api/session"))
                    .header("Cookie", token).build(), HttpResponse.BodyHandlers.ofString());
            String csrf = session.body().replaceAll(".*\"csrf\":\"([^\"]+)\".*", "$1");
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(readOnly.address().resolve("/api/forget"))
                    .header("Cookie", token).header("Content-Type", "application/json").header("X-CSRF-Token", csrf)
                    .POST(HttpRequest.BodyPublishers.ofString("{\"user\":\"alice\",\"target\":\"user\",\"mode\":\"hard\"}"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(403);
            assertThat(r.body()).contains("read-only");
        }
        assertThat(fixture.engine.current(fixture.alice, fixture.alice.persistent(), MemoryKey.of("profile.city")))
                .isPresent();
    }

    @Test
    void should_refuse_a_request_addressed_to_another_host_name() throws Exception {
        // a page of another site whose name was rebound to 127.0.0.1 sends its own name as Host
        int port = fixture.inspector.address().getPort();
        try (Socket s = new Socket("127.0.0.1", port)) {
            OutputStream out = s.getOutputStream();
            out.write(("GET /api/users HTTP/1.1\r\nHost: evil.example:" + port + "\r\nCookie: " + cookie()
                    + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            String answer = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            assertThat(answer).startsWith("HTTP/1.1 421").doesNotContain("alice");
        }
    }

    @Test
    void should_show_a_sensitive_value_redacted_in_every_view_as_the_log_does() throws Exception {
        fixture.engine.write(fixture.alice, dev.agentmemory.core.Proposal.set(fixture.alice.persistent(), "account.iban",
                        "DE89370400440532013000").kind(dev.agentmemory.core.MemoryRecord.Kind.PREFERENCE)
                .source(dev.agentmemory.core.MemoryRecord.Source.USER).sensitive().build());
        for (String path : List.of("/api/memory?user=alice&section=persistent&q=iban",
                "/api/history?user=alice&scope=persistent&key=account.iban", "/api/log?user=alice",
                "/api/asof?user=alice&at=" + fixture.clock.instant())) {
            HttpResponse<String> r = get(path, "Cookie", cookie());
            assertThat(r.statusCode()).as(path).isEqualTo(200);
            assertThat(r.body()).as(path).contains("[redacted]").doesNotContain("DE89370400440532013000");
        }
    }

    @Test
    void should_listen_on_the_loopback_address_only() {
        assertThat(fixture.inspector.address().getHost()).isEqualTo("127.0.0.1");
        assertThat(fixture.inspector.uri().toString()).startsWith("http://127.0.0.1:").contains("?token=");
    }

    @Test
    void should_log_each_read_of_a_users_memory_and_each_forget_with_who_made_it() throws Exception {
        HttpResponse<String> read = get("/api/memory?user=alice&section=persistent", "Cookie", cookie());
        assertThat(read.statusCode()).isEqualTo(200);
        List<String> log = fixture.engine.admin().readableLog(fixture.alice);
        assertThat(log.get(log.size() - 2)).contains("by inspector:local", "intent inspector-read-", "inspector.read");
        assertThat(log.get(log.size() - 1)).contains("by inspector:local", "succeeded");

        String body = "{\"user\":\"alice\",\"target\":\"key\",\"scope\":\"session/s1\",\"key\":\"order.color\",\"mode\":\"soft\"}";
        HttpResponse<String> forget = post(body, "Cookie", cookie(), "Content-Type", "application/json",
                "X-CSRF-Token", csrf());
        assertThat(forget.statusCode()).isEqualTo(200);
        assertThat(forget.body()).contains("\"what\":\"key order.color in session/s1\"", "\"by\":\"inspector:local\"",
                "\"records\":1");
        assertThat(fixture.engine.admin().readableLog(fixture.alice))
                .anySatisfy(line -> assertThat(line).contains("by inspector:local", "soft-forgot 1 record(s)"));
    }
}

package dev.agentmemory.inspector;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentmemory.core.MemoryException.AccessDenied;
import dev.agentmemory.core.Caller;
import org.jspecify.annotations.Nullable;

import java.io.IOException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The JSON API under {@code /api/} (the access token is already checked). Every route is a GET
 * but {@code forget}, a POST that needs forgetting enabled, the CSRF token in
 * {@code X-CSRF-Token}, a JSON body and, when the browser sends one, this server as its origin.
 *
 * <table>
 *   <caption>Routes</caption>
 *   <tr><td>{@code session}</td><td>tenant, operator, whether forgetting is on, the CSRF token</td></tr>
 *   <tr><td>{@code users?q&offset&limit}</td><td>the tenant's users</td></tr>
 *   <tr><td>{@code memory?user&section&q&offset&limit}</td><td>state, persistent, conflicts or due</td></tr>
 *   <tr><td>{@code history?user&scope&key}</td><td>a key's versions and events</td></tr>
 *   <tr><td>{@code asof?user&at[&compare]&offset&limit}</td><td>the memory at a time, and the difference to another</td></tr>
 *   <tr><td>{@code sessions?user}, {@code turns?user&session}</td><td>conversations; a conversation's turns</td></tr>
 *   <tr><td>{@code log?user&kind&session&from&to&offset&limit}, {@code audit?user}</td><td>the event log; the audit</td></tr>
 *   <tr><td>{@code POST forget}</td><td>{@code {user, target, mode, scope|key|record|session}}: the receipt</td></tr>
 * </table>
 */
final class Api {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Views views;
    private final EventLog log;
    private final Turns turns;
    private final Forgets forgets;
    private final InspectorOptions options;
    private final Secrets secrets;

    Api(Views views, InspectorOptions options, Secrets secrets) {
        this.views = views;
        this.log = new EventLog(views);
        this.turns = new Turns(views);
        this.forgets = new Forgets(views);
        this.options = options;
        this.secrets = secrets;
    }

    void handle(Http http, String route) throws IOException {
        int status = 200;
        Object body;
        try {
            body = route.equals("forget") ? forget(http) : get(http, route);
        } catch (Http.BadRequest | IllegalArgumentException e) {
            status = 400;
            body = error(e);
        } catch (Http.Refused | AccessDenied e) {
            status = 403;
            body = error(e);
        } catch (Http.NotFound e) {
            status = 404;
            body = error(e);
        } catch (IllegalStateException e) {
            status = 409;
            body = error(e);
        }
        http.json(status, JSON.writeValueAsBytes(body));
    }

    private static Map<String, Object> error(RuntimeException e) {
        return Map.of("error", String.valueOf(e.getMessage()));
    }

    private Object get(Http http, String route) {
        if (!http.method().equals("GET")) {
            throw new Http.BadRequest(route + " answers GET only");
        }
        return switch (route) {
            case "session" -> session();
            case "users" -> views.users(offset(http), limit(http), opt(http, "q"));
            case "memory" -> views.memory(user(http), required(http, "section"), offset(http), limit(http), opt(http, "q"));
            case "history" -> {
                Caller c = user(http);
                yield views.history(c, Items.scope(c.tenant(), c.user(), required(http, "scope")),
                        Items.key(required(http, "key")));
            }
            case "asof" -> {
                Caller c = user(http);
                String compare = http.param("compare");
                yield views.asOf(c, time(required(http, "at"), "at"),
                        compare == null || compare.isEmpty() ? null : time(compare, "compare"), offset(http), limit(http));
            }
            case "sessions" -> turns.sessions(user(http));
            case "turns" -> turns.turns(user(http), required(http, "session"));
            case "log" -> log.log(user(http), opt(http, "kind"), opt(http, "session"), optTime(http, "from"),
                    optTime(http, "to"), offset(http), limit(http));
            case "audit" -> log.audit(user(http));
            default -> throw new Http.NotFound("no route /api/" + route);
        };
    }

    private Map<String, Object> session() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("tenant", options.tenant());
        m.put("operator", options.operator());
        m.put("forgetting", options.forgetting());
        m.put("csrf", secrets.csrf());
        return m;
    }

    private Object forget(Http http) throws IOException {
        if (!http.method().equals("POST")) {
            throw new Http.BadRequest("forget answers POST only");
        }
        if (!options.forgetting()) {
            throw new Http.Refused("this inspector is read-only (start it with forgetting enabled to forget)");
        }
        String origin = http.header("Origin");
        if (origin != null && !origin.equals("http://127.0.0.1:" + secrets.port())
                && !origin.equals("http://localhost:" + secrets.port())) {
            throw new Http.Refused("a forget from another origin is refused: " + Items.quote(origin));
        }
        String csrf = http.header("X-CSRF-Token");
        if (csrf == null || !secrets.isCsrf(csrf)) {
            throw new Http.Refused("a forget needs this page's CSRF token");
        }
        String type = http.header("Content-Type");
        if (type == null || !type.toLowerCase(Locale.ROOT).startsWith("application/json")) {
            throw new Http.BadRequest("a forget is a JSON body (Content-Type: application/json)");
        }
        JsonNode request;
        try {
            request = JSON.readTree(http.body());
        } catch (JsonProcessingException e) {
            throw new Http.BadRequest("the body is not JSON: " + e.getOriginalMessage());
        }
        if (request == null || !request.isObject()) {
            throw new Http.BadRequest("the body must be a JSON object");
        }
        String tenant = request.path("tenant").asText(options.tenant());
        checkTenant(tenant);
        return forgets.forget(request);
    }

    private Caller user(Http http) {
        String tenant = http.param("tenant");
        if (tenant != null) {
            checkTenant(tenant);
        }
        return views.reader(required(http, "user"));
    }

    private void checkTenant(String tenant) {
        if (!tenant.equals(options.tenant())) {
            throw new Http.Refused("tenant " + Items.quote(tenant) + " is outside this inspector, which shows tenant "
                    + options.tenant() + " only");
        }
    }

    private static String required(Http http, String name) {
        String v = http.param(name);
        if (v == null || v.isEmpty()) {
            throw new Http.BadRequest("parameter \"" + name + "\" is required");
        }
        return v;
    }

    private static String opt(Http http, String name) {
        String v = http.param(name);
        return v == null ? "" : v;
    }

    private static int offset(Http http) {
        return integer(http, "offset", 0);
    }

    private static int limit(Http http) {
        return integer(http, "limit", 50);
    }

    private static int integer(Http http, String name, int fallback) {
        String v = http.param(name);
        if (v == null || v.isEmpty()) {
            return fallback;
        }
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new Http.BadRequest("parameter \"" + name + "\" must be a whole number: " + Items.quote(v));
        }
    }

    private static @Nullable Instant optTime(Http http, String name) {
        String v = http.param(name);
        return v == null || v.isEmpty() ? null : time(v, name);
    }

    /** An ISO-8601 instant, or a date-time without zone (what a date field sends), read as UTC. */
    static Instant time(String v, String name) {
        try {
            return Instant.parse(v);
        } catch (DateTimeParseException e) {
            try {
                return LocalDateTime.parse(v).toInstant(ZoneOffset.UTC);
            } catch (DateTimeParseException e2) {
                throw new Http.BadRequest("parameter \"" + name + "\" must be a time such as 2026-01-31T09:00:00Z: "
                        + Items.quote(v));
            }
        }
    }
}

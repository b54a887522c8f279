package dev.agentmemory.inspector;

import dev.agentmemory.core.Scope.Layer;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.Scope;
import org.jspecify.annotations.Nullable;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** How records, scopes and times look in the inspector's JSON. Sensitive values never leave as text. */
final class Items {

    /** What a sensitive value shows instead, as the readable log does. */
    static final String HIDDEN = "[redacted]";

    private Items() {
    }

    /** A record's fields for the page; {@code now} is the status a block would give it now. */
    static Map<String, Object> record(MemoryRecord r, @Nullable String now) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", r.id());
        m.put("scope", scopeId(r.scope()));
        m.put("layer", layer(r.scope().layer()));
        m.put("key", r.key().path());
        m.put("value", value(r));
        m.put("version", r.version());
        m.put("kind", lower(r.kind()));
        m.put("source", lower(r.source()));
        putIfSet(m, "sourceRef", r.sourceRef());
        m.put("trust", lower(r.trust()));
        m.put("access", lower(r.access()));
        m.put("owner", r.ownerAgent());
        m.put("writer", r.writerAgent());
        m.put("logStatus", lower(r.status()));
        m.put("verification", lower(r.verification()));
        m.put("observedAt", time(r.observedAt()));
        m.put("recordedAt", time(r.recordedAt()));
        putIfSet(m, "validFrom", r.validFrom() == null ? null : time(r.validFrom()));
        putIfSet(m, "validTo", r.validTo() == null ? null : time(r.validTo()));
        putIfSet(m, "expiresAt", r.expiresAt() == null ? null : time(r.expiresAt()));
        putIfSet(m, "supersedes", r.supersedes());
        putIfSet(m, "conflictsWith", r.conflictsWith());
        putIfSet(m, "now", now);
        m.put("sensitive", r.sensitive());
        m.put("archived", r.archived());
        m.put("seq", r.seq());
        return m;
    }

    static String value(MemoryRecord r) {
        if (r.value() == null) {
            return "";
        }
        return r.sensitive() ? HIDDEN : r.text();
    }

    /** {@code persistent}, {@code session/<s>} or {@code task/<s>/<t>}: identifiers never hold a slash. */
    static String scopeId(Scope s) {
        return switch (s.layer()) {
            case PERSISTENT -> "persistent";
            case SESSION -> "session/" + s.session();
            case TASK -> "task/" + s.session() + "/" + s.task();
        };
    }

    /** The scope a {@link #scopeId} names for the user; a malformed one is a bad request. */
    static Scope scope(String tenant, String user, String id) {
        String[] parts = id.split("/", -1);
        try {
            if (parts.length == 1 && parts[0].equals("persistent")) {
                return Scope.persistent(tenant, user);
            }
            if (parts.length == 2 && parts[0].equals("session")) {
                return Scope.session(tenant, user, parts[1]);
            }
            if (parts.length == 3 && parts[0].equals("task")) {
                return Scope.task(tenant, user, parts[1], parts[2]);
            }
        } catch (IllegalArgumentException e) {
            throw new Http.BadRequest("scope " + quote(id) + ": " + e.getMessage());
        }
        throw new Http.BadRequest("scope must be persistent, session/<id> or task/<session>/<task>: " + quote(id));
    }

    static MemoryKey key(String path) {
        try {
            return MemoryKey.of(path);
        } catch (IllegalArgumentException e) {
            throw new Http.BadRequest("key " + quote(path) + ": " + e.getMessage());
        }
    }

    static String layer(Layer layer) {
        return lower(layer);
    }

    static String lower(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    static String time(Instant t) {
        return t.toString();
    }

    static void putIfSet(Map<String, Object> m, String name, @Nullable Object value) {
        if (value != null) {
            m.put(name, value);
        }
    }

    /** A value quoted for an error message, clipped, control characters shown as {@code ?}. */
    static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (int i = 0; i < s.length() && i < 80; i++) {
            char c = s.charAt(i);
            b.append(c < 0x20 ? '?' : c);
        }
        return b.append(s.length() > 80 ? "...\"" : "\"").toString();
    }
}

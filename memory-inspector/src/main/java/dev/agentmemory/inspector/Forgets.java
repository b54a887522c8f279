package dev.agentmemory.inspector;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ForgetMode;
import dev.agentmemory.core.ForgetReceipt;
import dev.agentmemory.core.ForgetTarget;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.Scope;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Forgets what the page asks, as the actor {@code inspector:<operator>} so that the engine's own
 * forget events in the log name who did it, and returns the receipt. The engine forgets a key,
 * a scope or the whole user; a "record" is forgotten with its key (every version of it), which
 * the page says before it asks for confirmation.
 */
final class Forgets {

    private final Views views;
    private final MemoryEngine engine;

    Forgets(Views views) {
        this.views = views;
        this.engine = views.memory().engine();
    }

    /** Forgets what {@code request} names ({@code user}, {@code target}, {@code mode}, and the target's fields). */
    Map<String, Object> forget(JsonNode request) {
        String user = text(request, "user");
        Caller reader = views.reader(user);
        Caller actor = new Caller(reader.tenant(), reader.user(), views.options().actor());
        ForgetMode mode = switch (text(request, "mode")) {
            case "soft" -> ForgetMode.SOFT;
            case "hard" -> ForgetMode.HARD;
            default -> throw new Http.BadRequest("mode must be soft or hard: " + Items.quote(text(request, "mode")));
        };
        String kind = text(request, "target");
        ForgetTarget target = switch (kind) {
            case "key" -> ForgetTarget.key(Items.scope(actor.tenant(), actor.user(), text(request, "scope")),
                    Items.key(text(request, "key")));
            case "record" -> {
                String id = text(request, "record");
                MemoryRecord r = engine.record(reader, id)
                        .orElseThrow(() -> new Http.NotFound("user " + user + " has no record " + Items.quote(id)));
                yield ForgetTarget.key(r.scope(), r.key());
            }
            case "conversation" -> {
                Scope s = Items.scope(actor.tenant(), actor.user(), "session/" + text(request, "session"));
                yield ForgetTarget.scope(s);
            }
            case "user" -> ForgetTarget.user();
            default -> throw new Http.BadRequest("target must be key, record, conversation or user: " + Items.quote(kind));
        };
        ForgetReceipt receipt = engine.forget(actor, target, mode);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("target", kind);
        out.put("what", describe(target));
        out.put("mode", Items.lower(receipt.mode()));
        out.put("by", actor.agent());
        out.put("records", receipt.recordIds().size());
        out.put("keys", receipt.keys());
        out.put("messages", receipt.messages());
        out.put("redacted", receipt.redacted());
        out.put("eventsScrubbed", receipt.eventsScrubbed());
        out.put("derived", receipt.derived());
        out.put("removedAnything", receipt.removedAnything());
        return out;
    }

    private static String describe(ForgetTarget t) {
        if (t instanceof ForgetTarget.Key k) {
            return "key " + k.key() + " in " + Items.scopeId(k.scope());
        }
        if (t instanceof ForgetTarget.WholeScope s) {
            return "conversation " + s.scope().session() + " (its state, tasks and messages)";
        }
        return "the whole user";
    }

    private static String text(JsonNode request, String field) {
        JsonNode n = request.get(field);
        if (n == null || !n.isTextual()) {
            throw new Http.BadRequest("field \"" + field + "\" must be a string");
        }
        return n.asText();
    }
}

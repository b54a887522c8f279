package dev.agentmemory.inspector;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentmemory.core.Caller;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.MemoryValue;

import java.util.Map;
import java.util.UUID;

/**
 * Writes every read of a user's memory into that user's event log. The engine has no event for a
 * read, so the inspector logs it as an action in the engine's ledger, intent and outcome together:
 * action {@code inspector.read}, actor {@code inspector:<operator>}, parameters naming the view
 * and what it showed. The readable log then says who looked at what, and when.
 */
final class ReadLog {

    static final String ACTION = "inspector.read";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final MemoryEngine engine;
    private final String actor;
    private final String operator;

    ReadLog(MemoryEngine engine, InspectorOptions options) {
        this.engine = engine;
        this.actor = options.actor();
        this.operator = options.operator();
    }

    /** Logs that {@code view} of {@code user} was read, with {@code detail} (parameters of the view). */
    void read(String tenant, String user, String view, Map<String, String> detail) {
        Caller caller = new Caller(tenant, user, actor);
        ObjectNode params = JSON.createObjectNode();
        params.put("operator", operator);
        params.put("view", view);
        detail.forEach(params::put);
        String operationId = "inspector-read-" + UUID.randomUUID();
        engine.ledger().begin(caller, operationId, ACTION, MemoryValue.parse(params.toString()));
        engine.ledger().complete(caller, operationId, true, MemoryValue.of("shown"));
    }
}

package dev.agentmemory.demo;

import static java.util.Objects.requireNonNull;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.MemoryValue;
import dev.agentmemory.core.Proposal.Outcome;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.Scope;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.core.MemoryRecord.Trust;
import dev.agentmemory.core.event.StoredMessage;
import dev.agentmemory.core.ledger.ActionRecord;
import dev.agentmemory.core.ledger.ActionRecord.ActionStart;
import dev.agentmemory.core.ledger.ActionRecord.OperationId;
import dev.agentmemory.langchain4j.SessionRef;
import dev.langchain4j.agent.tool.P;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.agent.tool.ToolMemoryId;
import org.jspecify.annotations.Nullable;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The shop's tools as the assistant sees them. Each tool talks to the {@link Shop} and records
 * what it learnt in memory through the engine: order data as trusted tool observations, policy
 * texts as untrusted observations with their validity, and side effects through the action
 * ledger so that a crash between the remote call and the local checkpoint is reconciled, never
 * repeated.
 */
final class ShopTools {

    static final String AGENT = "assistant";

    private final MemoryEngine engine;
    private final Shop shop;
    private final DemoTrace trace;
    private volatile Runnable afterRemoteCall = () -> { };

    ShopTools(MemoryEngine engine, Shop shop, DemoTrace trace) {
        this.engine = requireNonNull(engine, "engine");
        this.shop = requireNonNull(shop, "shop");
        this.trace = requireNonNull(trace, "trace");
    }

    /** Runs right after the shop accepted a side effect and before the local checkpoint (the crash drill halts here). */
    void afterRemoteCall(Runnable hook) {
        this.afterRemoteCall = requireNonNull(hook, "hook");
    }

    @Tool("Looks up the customer's orders by order number (or its last digits) or by item words, e.g. 'earbuds'.")
    String lookupOrder(@ToolMemoryId Object memoryId, @P("order number, its last digits, or item words") String query) {
        SessionRef ref = SessionRef.of(memoryId);
        List<Shop.Order> found = shop.findOrders(query);
        if (found.isEmpty()) {
            return "No order matches \"" + query + "\".";
        }
        Shop.Order o = found.get(0);
        Scope scope = DemoMemory.workingScope(engine, ref);
        String src = "lookupOrder#" + o.id();
        List<Proposal> ps = new ArrayList<>();
        ps.add(observation(scope, "order.current", o.id(), src));
        ps.add(observation(scope, "order:" + o.id() + ".item", o.item(), src));
        ps.add(observation(scope, "order:" + o.id() + ".color", o.color(), src));
        ps.add(observation(scope, "order:" + o.id() + ".purchased", o.purchased().toString(), src));
        ps.add(observation(scope, "order:" + o.id() + ".returnWindowEnds", o.returnWindowEnds().toString(), src));
        trace.outcomes(ref, engine.propose(caller(ref), ps));
        engine.aliases().register(caller(ref), "order:" + o.id(), o.item());
        LocalDate today = LocalDate.ofInstant(engine.clock().instant(), ZoneOffset.UTC);
        boolean within = !today.isAfter(o.returnWindowEnds());
        return "Order " + o.id() + ": " + o.item() + ", colour " + o.color() + ", bought " + o.purchased()
                + ", status " + o.status() + ", delivery address " + o.address() + ". Return window ends "
                + o.returnWindowEnds() + (within ? " (still open)." : " (closed).")
                + (found.size() > 1 ? " " + (found.size() - 1) + " more order(s) match." : "");
    }

    @Tool("Creates the exchange of an order for a replacement in the given colour. Safe to call again: the same "
            + "exchange is never created twice.")
    String createExchange(@ToolMemoryId Object memoryId, @P("the original order number") String orderNumber,
                          @P("colour of the replacement") String color) {
        SessionRef ref = SessionRef.of(memoryId);
        Caller caller = caller(ref);
        Shop.Order original = shop.order(orderNumber)
                .orElseThrow(() -> new IllegalArgumentException("no order " + orderNumber));
        String address = engine.current(caller, caller.persistent(), MemoryKey.of("order:" + original.id() + ".exchangeAddress"))
                .map(MemoryRecord::text).orElse(original.address());
        String opId = OperationId.of("create-exchange", "order:" + original.id(), color.toLowerCase(java.util.Locale.ROOT));
        MemoryValue params = MemoryValue.parse("{\"order\":" + json(original.id()) + ",\"color\":" + json(color)
                + ",\"address\":" + json(address) + "}");
        ActionStart start = engine.ledger().begin(caller, opId, "create-exchange", params);
        trace.note(ref, "ledger: beginAction(" + opId + ") -> " + start.decision());
        Shop.Order exchange;
        switch (start.decision()) {
            case ALREADY_DONE -> {
                String id = start.record().outcome() == null ? "?" : start.record().outcome().node().path("exchange").asText();
                return "The exchange was already created earlier: order " + id + " (operation " + opId
                        + "); nothing was sent to the shop again.";
            }
            case NEEDS_RECONCILIATION -> {
                Optional<Shop.Order> done = reconcile(caller, ref, start.record());
                if (done.isPresent()) {
                    return "The exchange had already reached the shop before an interruption: order " + done.get().id()
                            + " (reconciled, not sent again).";
                }
                exchange = shop.createExchange(opId, original.id(), color, address).order();
                afterRemoteCall.run();
            }
            default -> {
                exchange = shop.createExchange(opId, original.id(), color, address).order();
                afterRemoteCall.run();
            }
        }
        checkpoint(caller, ref, opId, exchange);
        return "Exchange created: order " + exchange.id() + " replaces " + original.id() + " with " + exchange.item()
                + " in " + exchange.color() + ", shipping to " + exchange.address() + ".";
    }

    /**
     * Settles a pending create-exchange by asking the shop: when the exchange exists, the ledger
     * records it (and memory gets the reference); otherwise nothing is recorded and the caller
     * may perform it.
     */
    Optional<Shop.Order> reconcile(Caller caller, SessionRef ref, ActionRecord pending) {
        Optional<Shop.Order> remote = shop.exchangeByOperation(pending.operationId());
        trace.note(ref, "reconcile " + pending.operationId() + ": the shop "
                + remote.map(o -> "already has exchange " + o.id()).orElse("has no exchange for it"));
        remote.ifPresent(o -> checkpoint(caller, ref, pending.operationId(), o));
        return remote;
    }

    private void checkpoint(Caller caller, SessionRef ref, String opId, Shop.Order exchange) {
        engine.ledger().complete(caller, opId, true, MemoryValue.parse("{\"exchange\":" + json(exchange.id()) + "}"));
        trace.note(ref, "ledger: completeAction(" + opId + ") -> exchange " + exchange.id());
        Proposal p = Proposal.set(caller.persistent(), MemoryKey.of("order:" + exchange.replaces() + ".exchangeOrder"),
                        MemoryValue.of(exchange.id()))
                .kind(Kind.REFERENCE).source(Source.SYSTEM, "ledger:" + opId).build();
        trace.outcomes(ref, engine.propose(caller, List.of(p)));
    }

    @Tool("Changes the delivery address of an order that has not been delivered yet (e.g. an exchange order).")
    String changeAddress(@ToolMemoryId Object memoryId, @P("order number") String orderNumber,
                         @P("the new delivery address") String address) {
        SessionRef ref = SessionRef.of(memoryId);
        Shop.Order o = shop.changeAddress(orderNumber, address);
        trace.note(ref, "shop: address of order " + o.id() + " set to " + o.address());
        return "Delivery address of order " + o.id() + " (" + o.item() + ", " + o.color() + ") is now " + o.address() + ".";
    }

    @Tool("Records the delivery address for an exchange that was requested but not created yet.")
    String setExchangeAddress(@ToolMemoryId Object memoryId, @P("the original order number") String orderNumber,
                              @P("the delivery address for the replacement") String address) {
        SessionRef ref = SessionRef.of(memoryId);
        Caller caller = caller(ref);
        Shop.Order o = shop.order(orderNumber).orElseThrow(() -> new IllegalArgumentException("no order " + orderNumber));
        Optional<StoredMessage> said = lastUserMessage(caller, ref);
        if (said.isEmpty() || said.get().text() == null || !said.get().text().contains(address.trim())) {
            return "Not recorded: the address must be the user's own words from their latest message.";
        }
        Proposal p = Proposal.set(caller.persistent(), MemoryKey.of("order:" + o.id() + ".exchangeAddress"),
                MemoryValue.of(address.trim())).kind(Kind.DECISION)
                .source(Source.USER, "message:" + ref.session() + "#" + said.get().index()).build();
        List<Outcome> out = engine.propose(caller, List.of(p));
        trace.outcomes(ref, out);
        if (out.get(0).isRejected()) {
            return "Not recorded: " + out.get(0).reason();
        }
        return "The replacement for order " + o.id() + " will ship to " + address + " (original order " + o.id()
                + " keeps " + o.address() + ").";
    }

    private Optional<StoredMessage> lastUserMessage(Caller caller, SessionRef ref) {
        List<StoredMessage> window = engine.messages().window(caller, ref.session());
        for (int i = window.size() - 1; i >= 0; i--) {
            if (window.get(i).type().equals("USER")) {
                return Optional.of(window.get(i));
            }
        }
        return Optional.empty();
    }

    @Tool("Looks up a shop policy by id (e.g. P17 out-of-town delivery, P20 exchange approval, P05 returns). "
            + "Give forDate (yyyy-MM-dd) to learn which remembered version applies on that date.")
    String lookupPolicy(@ToolMemoryId Object memoryId, @P("policy id, e.g. P17") String policyId,
                        @P(value = "date the answer is for, yyyy-MM-dd, or empty", required = false) String forDate) {
        SessionRef ref = SessionRef.of(memoryId);
        Caller caller = caller(ref);
        Shop.PolicyVersion v = shop.policy(policyId)
                .orElseThrow(() -> new IllegalArgumentException("no policy " + policyId));
        Scope scope = DemoMemory.workingScope(engine, ref);
        String key = "policy:" + v.id() + (v.limit() != null && v.id().equals("P17") ? ".limit" : ".text");
        String value = key.endsWith(".limit") ? String.valueOf(v.limit()) : v.text();
        Proposal p = Proposal.set(scope, MemoryKey.of(key), MemoryValue.of(value))
                .kind(Kind.OBSERVATION).source(Source.TOOL, "lookupPolicy#" + v.id() + "v" + v.version())
                .trust(Trust.UNTRUSTED)
                .validity(v.validFrom() == null ? null : v.validFrom().atStartOfDay().toInstant(ZoneOffset.UTC),
                        v.validTo() == null ? null : v.validTo().atStartOfDay().toInstant(ZoneOffset.UTC))
                .build();
        trace.outcomes(ref, engine.propose(caller, List.of(p)));
        StringBuilder out = new StringBuilder("Policy " + v.id() + " version " + v.version() + validity(v) + ": " + v.text());
        if (forDate != null && !forDate.isBlank()) {
            Instant at = parseDate(forDate);
            Optional<MemoryRecord> applies = engine.applicableAt(caller, scope, MemoryKey.of(key), at);
            out.append(" | For ").append(forDate.trim()).append(": ");
            if (applies.isPresent()) {
                MemoryRecord r = applies.get();
                out.append("the remembered version that applies is ").append(r.sourceRef()).append(" with ")
                        .append(key.endsWith(".limit") ? "limit " : "text ").append(r.text())
                        .append(" (valid ").append(day(r.validFrom())).append(" to ").append(day(r.validTo())).append(")");
                if (!r.text().equals(value)) {
                    out.append("; the newest version does not apply to that date");
                }
                out.append('.');
            } else {
                out.append("no remembered version applies.");
            }
        }
        return out.toString();
    }

    private static String validity(Shop.PolicyVersion v) {
        if (v.validFrom() == null && v.validTo() == null) {
            return "";
        }
        return " (valid " + (v.validFrom() == null ? "open" : v.validFrom()) + " to "
                + (v.validTo() == null ? "open" : v.validTo().minusDays(1)) + ")";
    }

    private static String day(@Nullable Instant t) {
        return t == null ? "open" : LocalDate.ofInstant(t, ZoneOffset.UTC).toString();
    }

    private static Instant parseDate(String s) {
        try {
            return LocalDate.parse(s.trim()).atStartOfDay().toInstant(ZoneOffset.UTC);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("forDate must be yyyy-MM-dd: \"" + s + "\"", e);
        }
    }

    private static Proposal observation(Scope scope, String key, String value, String src) {
        return Proposal.set(scope, MemoryKey.of(key), MemoryValue.of(value))
                .kind(Kind.OBSERVATION).source(Source.TOOL, src).trust(Trust.TRUSTED).build();
    }

    static Caller caller(SessionRef ref) {
        return ref.caller(AGENT);
    }

    static String json(String s) {
        return MemoryValue.of(s).json();
    }
}

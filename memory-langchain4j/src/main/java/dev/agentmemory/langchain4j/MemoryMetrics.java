package dev.agentmemory.langchain4j;

import io.micrometer.core.instrument.MeterRegistry;
import java.util.Objects;

/**
 * Metrics of the memory in a Micrometer {@link MeterRegistry}, all named {@code agentmemory.*} and
 * tagged {@code memory} with the agent: recall latency by layer, items framed and cut, writes by
 * outcome (conflicts among them), forgets, the episodic index's backlog, store errors and the
 * events caught up from other instances of a shared store. Given to {@link AgentMemory.Builder#metrics};
 * without it nothing is counted and no Micrometer class is loaded (Micrometer is an optional
 * dependency: add {@code io.micrometer:micrometer-core}). The meters are removed from the registry
 * when the memory closes.
 *
 * <p>Writes, forgets and catch-up are counted from the events the engine commits, so every way in
 * counts (tools, the chat memory store, plain words, calls on {@link AgentMemory#engine()}); a
 * write the engine refuses stores nothing and is counted as {@code rejected} where a memory tool
 * made it. Store errors and catch-up are counted when the builder makes the engine (not with
 * {@link AgentMemory.Builder#engine}).
 */
public final class MemoryMetrics {

    /** Timer: one recall, {@code layer=all}, and each layer's part of it ({@code state}, {@code persistent}, {@code episodic}). */
    public static final String RECALL_DURATION = "agentmemory.recall.duration";
    /** Counter: items a recall put in the memory block ({@code outcome=framed}) or left out for the budget ({@code outcome=cut}). */
    public static final String RECALL_ITEMS = "agentmemory.recall.items";
    /** Counter: record writes by {@code outcome}: {@code accepted}, {@code superseded}, {@code conflict}, {@code rejected}. */
    public static final String WRITES = "agentmemory.writes";
    /** Counter: forgets by {@code target} ({@code records}, {@code messages}, {@code user}) and {@code mode} ({@code soft}, {@code hard}). */
    public static final String FORGETS = "agentmemory.forgets";
    /** Gauge: messages and records committed and not yet in the episodic index. */
    public static final String INDEX_PENDING = "agentmemory.index.pending";
    /** Time gauge: how long the oldest commit waiting for the episodic index has waited (0 when none). */
    public static final String INDEX_LAG = "agentmemory.index.lag";
    /** Counter: store calls that failed, by {@code operation} and {@code exception}. */
    public static final String STORE_ERRORS = "agentmemory.store.errors";
    /** Counter: events other instances committed to a shared store, applied here when this instance caught up. */
    public static final String CATCH_UP_EVENTS = "agentmemory.catchup.events";

    private final MeterRegistry registry;

    private MemoryMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    /** Meters in {@code registry} (the application's, e.g. Spring Boot's {@code MeterRegistry} bean). */
    public static MemoryMetrics micrometer(MeterRegistry registry) {
        return new MemoryMetrics(Objects.requireNonNull(registry, "registry"));
    }

    /** The meters of one memory, tagged with its agent. */
    MemoryMeters meters(String agent) {
        return new MicrometerMemoryMeters(registry, agent);
    }
}

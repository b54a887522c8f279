package dev.agentmemory.langchain4j;

import dev.agentmemory.core.internal.hooks.EventListener;
import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.langchain4j.internal.MemorySpans;

/**
 * Where one memory's metrics are taken, without naming any metrics library: {@code AgentMemory}
 * hands each hook point to it once (the spans its parts open, the store its engine writes
 * through, the engine's committed events, the episodic index's backlog), and only
 * {@link MemoryMetrics} makes the implementation, so that an application without Micrometer never
 * loads a Micrometer class. Nothing here is called on a hot path except through what it returns.
 */
interface MemoryMeters {

    /** {@code tracing} (or {@link MemorySpans#NONE}) decorated so that recalls and tool writes are also measured. */
    MemorySpans spans(MemorySpans tracing);

    /** The store a new engine writes through: counts its failures and knows which events this memory appended. */
    EventStore store(EventStore store);

    /** Told about the engine's committed events: writes by outcome, forgets, events caught up from other instances. */
    EventListener events();

    /** Reads the episodic index's backlog from now on, until {@link #close}. */
    void index(Backlog backlog);

    /** Removes what holds on to the memory (the gauges); counters and timers keep their totals. */
    void close();

    /** What the episodic index has not indexed yet. */
    interface Backlog {

        /** Messages and records committed and not indexed yet (with removals queued behind them). */
        int pendingItems();

        /** How long the oldest commit still queued has waited, by the engine's clock; zero when none. */
        java.time.Duration oldestWait();
    }
}

package dev.agentmemory.langchain4j;

import dev.agentmemory.core.MemoryRecord.Status;
import dev.agentmemory.core.event.Change;
import dev.agentmemory.core.event.LoggedEvent;
import dev.agentmemory.core.internal.hooks.EventListener;
import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.langchain4j.internal.MemorySpans;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The Micrometer meters of one memory (see {@link MemoryMetrics} for the names): the one place,
 * with {@link MeteredSpans} and {@link MeteredStore}, that touches Micrometer, reached only when
 * {@link AgentMemory.Builder#metrics} was given.
 */
final class MicrometerMemoryMeters implements MemoryMeters, EventListener {

    private final MeterRegistry registry;
    private final Tags tags;
    private final List<Meter> gauges = new CopyOnWriteArrayList<>();
    private volatile @Nullable MeteredStore store;

    MicrometerMemoryMeters(MeterRegistry registry, String agent) {
        this.registry = registry;
        this.tags = Tags.of("memory", agent);
    }

    @Override
    public MemorySpans spans(MemorySpans tracing) {
        return new MeteredSpans(tracing, this);
    }

    @Override
    public EventStore store(EventStore store) {
        MeteredStore metered = new MeteredStore(store, this);
        this.store = metered;
        return metered;
    }

    @Override
    public EventListener events() {
        return this;
    }

    @Override
    public void index(Backlog backlog) {
        gauges.add(Gauge.builder(MemoryMetrics.INDEX_PENDING, backlog, b -> b.pendingItems())
                .tags(tags).description("messages and records committed and not yet in the episodic index")
                .strongReference(true).register(registry));
        gauges.add(TimeGauge.builder(MemoryMetrics.INDEX_LAG, backlog, TimeUnit.NANOSECONDS,
                        b -> (double) b.oldestWait().toNanos())
                .tags(tags).description("how long the oldest commit waiting for the episodic index has waited")
                .strongReference(true).register(registry));
    }

    @Override
    public void close() {
        gauges.forEach(registry::remove);
        gauges.clear();
    }

    /**
     * Counts the engine's committed events: the writes and forgets this memory made, and, on a
     * store this memory writes through, the events other instances appended that the engine
     * applied when it caught up (those count only as catch-up, so that each write is counted once
     * in a fleet).
     */
    @Override
    public void committed(Partition partition, List<LoggedEvent> events) {
        MeteredStore mine = store;
        for (LoggedEvent e : events) {
            if (mine != null && !mine.appendedHere(partition, e.seq())) {
                counter(MemoryMetrics.CATCH_UP_EVENTS, Tags.empty()).increment();
                continue;
            }
            Change c = e.change();
            if (c instanceof Change.RecordWritten w) {
                if (w.record().status() == Status.CONFLICT) {
                    write("conflict");
                } else if (w.record().status() == Status.ACTIVE) {
                    write(w.superseded().isEmpty() ? "accepted" : "superseded");
                }
            } else if (c instanceof Change.RecordsForgotten f) {
                forget("records", f.hard());
            } else if (c instanceof Change.MessagesForgotten m) {
                forget("messages", m.hard());
            } else if (c instanceof Change.UserForgotten u) {
                forget("user", u.hard());
            }
        }
        if (mine != null && !events.isEmpty()) {
            mine.announced(partition, events.get(events.size() - 1).seq());
        }
    }

    void write(String outcome) {
        counter(MemoryMetrics.WRITES, Tags.of("outcome", outcome)).increment();
    }

    private void forget(String target, boolean hard) {
        counter(MemoryMetrics.FORGETS, Tags.of("target", target, "mode", hard ? "hard" : "soft")).increment();
    }

    void recallItems(String outcome, long n) {
        counter(MemoryMetrics.RECALL_ITEMS, Tags.of("outcome", outcome)).increment(n);
    }

    void recallTime(String layer, long nanos) {
        Timer.builder(MemoryMetrics.RECALL_DURATION).tags(tags).tag("layer", layer)
                .description("recall latency, the whole recall (layer=all) and each layer's part")
                .register(registry).record(nanos, TimeUnit.NANOSECONDS);
    }

    void storeError(String operation, RuntimeException e) {
        counter(MemoryMetrics.STORE_ERRORS, Tags.of("operation", operation, "exception", e.getClass().getSimpleName()))
                .increment();
    }

    private Counter counter(String name, Tags more) {
        return Counter.builder(name).tags(tags).tags(more).register(registry);
    }
}

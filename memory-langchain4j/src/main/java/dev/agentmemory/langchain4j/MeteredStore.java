package dev.agentmemory.langchain4j;

import dev.agentmemory.core.StaleVersionException;
import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.core.spi.StoredEvent;
import dev.agentmemory.core.spi.StoredSnapshot;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The store a metered memory's engine writes through: passes every call on, counts the calls that
 * fail ({@link MemoryMetrics#STORE_ERRORS}; an append refused because another writer appended
 * first is a race the engine retries, not an error), and remembers the sequence numbers of this
 * memory's own last append per user, so that the events listener can tell them from the events
 * other instances appended.
 */
final class MeteredStore extends EventStore.ForwardingEventStore {

    private final MicrometerMemoryMeters meters;
    /** Per user, the first and last sequence of this memory's last append not yet announced. */
    private final Map<Partition, long[]> appended = new ConcurrentHashMap<>();

    MeteredStore(EventStore delegate, MicrometerMemoryMeters meters) {
        super(delegate);
        this.meters = meters;
    }

    /** Whether event {@code seq} of {@code partition} is one this memory appended (and not yet announced). */
    boolean appendedHere(Partition partition, long seq) {
        long[] range = appended.get(partition);
        return range != null && seq >= range[0] && seq <= range[1];
    }

    /** The listeners were told about events of {@code partition} up to {@code seq}. */
    void announced(Partition partition, long seq) {
        appended.computeIfPresent(partition, (p, range) -> seq >= range[1] ? null : range);
    }

    @Override
    public void append(Partition partition, long expectedLastSeq, List<StoredEvent> events) {
        call("append", () -> {
            super.append(partition, expectedLastSeq, events);
            return null;
        });
        if (!events.isEmpty()) {
            appended.put(partition, new long[] {expectedLastSeq + 1, expectedLastSeq + events.size()});
        }
    }

    @Override
    public List<StoredEvent> read(Partition partition, long afterSeq) {
        return call("read", () -> super.read(partition, afterSeq));
    }

    @Override
    public long lastSequence(Partition partition) {
        return call("last_sequence", () -> super.lastSequence(partition));
    }

    @Override
    public void rewrite(Partition partition, Map<Long, String> payloadBySeq) {
        call("rewrite", () -> {
            super.rewrite(partition, payloadBySeq);
            return null;
        });
    }

    @Override
    public List<Partition> partitions(String tenant) {
        return call("partitions", () -> super.partitions(tenant));
    }

    @Override
    public Optional<StoredSnapshot> snapshot(Partition partition) {
        return call("snapshot", () -> super.snapshot(partition));
    }

    @Override
    public boolean saveSnapshot(Partition partition, StoredSnapshot snapshot) {
        return call("save_snapshot", () -> super.saveSnapshot(partition, snapshot));
    }

    @Override
    public void deleteSnapshots(Partition partition) {
        call("delete_snapshots", () -> {
            super.deleteSnapshots(partition);
            return null;
        });
    }

    @Override
    public void compact() {
        call("compact", () -> {
            super.compact();
            return null;
        });
    }

    private <T> T call(String operation, Supplier<T> call) {
        try {
            return call.get();
        } catch (StaleVersionException race) {
            throw race;
        } catch (RuntimeException e) {
            meters.storeError(operation, e);
            throw e;
        }
    }
}

package dev.agentmemory.core.store;

import dev.agentmemory.core.StaleVersionException;
import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.core.spi.StoredEvent;
import dev.agentmemory.core.spi.StoredSnapshot;

import dev.agentmemory.core.spi.StoredVector;
import dev.agentmemory.core.spi.VectorModel;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** An {@link EventStore} in the heap: fast, and gone with the process. Thread-safe. */
public final class InMemoryEventStore implements EventStore {

    private final Map<Partition, List<StoredEvent>> logs = new ConcurrentHashMap<>();
    private final Map<Partition, StoredSnapshot> snapshots = new ConcurrentHashMap<>();
    /** Per partition: item and model to vector. Guarded by the map itself. */
    private final Map<Partition, Map<String, Map<VectorModel, StoredVector>>> vectors = new ConcurrentHashMap<>();

    @Override
    public void append(Partition partition, long expectedLastSeq, List<StoredEvent> events) {
        Objects.requireNonNull(partition, "partition");
        Objects.requireNonNull(events, "events");
        List<StoredEvent> log = logs.computeIfAbsent(partition, p -> new ArrayList<>());
        synchronized (log) {
            if (log.size() != expectedLastSeq) {
                throw new StaleVersionException("partition " + partition + " is at seq " + log.size()
                        + ", not " + expectedLastSeq);
            }
            long next = expectedLastSeq + 1;
            for (StoredEvent e : events) {
                if (e.seq() != next++) {
                    throw new IllegalArgumentException("event seq " + e.seq() + " does not continue " + (next - 2));
                }
            }
            log.addAll(events);
        }
    }

    @Override
    public List<StoredEvent> read(Partition partition, long afterSeq) {
        List<StoredEvent> log = logs.get(Objects.requireNonNull(partition, "partition"));
        if (log == null) {
            return List.of();
        }
        synchronized (log) {
            int from = (int) Math.min(Math.max(afterSeq, 0), log.size());
            return List.copyOf(log.subList(from, log.size()));
        }
    }

    @Override
    public long lastSequence(Partition partition) {
        List<StoredEvent> log = logs.get(Objects.requireNonNull(partition, "partition"));
        if (log == null) {
            return 0;
        }
        synchronized (log) {
            return log.size();
        }
    }

    @Override
    public void rewrite(Partition partition, Map<Long, String> payloadBySeq) {
        List<StoredEvent> log = logs.get(Objects.requireNonNull(partition, "partition"));
        if (log == null) {
            return;
        }
        synchronized (log) {
            payloadBySeq.forEach((seq, payload) -> {
                if (seq >= 1 && seq <= log.size()) {
                    StoredEvent e = log.get((int) (seq - 1));
                    log.set((int) (seq - 1), new StoredEvent(e.seq(), e.at(), e.type(), e.actor(), e.traceId(), payload));
                }
            });
        }
        Map<String, Map<VectorModel, StoredVector>> kept = vectors.get(partition);
        if (kept != null) {
            synchronized (kept) {
                kept.values().forEach(byModel -> byModel.values().removeIf(v -> payloadBySeq.containsKey(v.seq())));
                kept.values().removeIf(Map::isEmpty);
            }
        }
    }

    @Override
    public boolean keepsVectors() {
        return true;
    }

    @Override
    public void saveVectors(Partition partition, VectorModel model, List<StoredVector> batch) {
        Objects.requireNonNull(partition, "partition");
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(batch, "vectors");
        for (StoredVector v : batch) {
            if (v.vector().length != model.dimension()) {
                throw new IllegalArgumentException("vector of " + v.item() + " has " + v.vector().length
                        + " dimensions, not the " + model.dimension() + " of " + model);
            }
        }
        Map<String, Map<VectorModel, StoredVector>> kept = vectors.computeIfAbsent(partition, p -> new HashMap<>());
        synchronized (kept) {
            for (StoredVector v : batch) {
                kept.computeIfAbsent(v.item(), i -> new HashMap<>()).putIfAbsent(model,
                        new StoredVector(v.item(), v.seq(), v.vector().clone()));
            }
        }
    }

    @Override
    public Map<String, StoredVector> vectors(Partition partition, VectorModel model, Collection<String> items) {
        Objects.requireNonNull(partition, "partition");
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(items, "items");
        Map<String, Map<VectorModel, StoredVector>> kept = vectors.get(partition);
        if (kept == null) {
            return Map.of();
        }
        Map<String, StoredVector> found = new HashMap<>();
        synchronized (kept) {
            for (String item : items) {
                StoredVector v = kept.getOrDefault(item, Map.of()).get(model);
                if (v != null) {
                    found.put(item, new StoredVector(v.item(), v.seq(), v.vector().clone()));
                }
            }
        }
        return found;
    }

    @Override
    public void deleteVectors(Partition partition, Collection<String> items) {
        Objects.requireNonNull(items, "items");
        Map<String, Map<VectorModel, StoredVector>> kept = vectors.get(Objects.requireNonNull(partition, "partition"));
        if (kept != null) {
            synchronized (kept) {
                items.forEach(kept::remove);
            }
        }
    }

    @Override
    public void deleteAllVectors(Partition partition) {
        vectors.remove(Objects.requireNonNull(partition, "partition"));
    }

    @Override
    public Optional<StoredSnapshot> snapshot(Partition partition) {
        return Optional.ofNullable(snapshots.get(Objects.requireNonNull(partition, "partition")));
    }

    @Override
    public boolean saveSnapshot(Partition partition, StoredSnapshot snapshot) {
        Objects.requireNonNull(snapshot, "snapshot");
        List<StoredEvent> log = logs.get(Objects.requireNonNull(partition, "partition"));
        if (log == null) {
            return false;
        }
        synchronized (log) {
            if (log.size() != snapshot.seq()) {
                return false;
            }
            snapshots.put(partition, snapshot);
            return true;
        }
    }

    @Override
    public void deleteSnapshots(Partition partition) {
        snapshots.remove(Objects.requireNonNull(partition, "partition"));
    }

    @Override
    public List<Partition> partitions(String tenant) {
        Objects.requireNonNull(tenant, "tenant");
        return logs.keySet().stream().filter(p -> p.tenant().equals(tenant) && lastSequence(p) > 0)
                .sorted((a, b) -> a.user().compareTo(b.user())).toList();
    }

    @Override
    public void close() {
    }

    @Override
    public String toString() {
        return "InMemoryEventStore";
    }
}

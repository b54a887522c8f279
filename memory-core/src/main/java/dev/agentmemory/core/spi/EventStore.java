package dev.agentmemory.core.spi;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where memory events are kept. The engine decides what is written; a store appends and reads
 * back, nothing more, so a new backend cannot get policy wrong.
 *
 * <p>Contract (checked by {@code EventStoreContract} in memory-core's test jar):
 * <ul>
 *   <li>Thread-safe. Appends to one partition are atomic: all of a batch or none of it is ever
 *       visible, also after a crash.</li>
 *   <li>{@link #append} succeeds only if the partition's last sequence equals
 *       {@code expectedLastSeq} and the batch's sequences continue it contiguously; otherwise it
 *       throws {@link dev.agentmemory.core.StaleVersionException} and stores nothing.</li>
 *   <li>Reads return events in sequence order, never null; an unknown partition reads as empty.</li>
 *   <li>Partitions are isolated: nothing read from one ever comes from another.</li>
 * </ul>
 * Implementations grow only by default methods.
 */
public interface EventStore extends AutoCloseable {

    /** Appends {@code events} (sequences {@code expectedLastSeq+1 ...}) atomically. */
    void append(Partition partition, long expectedLastSeq, List<StoredEvent> events);

    /** Events of the partition with sequence greater than {@code afterSeq}, in order. */
    List<StoredEvent> read(Partition partition, long afterSeq);

    /** The last sequence of the partition, 0 when it has none. */
    long lastSequence(Partition partition);

    /**
     * Replaces the payloads of stored events, for hard forgetting only: the log is append-only
     * except that purged bytes must be removed. Unknown sequences are ignored. A store that
     * {@linkplain #keepsVectors keeps vectors} also deletes those derived from a replaced event
     * (its {@link StoredVector#seq}), in any model.
     */
    void rewrite(Partition partition, Map<Long, String> payloadBySeq);

    /** Every partition of a tenant that has events. */
    List<Partition> partitions(String tenant);

    /**
     * The partition's latest snapshot, if this store keeps snapshots (optional capability: by
     * default none, and the engine replays the whole log). May be stale or damaged: the engine
     * checks it and falls back to the log.
     */
    default Optional<StoredSnapshot> snapshot(Partition partition) {
        return Optional.empty();
    }

    /**
     * Keeps {@code snapshot} as the partition's snapshot, replacing any older one, but only while
     * the partition's last sequence is still {@code snapshot.seq()} (a write or forget that got
     * in first wins; the snapshot is then dropped). Returns whether it was kept. Keeps nothing by
     * default.
     */
    default boolean saveSnapshot(Partition partition, StoredSnapshot snapshot) {
        return false;
    }

    /**
     * Deletes the partition's snapshots (a forget: no snapshot may keep a value that was since
     * forgotten; a hard forget's {@link #compact} then removes their bytes too). No-op by default.
     */
    default void deleteSnapshots(Partition partition) {
    }

    /**
     * Whether this store keeps embedding vectors next to its events (optional capability: by
     * default it keeps none, {@link #saveVectors} drops them and {@link #vectors} finds none, and
     * every instance embeds what it indexes itself).
     */
    default boolean keepsVectors() {
        return false;
    }

    /**
     * Keeps the vectors of texts of the partition made by {@code model}, each next to the event
     * it was derived from; a vector already kept for the same item and model is left as it is
     * (several instances may embed the same text; the first one kept wins). Derived data: losing
     * it in a crash only costs embedding again. Every vector's length must be the model's
     * dimension ({@link IllegalArgumentException} naming the item otherwise, and nothing of the
     * batch is kept). No-op by default.
     */
    default void saveVectors(Partition partition, VectorModel model, List<StoredVector> vectors) {
    }

    /**
     * The vectors kept for {@code items} of the partition, made by exactly {@code model} (name
     * and dimension), by item; items without one are missing from the map. One round trip for
     * the whole batch. Empty by default.
     */
    default Map<String, StoredVector> vectors(Partition partition, VectorModel model, Collection<String> items) {
        return Map.of();
    }

    /**
     * Deletes the partition's vectors of {@code items} in every model (a forget: no derived copy
     * of a forgotten text may stay). Unknown items are ignored. No-op by default.
     */
    default void deleteVectors(Partition partition, Collection<String> items) {
    }

    /** Deletes every vector of the partition in every model (the user is forgotten). No-op by default. */
    default void deleteAllVectors(Partition partition) {
    }

    /**
     * Whether other writers (another engine, another process or machine) may append to this
     * store while this engine runs on it, as several instances of one application on one database
     * server do. When true (the default, always safe) the engine checks a user's
     * {@link #lastSequence} before every call on that user and catches up on what others
     * appended, so a write acknowledged anywhere is seen by the next call everywhere; a store
     * only this engine writes to (an embedded file it owns) returns false and saves that query.
     */
    default boolean sharedWithOtherWriters() {
        return true;
    }

    /**
     * Facts about the stored data as a whole that every audit reports, one line each: for an H2
     * file, that it was opened without its high-water mark, so that the completeness of what it
     * held then could not be checked. Never null; none by default.
     */
    default List<String> auditFindings() {
        return List.of();
    }

    /** Reclaims space freed by rewrites so purged bytes leave the storage medium. No-op by default. */
    default void compact() {
    }

    /** Releases resources. */
    @Override
    void close();

    /**
     * An {@link EventStore} that passes every call to another, the optional ones included: extend it
     * to observe or change some calls (count, time, log, wrap errors) and override only those. A
     * decorator written from scratch must also pass on every default method, or the engine silently
     * gets the default instead of the store's answer: a wrapper that forgets
     * {@link #sharedWithOtherWriters()} over a shared database would let an instance serve stale
     * state, one that forgets {@link #snapshot} replays whole logs. This class passes on each default
     * method the interface gains.
     */
    public class ForwardingEventStore implements EventStore {

        private final EventStore delegate;

        /** Passes every call to {@code delegate}. */
        public ForwardingEventStore(EventStore delegate) {
            this.delegate = java.util.Objects.requireNonNull(delegate, "delegate");
        }

        /** The store every call goes to. */
        protected final EventStore delegate() {
            return delegate;
        }

        @Override
        public void append(Partition partition, long expectedLastSeq, List<StoredEvent> events) {
            delegate.append(partition, expectedLastSeq, events);
        }

        @Override
        public List<StoredEvent> read(Partition partition, long afterSeq) {
            return delegate.read(partition, afterSeq);
        }

        @Override
        public long lastSequence(Partition partition) {
            return delegate.lastSequence(partition);
        }

        @Override
        public void rewrite(Partition partition, Map<Long, String> payloadBySeq) {
            delegate.rewrite(partition, payloadBySeq);
        }

        @Override
        public List<Partition> partitions(String tenant) {
            return delegate.partitions(tenant);
        }

        @Override
        public Optional<StoredSnapshot> snapshot(Partition partition) {
            return delegate.snapshot(partition);
        }

        @Override
        public boolean saveSnapshot(Partition partition, StoredSnapshot snapshot) {
            return delegate.saveSnapshot(partition, snapshot);
        }

        @Override
        public void deleteSnapshots(Partition partition) {
            delegate.deleteSnapshots(partition);
        }

        @Override
        public boolean keepsVectors() {
            return delegate.keepsVectors();
        }

        @Override
        public void saveVectors(Partition partition, VectorModel model, List<StoredVector> vectors) {
            delegate.saveVectors(partition, model, vectors);
        }

        @Override
        public Map<String, StoredVector> vectors(Partition partition, VectorModel model, Collection<String> items) {
            return delegate.vectors(partition, model, items);
        }

        @Override
        public void deleteVectors(Partition partition, Collection<String> items) {
            delegate.deleteVectors(partition, items);
        }

        @Override
        public void deleteAllVectors(Partition partition) {
            delegate.deleteAllVectors(partition);
        }

        @Override
        public boolean sharedWithOtherWriters() {
            return delegate.sharedWithOtherWriters();
        }

        @Override
        public List<String> auditFindings() {
            return delegate.auditFindings();
        }

        @Override
        public void compact() {
            delegate.compact();
        }

        @Override
        public void close() {
            delegate.close();
        }

        /** The delegate's, so that errors naming this store name the real one. */
        @Override
        public String toString() {
            return delegate.toString();
        }
    }
}

package dev.agentmemory.core.spi;

/**
 * Data derived from memory (an embedding index, summaries, a cache) that must forget what the
 * engine forgets. Registered on the engine builder or with {@code MemoryEngine.register}; called
 * after the forget is committed to the log, on the forgetting thread. Implementations are
 * thread-safe.
 */
public interface DerivedData {

    /** A short name for receipts, e.g. {@code "embeddings"}. */
    String name();

    /** Removes everything derived from what {@code request} names; returns how many items went. */
    int forget(ForgetRequest request);

    /**
     * Makes what was forgotten leave the storage medium (e.g. rewrites index files that still hold
     * deleted items). Called by {@code MemoryEngine.compact()} after the store's compaction. Default:
     * nothing, for derived data that holds nothing on disk.
     */
    default void compact() {
    }
}

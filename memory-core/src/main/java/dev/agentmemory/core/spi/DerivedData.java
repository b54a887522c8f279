package dev.agentmemory.core.spi;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

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

    /**
     * What a forget removed, handed to every registered {@link DerivedData} so that copies derived
     * from it (embeddings, summaries, caches) go too.
     *
     * @param partition  whose memory
     * @param recordIds  ids of forgotten records
     * @param messages   forgotten message indices by session
     * @param wholeUser  whether everything of the user was forgotten
     * @param hard       whether bytes must be removed (not only hidden)
     * @param redacted   indices of messages redacted because they stated a forgotten value, by
     *                   session (they stay in history and window, rewritten; copies of their old
     *                   content must go)
     * @param values     the forgotten values, for {@link #states}
     * @param followed   whether another engine on a shared store made the forget and this engine
     *                   learned of it by following the log (see
     *                   {@link EventStore#sharedWithOtherWriters()}): derived data removes its own
     *                   copies as always, but writes nothing to the memory in response (dropping a
     *                   summary record, say), since the engine that made the forget does that
     */
    public record ForgetRequest(Partition partition, Set<String> recordIds, Map<String, List<Long>> messages,
                                boolean wholeUser, boolean hard, Map<String, List<Long>> redacted, StatedValues values,
                                boolean followed) {
        public ForgetRequest {
            Objects.requireNonNull(partition, "partition");
            recordIds = Set.copyOf(recordIds);
            messages = Map.copyOf(messages);
            redacted = Map.copyOf(redacted);
            Objects.requireNonNull(values, "values");
        }

        /** A forget made by this engine. */
        public ForgetRequest(Partition partition, Set<String> recordIds, Map<String, List<Long>> messages,
                             boolean wholeUser, boolean hard, Map<String, List<Long>> redacted, StatedValues values) {
            this(partition, recordIds, messages, wholeUser, hard, redacted, values, false);
        }

        /** A forget made by this engine that redacted no message and names no value. */
        public ForgetRequest(Partition partition, Set<String> recordIds, Map<String, List<Long>> messages,
                             boolean wholeUser, boolean hard) {
            this(partition, recordIds, messages, wholeUser, hard, Map.of(), StatedValues.of(List.of()));
        }

        /**
         * Whether {@code text} states one of the forgotten values (normalised, case-insensitive, on
         * word boundaries; values under three characters never match by text), the rule the engine
         * uses to find the messages it redacts. For derived text (a summary, a cached prompt).
         */
        public boolean states(String text) {
            return values.statedIn(Objects.requireNonNull(text, "text"));
        }
    }
}

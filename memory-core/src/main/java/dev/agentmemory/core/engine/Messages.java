package dev.agentmemory.core.engine;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.event.StoredMessage;

import java.util.List;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * The chat messages of a user's sessions, from {@link MemoryEngine#messages()}: each session has
 * a history by index (tombstones and redacted forms included) and a window, the messages a chat
 * memory currently holds. A forget reaches both (see {@link MemoryEngine#forget}).
 */
public interface Messages {

    /** The messages in a session's window, in window order. */
    List<StoredMessage> window(Caller caller, String session);

    /** A session's whole history by index, including messages out of the window and tombstones. */
    NavigableMap<Long, StoredMessage> history(Caller caller, String session);

    /**
     * Changes a session's window in one atomic append: {@code evicted} indices leave the window
     * (they stay in the history), then {@code appended} messages join it. {@code compute} sees
     * the current window and returns the change, so the decision and the write happen under the
     * user's lock. An appended message over {@link #maxMessageChars()} or whose index does not
     * continue the history fails the call with {@link IllegalArgumentException}; nothing is written.
     */
    WindowChange change(Caller caller, String session,
                                     Function<List<StoredMessage>, WindowChange> compute);

    /**
     * As {@link #change}, with the index the first appended message must have (one past the last
     * of the history, under the same lock), so that writers that do not share a cache never
     * disagree about it.
     */
    WindowChange changeIndexed(Caller caller, String session,
                                            BiFunction<List<StoredMessage>, Long, WindowChange> compute);

    /** The longest serialized message, in characters, a window accepts ({@link MemoryEngine.Builder#maxMessageChars}). */
    int maxMessageChars();

    /**
     * A change to a session's window.
     *
     * @param evicted  indices leaving the window
     * @param appended new messages, with indices continuing the history
     */
    record WindowChange(List<Long> evicted, List<StoredMessage> appended) {
        public WindowChange {
            Objects.requireNonNull(evicted, "evicted");
            Objects.requireNonNull(appended, "appended");
            evicted.forEach(i -> Objects.requireNonNull(i, "evicted index"));
            appended.forEach(m -> Objects.requireNonNull(m, "appended message"));
            evicted = List.copyOf(evicted);
            appended = List.copyOf(appended);
        }
    }
}

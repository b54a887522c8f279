package dev.agentmemory.langchain4j;

import dev.agentmemory.core.spi.Partition;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the recent augmentations of each session used, shared by every augmentor of one
 * {@link AgentMemory}: the last {@value #TURNS_PER_SESSION} recalls per session, in memory only.
 * Thread-safe.
 */
final class LastRecalls {

    /** How many recent recalls a session keeps; older ones are dropped first. */
    static final int TURNS_PER_SESSION = 50;

    private final Map<SessionRef, Deque<Recall>> recent = new HashMap<>();

    synchronized void put(Recall recall) {
        Deque<Recall> turns = recent.computeIfAbsent(recall.session(), ref -> new ArrayDeque<>());
        turns.addLast(recall);
        while (turns.size() > TURNS_PER_SESSION) {
            turns.removeFirst();
        }
    }

    synchronized Optional<Recall> get(SessionRef session) {
        Deque<Recall> turns = recent.get(session);
        return turns == null ? Optional.empty() : Optional.ofNullable(turns.peekLast());
    }

    /** The session's recent recalls, oldest first. */
    synchronized List<Recall> recent(SessionRef session) {
        Deque<Recall> turns = recent.get(session);
        return turns == null ? List.of() : List.copyOf(turns);
    }

    /** Drops the recorded recalls of a user's sessions; returns how many sessions had any. */
    synchronized int forget(Partition partition) {
        int n = 0;
        for (SessionRef ref : List.copyOf(recent.keySet())) {
            if (ref.tenant().equals(partition.tenant()) && ref.user().equals(partition.user())
                    && recent.remove(ref) != null) {
                n++;
            }
        }
        return n;
    }
}

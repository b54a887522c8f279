package dev.agentmemory.langchain4j;

import dev.agentmemory.core.spi.Partition;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** What the last augmentation of each session used, shared by every augmentor of one {@link AgentMemory}. */
final class LastRecalls {

    private final Map<SessionRef, Recall> last = new ConcurrentHashMap<>();

    void put(Recall recall) {
        last.put(recall.session(), recall);
    }

    Optional<Recall> get(SessionRef session) {
        return Optional.ofNullable(last.get(session));
    }

    /** Drops the recorded recalls of a user's sessions; returns how many. */
    int forget(Partition partition) {
        int n = 0;
        for (SessionRef ref : List.copyOf(last.keySet())) {
            if (ref.tenant().equals(partition.tenant()) && ref.user().equals(partition.user())
                    && last.remove(ref) != null) {
                n++;
            }
        }
        return n;
    }
}

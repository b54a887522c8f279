package dev.agentmemory.core.internal.state;

import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.Scope;
import dev.agentmemory.core.TaskInfo;
import dev.agentmemory.core.event.StoredMessage;
import dev.agentmemory.core.ledger.ActionRecord;
import org.jspecify.annotations.Nullable;

import java.util.List;
import java.util.Map;

/**
 * A {@link PartitionState} as plain data, in the iteration order of each of its maps, so that
 * {@link PartitionState.Restoring} rebuilds a state equal to the one {@link PartitionState#image}
 * was taken from (what a snapshot stores). Internal.
 *
 * @param lastSeq     sequence of the last applied event
 * @param liveRecords records not forgotten, as the state counted them
 * @param records     every record, in write order
 * @param versions    each (scope, key) with its versions' ids, in the state's order
 * @param tasks       every task, by starting session, then start order
 * @param aliases     each alias with its entities
 * @param actions     ledger entries in the order they were logged
 * @param sessions    each session with its message history and, when it has one, its window
 */
public record StateImage(long lastSeq, long liveRecords, List<MemoryRecord> records, List<Versions> versions,
                         List<TaskInfo> tasks, Map<String, List<String>> aliases, List<ActionRecord> actions,
                         List<Session> sessions) {

    /** The versions of one key in one scope, oldest first. */
    public record Versions(Scope scope, MemoryKey key, List<String> ids) {
    }

    /**
     * One session's messages.
     *
     * @param history the message history by index, or null when the session has none (only a window)
     * @param window  indices in the window, or null when the session has no window (after a user forget)
     */
    public record Session(String session, @Nullable List<StoredMessage> history, @Nullable List<Long> window) {
    }
}

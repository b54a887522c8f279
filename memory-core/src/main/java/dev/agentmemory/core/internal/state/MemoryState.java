package dev.agentmemory.core.internal.state;

import dev.agentmemory.core.event.StoredMessage;
import dev.agentmemory.core.event.LoggedEvent;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.Scope;
import dev.agentmemory.core.TaskInfo;
import dev.agentmemory.core.internal.state.PartitionState;
import dev.agentmemory.core.ledger.ActionRecord;
import org.jspecify.annotations.Nullable;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NavigableSet;
import java.util.Objects;
import java.util.Set;

/**
 * A read-only replay of one user's log: what {@code MemoryEngine.admin().replay(caller)} returns.
 * Two replays are {@link #equals equal} when they hold the same records, tasks, aliases, ledger
 * entries and messages at the same sequence number, which is how the live state is checked
 * against a fresh replay of the stored log. Exported to the LangChain4j adapter only.
 */
public final class MemoryState {

    private final PartitionState state;

    private MemoryState(PartitionState state) {
        this.state = state;
    }

    /**
     * A read-only view of a live state, valid while its owner holds the user's lock (see
     * {@code MemoryEngine.Admin#holding}); not a copy.
     */
    public static MemoryState viewOf(PartitionState state) {
        return new MemoryState(Objects.requireNonNull(state, "state"));
    }

    /** Replays {@code events} (in sequence order, starting at sequence 1) into a fresh state. */
    public static MemoryState replay(Collection<LoggedEvent> events) {
        return new MemoryState(PartitionState.replay(events));
    }

    /** How many records are not forgotten. */
    public long liveRecords() {
        return state.liveRecords();
    }

    /**
     * A number that changes whenever records, tasks or aliases may have changed, and that no
     * other state of this JVM ever had. Not part of {@link #equals}.
     */
    public long recordsRevision() {
        return state.recordsRevision();
    }

    /** Sequence number of the last applied event (0 when empty). */
    public long lastSeq() {
        return state.lastSeq();
    }

    /** A record by id, or null. */
    public @Nullable MemoryRecord record(String id) {
        return state.record(id);
    }

    /** Every record, in write order. */
    public Collection<MemoryRecord> records() {
        return state.records();
    }

    /** The scopes that hold records. */
    public Set<Scope> scopes() {
        return state.scopes();
    }

    /** The keys of a scope, with their versions' ids in version order. */
    public Map<MemoryKey, List<String>> keys(Scope scope) {
        return state.keys(scope);
    }

    /** The versions of one key in one scope, oldest first. */
    public List<MemoryRecord> versions(Scope scope, MemoryKey key) {
        return state.versions(scope, key);
    }

    /** Tasks started in a session, in the order they were first seen (wherever they are held now). */
    public Collection<TaskInfo> tasks(String session) {
        return state.tasks(session);
    }

    /** The task started in {@code session} as {@code task}, if any. */
    public @Nullable TaskInfo task(String session, String task) {
        return state.task(session, task);
    }

    /** Tasks a session holds now (started there and not moved away, or moved to it). */
    public List<TaskInfo> tasksHeldBy(String session) {
        return state.tasksHeldBy(session);
    }

    /** Every task of every session. */
    public List<TaskInfo> allTasks() {
        return state.allTasks();
    }

    /** The entities an alias names. */
    public Set<String> entitiesFor(String alias) {
        return state.entitiesFor(alias);
    }

    /** Every alias with its entities. */
    public Map<String, NavigableSet<String>> aliases() {
        return state.aliases();
    }

    /** A ledger entry, or null. */
    public @Nullable ActionRecord action(String operationId) {
        return state.action(operationId);
    }

    /** Every ledger entry. */
    public Collection<ActionRecord> actions() {
        return state.actions();
    }

    /** Sessions that have messages. */
    public Set<String> messageSessions() {
        return state.messageSessions();
    }

    /** A session's full message history by index. */
    public NavigableMap<Long, StoredMessage> history(String session) {
        return state.history(session);
    }

    /** The messages in a session's window, in window order. */
    public List<StoredMessage> window(String session) {
        return state.window(session);
    }

    @Override
    public boolean equals(Object o) {
        return this == o || (o instanceof MemoryState s && state.equals(s.state));
    }

    @Override
    public int hashCode() {
        return Objects.hash(state);
    }

    @Override
    public String toString() {
        return state.toString().replace("PartitionState", "MemoryState");
    }
}

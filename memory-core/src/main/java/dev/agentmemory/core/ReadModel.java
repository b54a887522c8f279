package dev.agentmemory.core;

import dev.agentmemory.core.event.Change;
import dev.agentmemory.core.event.LoggedEvent;
import dev.agentmemory.core.event.TaskStatus;
import dev.agentmemory.core.internal.state.PartitionState;
import org.jspecify.annotations.Nullable;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * How reads see a user's state: a key's current version, conflicts and expiry; a scope's view;
 * the version applicable at a date; what retrieval may serve; the past replayed with forgotten
 * values already gone. Pure functions of the state, the caller's agent and the time of the read.
 */
final class ReadModel {

    private ReadModel() {
    }

    static ScopeView viewOf(Caller caller, PartitionState s, Scope scope, ReadOptions options, Instant now) {
        List<KeyState> keys = new ArrayList<>();
        if (scope.layer() == Layer.TASK && !options.includeArchived() && isEnded(s, scope)) {
            return new ScopeView(scope, keys, s.lastSeq());
        }
        for (MemoryKey key : new TreeMap<>(s.keys(scope)).keySet()) {
            KeyState k = keyStateOf(caller, s, scope, key, options, now);
            if (!k.isEmpty()) {
                keys.add(k);
            }
        }
        return new ScopeView(scope, keys, s.lastSeq());
    }

    static KeyState keyStateOf(Caller caller, PartitionState s, Scope scope, MemoryKey key, ReadOptions options,
                               Instant now) {
        MemoryRecord current = null;
        MemoryRecord expired = null;
        List<MemoryRecord> conflicts = new ArrayList<>();
        for (MemoryRecord r : s.versions(scope, key)) {
            if (!r.readableBy(caller.agent()) || (r.archived() && !options.includeArchived())
                    || r.verification() == Verification.REFUTED
                    || (options.verifiedOnly() && !r.verification().countsAsVerified(r.trust()))) {
                continue;
            }
            if (r.status() == Status.ACTIVE || r.status() == Status.EXPIRED) {
                if (r.isExpiredAt(now)) {
                    expired = r;
                    current = null;
                } else {
                    current = r;
                    expired = null;
                }
            } else if (r.status() == Status.CONFLICT) {
                conflicts.add(r);
            }
        }
        return new KeyState(scope, key, current, conflicts, expired);
    }

    /**
     * The newest version (current or superseded, not forgotten, conflicting or refuted) whose
     * validity interval contains {@code date}.
     */
    static Optional<MemoryRecord> applicableAt(Caller caller, PartitionState s, Scope scope, MemoryKey key, Instant date) {
        List<MemoryRecord> versions = s.versions(scope, key);
        for (int i = versions.size() - 1; i >= 0; i--) {
            MemoryRecord r = versions.get(i);
            if ((r.status() == Status.ACTIVE || r.status() == Status.SUPERSEDED || r.status() == Status.EXPIRED)
                    && r.verification() != Verification.REFUTED && r.readableBy(caller.agent()) && r.appliesAt(date)) {
                return Optional.of(r);
            }
        }
        return Optional.empty();
    }

    /** Every servable key state of a layer, scope by scope, each scope's keys sorted. */
    static List<KeyState> servable(Caller caller, PartitionState s, Layer layer, Instant now) {
        List<KeyState> out = new ArrayList<>();
        for (Scope scope : servableScopes(s, layer)) {
            out.addAll(viewOf(caller, s, scope, ReadOptions.DEFAULT, now).keys());
        }
        return out;
    }

    /** As {@link #servable}, each scope's keys in the order they were first written. */
    static List<KeyState> servableUnordered(Caller caller, PartitionState s, Layer layer, Instant now) {
        List<KeyState> out = new ArrayList<>();
        for (Scope scope : servableScopes(s, layer)) {
            for (MemoryKey key : s.keys(scope).keySet()) {
                KeyState k = keyStateOf(caller, s, scope, key, ReadOptions.DEFAULT, now);
                if (!k.isEmpty()) {
                    out.add(k);
                }
            }
        }
        return out;
    }

    /** The user's scopes of {@code layer} that reads serve: for tasks, only active ones. */
    private static List<Scope> servableScopes(PartitionState s, Layer layer) {
        List<Scope> out = new ArrayList<>();
        for (Scope scope : s.scopes()) {
            if (scope.layer() == layer && (layer != Layer.TASK || isActive(s, scope))) {
                out.add(scope);
            }
        }
        return out;
    }

    private static boolean isActive(PartitionState s, Scope scope) {
        TaskInfo t = findTask(s, scope.session(), scope.task());
        return t != null && t.status() == TaskStatus.ACTIVE;
    }

    private static boolean isEnded(PartitionState s, Scope scope) {
        TaskInfo t = findTask(s, scope.session(), scope.task());
        return t != null && t.status() == TaskStatus.ENDED;
    }

    /** The task whose scope this is (started in {@code session} under {@code task}), if any. */
    static @Nullable TaskInfo findTask(PartitionState s, @Nullable String session, @Nullable String task) {
        if (session == null || task == null) {
            return null;
        }
        return s.task(session, task);
    }

    /** The log's events up to and including {@code time}. */
    static List<LoggedEvent> upTo(List<LoggedEvent> all, Instant time) {
        List<LoggedEvent> events = new ArrayList<>();
        for (LoggedEvent e : all) {
            if (!e.at().isAfter(time)) {
                events.add(e);
            }
        }
        return events;
    }

    /**
     * Replays a prefix of the log with the values the user later asked to forget already gone:
     * a forgotten value stays out of reads of the past too (its tombstone keeps key and version).
     */
    static PartitionState replayWithoutErased(List<LoggedEvent> prefix, List<LoggedEvent> all) {
        Set<String> erased = new HashSet<>();
        for (LoggedEvent e : all) {
            if (e.change() instanceof Change.RecordsForgotten f && f.erased()) {
                erased.addAll(f.ids());
            }
        }
        if (erased.isEmpty()) {
            return PartitionState.replay(prefix);
        }
        List<LoggedEvent> cleaned = new ArrayList<>(prefix.size());
        for (LoggedEvent e : prefix) {
            if (e.change() instanceof Change.RecordWritten w && erased.contains(w.record().id())
                    && w.record().value() != null) {
                cleaned.add(new LoggedEvent(e.seq(), e.at(), e.actor(), e.traceId(),
                        new Change.RecordWritten(w.record().tombstone(), w.superseded())));
            } else {
                cleaned.add(e);
            }
        }
        return PartitionState.replay(cleaned);
    }
}

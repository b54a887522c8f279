package dev.agentmemory.core.engine;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.KeyVersion;
import dev.agentmemory.core.ScopeView.KeyState;
import dev.agentmemory.core.Scope.Layer;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.ReadOptions;
import dev.agentmemory.core.Scope;
import dev.agentmemory.core.ScopeView;
import dev.agentmemory.core.StatusRule;
import dev.agentmemory.core.TaskInfo;
import dev.agentmemory.core.event.Change;
import dev.agentmemory.core.event.LoggedEvent;
import dev.agentmemory.core.internal.state.PartitionState;
import org.jspecify.annotations.Nullable;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BiConsumer;

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
        return keyStateOf(caller, scope, key, s.versions(scope, key), options, now);
    }

    /** The state of a key with {@code versions} (oldest first). */
    private static KeyState keyStateOf(Caller caller, Scope scope, MemoryKey key, List<MemoryRecord> versions,
                                       ReadOptions options, Instant now) {
        MemoryRecord current = null;
        MemoryRecord expired = null;
        // most keys have none of these: lists only for those that do
        List<MemoryRecord> conflicts = null;
        List<MemoryRecord> upcoming = null;
        List<MemoryRecord> ended = null;
        StatusRule.Timeline timeline = StatusRule.Timeline.of(versions, now);
        for (MemoryRecord r : versions) {
            if (r.value() == null || !r.readableBy(caller.agent()) || (r.archived() && !options.includeArchived())
                    || (options.verifiedOnly() && !r.verification().countsAsVerified(r.trust()))) {
                continue;
            }
            // a read of a scope sees the scope's own frame: the task's status decides what
            // retrieval serves of it (StatusRule.judge), not what the scope holds
            switch (timeline.own(r, now)) {
                case CURRENT -> current = r;
                case NEEDS_REVERIFICATION -> expired = r;
                case CONFLICT -> conflicts = adding(conflicts, r);
                case UPCOMING -> upcoming = adding(upcoming, r);
                case NO_LONGER_VALID -> ended = adding(ended, r);
                default -> {
                    // superseded or refuted: history only
                }
            }
        }
        return new KeyState(scope, key, current, orNone(conflicts), expired, orNone(upcoming), orNone(ended));
    }

    private static List<MemoryRecord> adding(@Nullable List<MemoryRecord> list, MemoryRecord r) {
        List<MemoryRecord> out = list == null ? new ArrayList<>(2) : list;
        out.add(r);
        return out;
    }

    private static List<MemoryRecord> orNone(@Nullable List<MemoryRecord> list) {
        return list == null ? List.of() : list;
    }

    /**
     * Each key of {@code scope}, in the order first written: its state as a default read sees it
     * at {@code now} (empty or not), and every version of it, oldest first, whoever may read them.
     */
    static void eachKey(Caller caller, PartitionState s, Scope scope, Instant now,
                        BiConsumer<KeyState, List<MemoryRecord>> each) {
        s.keys(scope).forEach((key, ids) -> {
            List<MemoryRecord> versions = versionsOf(s, ids);
            each.accept(keyStateOf(caller, scope, key, versions, ReadOptions.DEFAULT, now), versions);
        });
    }

    /** The records {@code ids} (a key's versions), as {@link PartitionState#versions} gives them. */
    private static List<MemoryRecord> versionsOf(PartitionState s, List<String> ids) {
        List<MemoryRecord> out = new ArrayList<>(ids.size());
        for (String id : ids) {
            out.add(s.record(id));
        }
        return out;
    }

    /**
     * The newest version (current or superseded, not forgotten, conflicting or refuted) whose
     * validity interval contains {@code date}.
     */
    static Optional<MemoryRecord> applicableAt(Caller caller, PartitionState s, Scope scope, MemoryKey key, Instant date) {
        return StatusRule.applying(s.versions(scope, key), date).filter(r -> r.readableBy(caller.agent()));
    }

    /** {@link StatusRule#judge} for the records {@code ids} of the user, read at {@code now}. */
    static StatusRule.Judgement judge(Caller caller, PartitionState s, StatusRule.Form form, Collection<String> ids,
                                      @Nullable String askingSession, Instant now) {
        List<StatusRule.Stated> stated = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (String id : ids) {
            MemoryRecord r = s.record(id);
            if (r == null || r.value() == null || !r.readableBy(caller.agent()) || !seen.add(id)) {
                continue;
            }
            TaskInfo task = r.scope().layer() == Layer.TASK ? findTask(s, r.scope().session(), r.scope().task()) : null;
            stated.add(new StatusRule.Stated(r, s.versions(r.scope(), r.key()), task));
        }
        Set<String> busy = new HashSet<>();
        for (TaskInfo t : s.allTasks()) {
            if (t.status() == TaskInfo.Status.ACTIVE) {
                busy.add(t.heldBy());
            }
        }
        if (form == StatusRule.Form.RECORD && stated.isEmpty()) {
            throw new IllegalArgumentException("no record " + ids + " of " + caller.tenant() + "/" + caller.user()
                    + " that this agent may read");
        }
        return StatusRule.judge(form, stated, new StatusRule.Reader(now, askingSession, busy));
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
            eachKey(caller, s, scope, now, (k, versions) -> {
                if (!k.isEmpty()) {
                    out.add(k);
                }
            });
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
        return t != null && t.status() == TaskInfo.Status.ACTIVE;
    }

    private static boolean isEnded(PartitionState s, Scope scope) {
        TaskInfo t = findTask(s, scope.session(), scope.task());
        return t != null && t.status() == TaskInfo.Status.ENDED;
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
     * The versions of a key with the values and endings of those that an invalidation or an
     * eviction ended, read from the log; a version the user asked to forget stays a tombstone.
     */
    static List<KeyVersion> versions(List<MemoryRecord> history, List<LoggedEvent> log) {
        Set<String> ids = new HashSet<>();
        history.forEach(r -> ids.add(r.id()));
        Map<String, MemoryRecord> before = new HashMap<>();
        Map<String, KeyVersion.Ended> ended = new HashMap<>();
        Set<String> erased = new HashSet<>();
        for (LoggedEvent e : log) {
            if (e.change() instanceof Change.RecordWritten w) {
                if (ids.contains(w.record().id())) {
                    before.put(w.record().id(), w.record());
                }
                for (String id : w.superseded()) {
                    before.computeIfPresent(id, (k, r) -> r.status(MemoryRecord.Status.SUPERSEDED));
                }
            } else if (e.change() instanceof Change.RecordsExpired x) {
                x.ids().forEach(id -> before.computeIfPresent(id, (k, r) ->
                        r.status() == MemoryRecord.Status.ACTIVE ? r.status(MemoryRecord.Status.EXPIRED) : r));
            } else if (e.change() instanceof Change.RecordsForgotten f) {
                for (String id : f.ids()) {
                    if (!ids.contains(id)) {
                        continue;
                    }
                    if (f.erased() || f.hard()) {
                        erased.add(id);
                    } else {
                        ended.putIfAbsent(id, new KeyVersion.Ended(e.at(), e.seq(), f.reason(), f.endedBy()));
                    }
                }
            }
        }
        List<KeyVersion> out = new ArrayList<>(history.size());
        for (MemoryRecord r : history) {
            KeyVersion.Ended end = ended.get(r.id());
            MemoryRecord last = before.get(r.id());
            if (r.status() == MemoryRecord.Status.FORGOTTEN && end != null && !erased.contains(r.id()) && last != null
                    && last.value() != null) {
                out.add(new KeyVersion(last.verified(r.verification(), r.evidence()).archived(r.archived()),
                        Optional.of(end)));
            } else {
                out.add(new KeyVersion(r, Optional.empty()));
            }
        }
        return out;
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

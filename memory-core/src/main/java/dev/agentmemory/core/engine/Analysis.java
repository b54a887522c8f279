package dev.agentmemory.core.engine;

import dev.agentmemory.core.ScopeView.KeyState;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.MemoryValue;
import dev.agentmemory.core.ScopeView;
import dev.agentmemory.core.MemoryRecord.Status;
import dev.agentmemory.core.TaskInfo;
import dev.agentmemory.core.audit.AuditReport;
import dev.agentmemory.core.audit.AuditReport.ScopeDiff;
import dev.agentmemory.core.internal.state.PartitionState;
import dev.agentmemory.core.ledger.ActionRecord;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The analyses over one user's state: audit findings, what the collector may archive, scope diffs. */
final class Analysis {
    private Analysis() {
    }

    /** Audits {@code live} against a fresh {@code replayed} state. */
    static AuditReport audit(PartitionState live, PartitionState replayed, Instant now, Duration staleAfter) {
        List<String> conflicts = new ArrayList<>();
        List<String> expired = new ArrayList<>();
        List<String> stale = new ArrayList<>();
        Map<String, Instant> lastWrite = new HashMap<>();
        for (MemoryRecord r : live.records()) {
            String name = r.scope() + " " + r.key();
            if (r.status() == Status.CONFLICT && !r.archived() && !conflicts.contains(name)) {
                conflicts.add(name);
            }
            if (r.status() == Status.ACTIVE && r.expiresAt() != null && !now.isBefore(r.expiresAt())) {
                expired.add(name + " v" + r.version() + " (expired " + r.expiresAt() + ")");
            }
            if (r.status() != Status.FORGOTTEN) {
                lastWrite.merge(name, r.recordedAt(), (a, b) -> a.isAfter(b) ? a : b);
            }
        }
        lastWrite.forEach((name, at) -> {
            if (Duration.between(at, now).compareTo(staleAfter) > 0) {
                stale.add(name + " (last written " + at + ")");
            }
        });
        stale.sort(String::compareTo);
        List<String> referenced = new ArrayList<>();
        for (TaskInfo t : live.allTasks()) {
            if (t.status() != TaskInfo.Status.ENDED) {
                continue;
            }
            for (MemoryRecord r : live.records()) {
                boolean inEndedTask = t.task().equals(r.scope().task()) && t.session().equals(r.scope().session());
                if (r.status() == Status.ACTIVE && !r.archived() && !inEndedTask && r.value() != null
                        && r.value().text().equals(t.task())
                        && t.session().equals(r.scope().session())) {
                    referenced.add(t.session() + "/" + t.task() + " by " + r.scope() + " " + r.key());
                }
            }
        }
        List<String> pending = new ArrayList<>();
        for (ActionRecord a : live.actions()) {
            if (a.pending()) {
                pending.add(a.operationId() + " " + a.action());
            }
        }
        boolean same = live.equals(replayed);
        String diff = same ? "" : describe(live, replayed);
        return new AuditReport(live.lastSeq(), conflicts, expired, stale, referenced, pending, same, diff);
    }

    private static String describe(PartitionState live, PartitionState replayed) {
        if (live.lastSeq() != replayed.lastSeq()) {
            return "live state is at seq " + live.lastSeq() + ", the log at " + replayed.lastSeq();
        }
        for (MemoryRecord r : live.records()) {
            MemoryRecord other = replayed.record(r.id());
            if (!r.equals(other)) {
                return "record " + r.id() + " (" + r.key() + ") differs";
            }
        }
        return "tasks, aliases, actions or messages differ";
    }

    /** Records the collector may archive: those in ended tasks' scopes not archived yet. */
    static List<String> unreachable(PartitionState state) {
        List<String> out = new ArrayList<>();
        for (TaskInfo t : state.allTasks()) {
            if (t.status() != TaskInfo.Status.ENDED) {
                continue;
            }
            for (MemoryRecord r : state.records()) {
                if (!r.archived() && r.status() != Status.FORGOTTEN && t.task().equals(r.scope().task())
                        && t.session().equals(r.scope().session())) {
                    out.add(r.id());
                }
            }
        }
        return out;
    }

    /** The difference of two views. */
    static ScopeDiff diff(ScopeView left, ScopeView right) {
        Map<MemoryKey, MemoryValue> l = left.values();
        Map<MemoryKey, MemoryValue> r = right.values();
        Map<MemoryKey, MemoryValue> onlyL = new LinkedHashMap<>();
        Map<MemoryKey, MemoryValue> onlyR = new LinkedHashMap<>();
        Map<MemoryKey, ScopeDiff.Change> changed = new LinkedHashMap<>();
        l.forEach((k, v) -> {
            MemoryValue o = r.get(k);
            if (o == null) {
                onlyL.put(k, v);
            } else if (!o.equals(v)) {
                changed.put(k, new ScopeDiff.Change(v, o));
            }
        });
        r.forEach((k, v) -> {
            if (!l.containsKey(k)) {
                onlyR.put(k, v);
            }
        });
        return new ScopeDiff(left.scope(), right.scope(), onlyL, onlyR, changed);
    }

    /** Keys of a view with open conflicts. */
    static List<KeyState> conflicts(ScopeView view) {
        return view.keys().stream().filter(KeyState::hasConflict).toList();
    }
}

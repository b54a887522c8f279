package dev.agentmemory.langchain4j.oracle;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ScopeView.KeyState;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.ReadOptions;
import dev.agentmemory.core.Scope;
import dev.agentmemory.core.MemoryRecord.Status;
import dev.agentmemory.core.TaskInfo;
import dev.agentmemory.langchain4j.AgentMemory;
import dev.agentmemory.langchain4j.SessionRef;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What the engine says about one user's tracked values at this moment, read through the public
 * API only (tasks, history and key state of every scope). Keeps the words of every record it has
 * seen, so that a record forgotten later (a tombstone has no value) is still known by its words.
 */
final class EngineView {

    /**
     * @param valid        values served as current now: current in persistent memory, a session, or an active task
     * @param stale        values not current, with why (superseded, expired, archived, suspended task, conflict)
     * @param forgotten    values whose records were all forgotten, with the record that held them
     * @param tasks        every task of the user by id, with its status
     * @param taskOf       values held in a task scope, with the task
     * @param hasPersistent whether the user has a current persistent value
     */
    record Snapshot(Set<String> valid, Map<String, String> stale, Map<String, String> forgotten,
                    Map<String, TaskInfo.Status> tasks, Map<String, String> taskOf, boolean hasPersistent) {
    }

    private final Map<String, List<String>> wordsById = new HashMap<>();

    Snapshot snapshot(AgentMemory memory, int user) {
        MemoryEngine engine = memory.engine();
        Caller c = memory.caller(new SessionRef(Vocabulary.TENANT, Vocabulary.USERS[user], Vocabulary.SESSIONS[0]));
        Set<String> valid = new HashSet<>();
        Map<String, String> reasons = new LinkedHashMap<>();
        Map<String, String> forgottenCandidates = new LinkedHashMap<>();
        Set<String> live = new HashSet<>();
        Map<String, TaskInfo.Status> tasks = new LinkedHashMap<>();
        Map<String, String> taskOf = new HashMap<>();
        boolean hasPersistent = false;
        List<Object[]> scopes = new ArrayList<>();
        scopes.add(new Object[] {c.persistent(), "persistent", null});
        for (String s : Vocabulary.SESSIONS) {
            scopes.add(new Object[] {c.session(s), "session " + s, null});
            for (TaskInfo t : engine.tasks().list(c, s)) {
                tasks.put(t.task(), t.status());
                scopes.add(new Object[] {c.task(s, t.task()), "task " + t.task() + " (" + label(t.status()) + ")", t});
            }
        }
        for (Object[] sc : scopes) {
            Scope scope = (Scope) sc[0];
            String where = (String) sc[1];
            TaskInfo task = (TaskInfo) sc[2];
            boolean servable = task == null || task.status() == TaskInfo.Status.ACTIVE;
            for (String key : Vocabulary.KEYS) {
                MemoryKey k = MemoryKey.of(key);
                KeyState ks = engine.keyState(c, scope, k, ReadOptions.DEFAULT);
                for (MemoryRecord r : engine.history(c, scope, k)) {
                    if (r.value() != null) {
                        wordsById.put(r.id(), Vocabulary.valuesIn(r.text(), user));
                    }
                    String label = where + " " + key + "@v" + r.version();
                    for (String w : wordsById.getOrDefault(r.id(), List.of())) {
                        if (task != null) {
                            taskOf.put(w, task.task());
                        }
                        if (r.status() == Status.FORGOTTEN) {
                            forgottenCandidates.putIfAbsent(w, "forgotten record " + label);
                            continue;
                        }
                        live.add(w);
                        boolean current = servable && ks.current() != null && ks.current().id().equals(r.id());
                        if (current) {
                            valid.add(w);
                            hasPersistent |= task == null && where.equals("persistent");
                        } else {
                            reasons.putIfAbsent(w, reason(r, ks, task, label));
                        }
                    }
                }
            }
        }
        Map<String, String> forgotten = new LinkedHashMap<>(forgottenCandidates);
        forgotten.keySet().removeAll(live);
        Map<String, String> stale = new LinkedHashMap<>(reasons);
        stale.keySet().removeAll(valid);
        return new Snapshot(valid, stale, forgotten, tasks, taskOf, hasPersistent);
    }

    private static String reason(MemoryRecord r, KeyState ks, TaskInfo task, String label) {
        if (r.status() == Status.SUPERSEDED) {
            return "superseded (" + label + ")";
        }
        if (r.status() == Status.CONFLICT) {
            return "conflict candidate (" + label + ")";
        }
        if (r.status() == Status.EXPIRED || (ks.needsReverification() != null && ks.needsReverification().id().equals(r.id()))) {
            return "expired, past its re-verify deadline (" + label + ")";
        }
        if (task != null && task.status() == TaskInfo.Status.ENDED || r.archived()) {
            return "archived with its ended task (" + label + ")";
        }
        if (task != null && task.status() == TaskInfo.Status.SUSPENDED) {
            return "state of a suspended task (" + label + ")";
        }
        return "not current (" + label + ", status " + r.status() + ")";
    }

    static String label(TaskInfo.Status s) {
        return s.name().toLowerCase(Locale.ROOT);
    }
}

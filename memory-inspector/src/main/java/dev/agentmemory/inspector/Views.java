package dev.agentmemory.inspector;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ScopeView.KeyState;
import dev.agentmemory.core.Scope.Layer;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.ReadOptions;
import dev.agentmemory.core.Scope;
import dev.agentmemory.core.ScopeView;
import dev.agentmemory.core.StatusRule;
import dev.agentmemory.core.TaskInfo;
import dev.agentmemory.core.event.Change;
import dev.agentmemory.core.event.LoggedEvent;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.langchain4j.AgentMemory;
import org.jspecify.annotations.Nullable;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What the pages show of a user's memory: the layers, a key's history, the memory as of a time
 * and the difference between two times. Reads as the memory's agent (what the assistant may see),
 * for the one tenant of the options; every read of a user is logged by {@link ReadLog}.
 */
final class Views {

    private final AgentMemory memory;
    private final MemoryEngine engine;
    private final InspectorOptions options;
    private final ReadLog readLog;

    Views(AgentMemory memory, InspectorOptions options) {
        this.memory = memory;
        this.engine = memory.engine();
        this.options = options;
        this.readLog = new ReadLog(engine, options);
    }

    AgentMemory memory() {
        return memory;
    }

    InspectorOptions options() {
        return options;
    }

    /** The caller reading {@code user} as the memory's agent; refused when the user has no log in this tenant. */
    Caller reader(String user) {
        Caller caller;
        try {
            caller = new Caller(options.tenant(), user, memory.agent());
        } catch (IllegalArgumentException e) {
            throw new Http.BadRequest(String.valueOf(e.getMessage()));
        }
        if (!engine.admin().users(options.tenant()).contains(new Partition(options.tenant(), user))) {
            throw new Http.NotFound("tenant " + options.tenant() + " has no user " + Items.quote(user));
        }
        return caller;
    }

    void logRead(Caller caller, String view, Map<String, String> detail) {
        readLog.read(caller.tenant(), caller.user(), view, detail);
    }

    /** The tenant's users, paged. */
    Map<String, Object> users(int offset, int limit, String q) {
        List<String> all = engine.admin().users(options.tenant()).stream().map(Partition::user)
                .filter(u -> q.isEmpty() || u.toLowerCase(Locale.ROOT).contains(q.toLowerCase(Locale.ROOT)))
                .sorted().toList();
        return Page.of(all, offset, limit, u -> Map.of("user", u));
    }

    /**
     * One section of a user's memory: {@code state} (session and task state, with the tasks),
     * {@code persistent}, {@code conflicts} or {@code due} (past the re-verify deadline), paged,
     * filtered by {@code q} on key and value.
     */
    Map<String, Object> memory(Caller caller, String section, int offset, int limit, String q) {
        List<Row> rows = switch (section) {
            case "persistent" -> rows(List.of(engine.view(caller, caller.persistent())));
            case "state" -> stateRows(caller);
            case "conflicts" -> conflicts(caller);
            case "due" -> due(caller);
            default -> throw new Http.BadRequest("section must be state, persistent, conflicts or due: "
                    + Items.quote(section));
        };
        List<Row> shown = q.isEmpty() ? rows : rows.stream().filter(r -> r.matches(q)).toList();
        Map<String, Object> page = Page.of(shown, offset, limit, r -> row(caller, r));
        if (section.equals("state")) {
            page.put("tasks", engine.tasks().userTasks(caller).stream().map(Views::task).toList());
        }
        logRead(caller, "memory", Map.of("section", section, "offset", Integer.toString(offset)));
        return page;
    }

    private Map<String, Object> row(Caller caller, Row r) {
        Map<String, Object> m = Items.record(r.record(), statusNow(caller, r.record()));
        m.put("shownAs", r.as());
        if (r.task() != null) {
            m.put("taskStatus", Items.lower(r.task().status()));
            m.put("heldBy", r.task().heldBy());
        }
        return m;
    }

    /** The status a block would give the record now ({@link MemoryEngine#judge}), or why there is none. */
    private String statusNow(Caller caller, MemoryRecord r) {
        try {
            StatusRule.Judgement j = engine.judge(caller, StatusRule.Form.RECORD, List.of(r.id()), null);
            return j.status().label() + (j.served() ? "" : " (not served)");
        } catch (IllegalArgumentException e) {
            return "not readable";
        }
    }

    static Map<String, Object> task(TaskInfo t) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("session", t.session());
        m.put("task", t.task());
        Items.putIfSet(m, "title", t.title());
        m.put("status", Items.lower(t.status()));
        m.put("heldBy", t.heldBy());
        m.put("changedAt", Items.time(t.changedAt()));
        m.put("scope", "task/" + t.session() + "/" + t.task());
        return m;
    }

    /** A record as one line of a section, with how the key's state holds it and the task of task state. */
    record Row(MemoryRecord record, String as, @Nullable TaskInfo task) {
        boolean matches(String q) {
            String needle = q.toLowerCase(Locale.ROOT);
            return record.key().path().toLowerCase(Locale.ROOT).contains(needle)
                    || (!record.sensitive() && record.text().toLowerCase(Locale.ROOT).contains(needle));
        }
    }

    private record Scoped(ScopeView view, @Nullable TaskInfo task) {
    }

    private List<Row> rows(List<ScopeView> views) {
        List<Scoped> scoped = new ArrayList<>();
        views.forEach(v -> scoped.add(new Scoped(v, null)));
        return rowsOf(scoped);
    }

    private static List<Row> rowsOf(List<Scoped> views) {
        List<Row> out = new ArrayList<>();
        for (Scoped s : views) {
            for (KeyState k : s.view().keys()) {
                if (!k.scope().equals(s.view().scope())) {
                    continue; // a session's view holds its tasks' keys too; they are listed with their task
                }
                if (k.current() != null) {
                    out.add(new Row(k.current(), "current", s.task()));
                }
                if (k.needsReverification() != null) {
                    out.add(new Row(k.needsReverification(), "needs re-verification", s.task()));
                }
                k.conflicts().forEach(r -> out.add(new Row(r, "conflict", s.task())));
                k.upcoming().forEach(r -> out.add(new Row(r, "upcoming", s.task())));
                k.noLongerValid().forEach(r -> out.add(new Row(r, "no longer valid", s.task())));
            }
        }
        return out;
    }

    /** Session state of every session with state or tasks, then each task's state (an ended task's archived state). */
    private List<ScopeView> stateViews(Caller caller) {
        return stateScoped(caller).stream().map(Scoped::view).toList();
    }

    private List<Scoped> stateScoped(Caller caller) {
        List<TaskInfo> tasks = engine.tasks().userTasks(caller);
        Set<String> sessions = new TreeSet<>();
        engine.servable(caller, Layer.SESSION).forEach(k -> sessions.add(String.valueOf(k.scope().session())));
        tasks.forEach(t -> {
            sessions.add(t.session());
            sessions.add(t.heldBy());
        });
        List<Scoped> out = new ArrayList<>();
        for (String s : sessions) {
            out.add(new Scoped(engine.view(caller, caller.session(s)), null));
        }
        for (TaskInfo t : tasks) {
            ReadOptions o = t.status() == TaskInfo.Status.ENDED ? ReadOptions.withArchived() : ReadOptions.DEFAULT;
            out.add(new Scoped(engine.view(caller, caller.task(t), o), t));
        }
        return out;
    }

    List<Row> stateRows(Caller caller) {
        return rowsOf(stateScoped(caller));
    }

    private List<Row> conflicts(Caller caller) {
        List<ScopeView> all = new ArrayList<>(stateViews(caller));
        all.add(engine.view(caller, caller.persistent()));
        List<Row> out = new ArrayList<>();
        for (ScopeView v : all) {
            for (KeyState k : v.keys()) {
                if (k.hasConflict()) {
                    if (k.current() != null) {
                        out.add(new Row(k.current(), "current (contested)", null));
                    }
                    k.conflicts().forEach(r -> out.add(new Row(r, "conflict", null)));
                }
            }
        }
        return out;
    }

    private List<Row> due(Caller caller) {
        List<ScopeView> all = new ArrayList<>(stateViews(caller));
        all.add(engine.view(caller, caller.persistent()));
        List<Row> out = new ArrayList<>();
        for (ScopeView v : all) {
            for (KeyState k : v.keys()) {
                if (k.needsReverification() != null) {
                    out.add(new Row(k.needsReverification(), "needs re-verification", null));
                }
            }
        }
        return out;
    }

    // ------------------------------------------------------------------ history

    /**
     * Every version of a key, oldest first, with when each was valid and recorded, who wrote it,
     * what superseded it and when, verdicts, conflicts, and the forgets that reached it (from the log).
     */
    Map<String, Object> history(Caller caller, Scope scope, MemoryKey key) {
        List<MemoryRecord> versions = engine.history(caller, scope, key);
        if (versions.isEmpty()) {
            throw new Http.NotFound("no versions of " + key + " in " + Items.scopeId(scope));
        }
        Map<String, MemoryRecord> byId = new HashMap<>();
        versions.forEach(v -> byId.put(v.id(), v));
        Map<String, Map<String, Object>> rows = new LinkedHashMap<>();
        for (MemoryRecord v : versions) {
            rows.put(v.id(), Items.record(v, v.value() == null ? "forgotten" : statusNow(caller, v)));
        }
        List<Map<String, Object>> events = new ArrayList<>();
        Map<Long, String> lines = EventLog.readableBySeq(engine, caller);
        for (LoggedEvent e : engine.admin().log(caller)) {
            Change c = e.change();
            List<String> touched = new ArrayList<>();
            if (c instanceof Change.RecordWritten w) {
                if (byId.containsKey(w.record().id())) {
                    touched.add(w.record().id());
                }
                for (String old : w.superseded()) {
                    Map<String, Object> row = rows.get(old);
                    if (row != null) {
                        touched.add(old);
                        row.put("supersededAt", Items.time(e.at()));
                        row.put("supersededBy", w.record().key().equals(key) && w.record().scope().equals(scope)
                                ? "v" + w.record().version() : w.record().key() + " v" + w.record().version()
                                + " (detected from plain words)");
                    }
                }
            } else if (c instanceof Change.RecordsForgotten f) {
                f.ids().stream().filter(byId::containsKey).forEach(id -> {
                    touched.add(id);
                    Map<String, Object> row = rows.get(id);
                    if (row != null) {
                        row.put("forgottenAt", Items.time(e.at()));
                        row.put("forgottenBy", e.actor());
                        row.put("forgetMode", f.hard() ? "hard" : "soft");
                    }
                });
            } else if (c instanceof Change.RecordVerified v && byId.containsKey(v.id())) {
                touched.add(v.id());
            } else if (c instanceof Change.RecordsExpired x) {
                x.ids().stream().filter(byId::containsKey).forEach(touched::add);
            } else if (c instanceof Change.RecordsArchived a) {
                a.ids().stream().filter(byId::containsKey).forEach(touched::add);
            } else if (c instanceof Change.UserForgotten) {
                touched.add("*");
            }
            if (!touched.isEmpty()) {
                Map<String, Object> m = EventLog.event(e, lines);
                m.put("records", touched);
                events.add(m);
            }
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("scope", Items.scopeId(scope));
        out.put("key", key.path());
        out.put("now", Items.time(engine.clock().instant()));
        out.put("versions", new ArrayList<>(rows.values()));
        out.put("events", events);
        logRead(caller, "history", Map.of("scope", Items.scopeId(scope), "key", key.path()));
        return out;
    }

    // ------------------------------------------------------------------ as of

    /**
     * The user's memory as it was at {@code at} (persistent and state scopes, replayed up to that
     * time), paged; with {@code compareTo}, also what differs from then to that second time.
     */
    Map<String, Object> asOf(Caller caller, Instant at, @Nullable Instant compareTo, int offset, int limit) {
        List<LoggedEvent> log = engine.admin().log(caller);
        List<Scope> scopes = scopesEverUsed(caller, log);
        Map<String, MemoryRecord> then = valuesAt(caller, scopes, at);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("at", Items.time(at));
        out.put("first", log.isEmpty() ? Items.time(engine.clock().instant()) : Items.time(log.get(0).at()));
        out.put("last", Items.time(engine.clock().instant()));
        out.putAll(Page.of(new ArrayList<>(then.values()), offset, limit, r -> Items.record(r, null)));
        if (compareTo != null) {
            Map<String, MemoryRecord> other = valuesAt(caller, scopes, compareTo);
            List<Map<String, Object>> diff = new ArrayList<>();
            Set<String> keys = new TreeSet<>(then.keySet());
            keys.addAll(other.keySet());
            for (String k : keys) {
                MemoryRecord a = then.get(k);
                MemoryRecord b = other.get(k);
                if (a != null && b != null && a.id().equals(b.id())) {
                    continue;
                }
                Map<String, Object> d = new LinkedHashMap<>();
                MemoryRecord any = a != null ? a : java.util.Objects.requireNonNull(b);
                d.put("scope", Items.scopeId(any.scope()));
                d.put("key", any.key().path());
                d.put("change", a == null ? "added" : b == null ? "removed" : "changed");
                if (a != null) {
                    d.put("before", Items.value(a));
                    d.put("beforeVersion", a.version());
                }
                if (b != null) {
                    d.put("after", Items.value(b));
                    d.put("afterVersion", b.version());
                }
                diff.add(d);
            }
            out.put("compareTo", Items.time(compareTo));
            out.put("diff", diff);
        }
        logRead(caller, "as-of", compareTo == null ? Map.of("at", at.toString())
                : Map.of("at", at.toString(), "compareTo", compareTo.toString()));
        return out;
    }

    private Map<String, MemoryRecord> valuesAt(Caller caller, List<Scope> scopes, Instant at) {
        Map<String, MemoryRecord> out = new TreeMap<>();
        for (Scope s : scopes) {
            for (KeyState k : engine.asOf(caller, s, at).keys()) {
                MemoryRecord r = k.current();
                if (r != null) {
                    out.put(Items.scopeId(s) + " " + k.key().path(), r);
                }
            }
        }
        return out;
    }

    /** The persistent scope and every session and task scope the log ever wrote a record in. */
    private static List<Scope> scopesEverUsed(Caller caller, List<LoggedEvent> log) {
        Set<Scope> scopes = new HashSet<>();
        List<Scope> out = new ArrayList<>();
        out.add(caller.persistent());
        scopes.add(caller.persistent());
        for (LoggedEvent e : log) {
            if (e.change() instanceof Change.RecordWritten w && scopes.add(w.record().scope())) {
                out.add(w.record().scope());
            }
        }
        return out;
    }
}

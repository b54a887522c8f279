package dev.agentmemory.inspector;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.audit.AuditReport;
import dev.agentmemory.core.event.Change;
import dev.agentmemory.core.event.LoggedEvent;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The event log and the audit of a user. Each event is shown in the log's own readable wording
 * ({@link dev.agentmemory.core.engine.MemoryEngine.Admin#readableLog}), which redacts sensitive values and values the
 * memory's agent may not read; the inspector adds only the kind, time, actor and conversation it
 * filters on, never a value.
 */
final class EventLog {

    /** The audit's staleness window: keys not updated for this long are listed as stale. */
    static final Duration STALE_AFTER = Duration.ofDays(90);

    private final Views views;
    private final MemoryEngine engine;

    EventLog(Views views) {
        this.views = views;
        this.engine = views.memory().engine();
    }

    /** The log newest first, filtered by kind, conversation and time (each optional), paged. */
    Map<String, Object> log(Caller caller, String kind, String session, @Nullable Instant from,
                            @Nullable Instant to, int offset, int limit) {
        List<LoggedEvent> all = engine.admin().log(caller);
        Map<Long, String> lines = readableBySeq(engine, caller);
        List<LoggedEvent> shown = new ArrayList<>();
        TreeSet<String> kinds = new TreeSet<>();
        for (int i = all.size() - 1; i >= 0; i--) {
            LoggedEvent e = all.get(i);
            kinds.add(e.change().type());
            if ((kind.isEmpty() || e.change().type().equals(kind))
                    && (session.isEmpty() || session.equals(sessionOf(e.change())))
                    && (from == null || !e.at().isBefore(from))
                    && (to == null || e.at().isBefore(to))) {
                shown.add(e);
            }
        }
        Map<String, Object> page = Page.of(shown, offset, limit, e -> event(e, lines));
        page.put("kinds", List.copyOf(kinds));
        views.logRead(caller, "log", Map.of("kind", kind, "session", session));
        return page;
    }

    /** The audit: state == replay, conflicts, expired-but-active, stale keys, pending actions, store findings. */
    Map<String, Object> audit(Caller caller) {
        AuditReport r = engine.admin().audit(caller, STALE_AFTER);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("seq", r.seq());
        m.put("consistent", r.consistent());
        m.put("replayMatches", r.replayMatches());
        m.put("replayDifference", r.replayDifference());
        m.put("conflicts", r.conflictingKeys());
        m.put("expiredButActive", r.expiredButActive());
        m.put("stale", r.staleKeys());
        m.put("archivedReferenced", r.archivedScopesReferenced());
        m.put("pendingActions", r.pendingActions());
        m.put("storeFindings", r.storeFindings());
        m.put("lines", r.lines());
        views.logRead(caller, "audit", Map.of());
        return m;
    }

    static Map<String, Object> event(LoggedEvent e, Map<Long, String> lines) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("seq", e.seq());
        m.put("at", Items.time(e.at()));
        m.put("actor", e.actor());
        m.put("kind", e.change().type());
        Items.putIfSet(m, "session", sessionOf(e.change()));
        String line = lines.get(e.seq());
        m.put("text", line == null ? "#" + e.seq() + " " + e.change().type() : line);
        return m;
    }

    /** The readable line of each event, by sequence (a line starts with {@code #<seq> }). */
    static Map<Long, String> readableBySeq(MemoryEngine engine, Caller caller) {
        Map<Long, String> out = new HashMap<>();
        for (String line : engine.admin().readableLog(caller)) {
            int space = line.indexOf(' ');
            if (line.startsWith("#") && space > 1) {
                try {
                    out.put(Long.parseLong(line.substring(1, space)), line);
                } catch (NumberFormatException ignored) {
                    // not an event line
                }
            }
        }
        return out;
    }

    /** The conversation an event belongs to, when it belongs to one. */
    static @Nullable String sessionOf(Change c) {
        if (c instanceof Change.RecordWritten w) {
            return w.record().scope().session();
        }
        if (c instanceof Change.MessagesAppended m) {
            return m.session();
        }
        if (c instanceof Change.MessagesEvicted m) {
            return m.session();
        }
        if (c instanceof Change.MessagesForgotten m) {
            return m.session();
        }
        if (c instanceof Change.MessagesRedacted m) {
            return m.session();
        }
        if (c instanceof Change.TaskChanged t) {
            return t.session();
        }
        if (c instanceof Change.TaskMoved t) {
            return t.session();
        }
        return null;
    }
}

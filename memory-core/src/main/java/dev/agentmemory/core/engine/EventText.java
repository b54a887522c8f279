package dev.agentmemory.core.engine;

import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.event.Change;
import dev.agentmemory.core.event.LoggedEvent;
import dev.agentmemory.core.event.StoredMessage;

import java.util.Locale;

/** The human-readable form of events; sensitive values and values the reader's agent may not read never appear in it. */
final class EventText {
    static final String REDACTED = "[redacted]";

    private EventText() {
    }

    static String readable(LoggedEvent e, String agent) {
        return "#" + e.seq() + " " + e.at() + " by " + e.actor() + " [" + e.traceId().substring(0, Math.min(8, e.traceId().length()))
                + "] " + describe(e.change(), agent);
    }

    private static String describe(Change c, String agent) {
        if (c instanceof Change.RecordWritten w) {
            MemoryRecord r = w.record();
            String value = r.value() == null ? "(no value)"
                    : r.sensitive() || !r.readableBy(agent) ? REDACTED : clip(r.value().json());
            return "wrote " + r.scope() + " " + r.key() + " v" + r.version() + " = " + value + " ("
                    + r.kind().name().toLowerCase(Locale.ROOT) + ", " + r.source().name().toLowerCase(Locale.ROOT) + ", "
                    + r.trust().name().toLowerCase(Locale.ROOT) + ", " + r.status().name().toLowerCase(Locale.ROOT) + ")"
                    + (w.superseded().isEmpty() ? "" : " superseding " + w.superseded().size());
        }
        if (c instanceof Change.RecordsExpired x) {
            return "expired " + x.ids().size() + " record(s)";
        }
        if (c instanceof Change.RecordsForgotten f) {
            return (f.hard() ? "hard" : "soft") + "-forgot " + f.ids().size() + " record(s)"
                    + (f.reason() == null ? "" : ": " + clip(f.reason()));
        }
        if (c instanceof Change.RecordVerified v) {
            return "verification of " + v.id() + ": " + v.verification().name().toLowerCase(Locale.ROOT);
        }
        if (c instanceof Change.RecordsArchived a) {
            return "archived " + a.ids().size() + " record(s)";
        }
        if (c instanceof Change.TaskChanged t) {
            return "task " + t.session() + "/" + t.task() + " " + t.status().name().toLowerCase(Locale.ROOT)
                    + (t.title() == null ? "" : " (" + clip(t.title()) + ")");
        }
        if (c instanceof Change.TaskMoved m) {
            return "task " + m.session() + "/" + m.task() + " moved to session " + m.to();
        }
        if (c instanceof Change.AliasRegistered a) {
            return "alias \"" + clip(a.alias()) + "\" -> " + a.entity();
        }
        if (c instanceof Change.ActionIntended i) {
            return "intent " + i.operationId() + " " + i.action();
        }
        if (c instanceof Change.ActionCompleted d) {
            return "outcome " + d.operationId() + " " + (d.success() ? "succeeded" : "failed");
        }
        if (c instanceof Change.MessagesAppended m) {
            StringBuilder b = new StringBuilder("session " + m.session() + " +" + m.messages().size() + " message(s)");
            for (StoredMessage msg : m.messages()) {
                b.append(" [").append(msg.index()).append(' ').append(msg.type()).append(']');
            }
            return b.toString();
        }
        if (c instanceof Change.MessagesEvicted e) {
            return "session " + e.session() + " window evicted " + e.indices();
        }
        if (c instanceof Change.MessagesForgotten f) {
            return "session " + f.session() + " forgot " + f.indices().size() + " message(s)" + (f.hard() ? " (hard)" : "");
        }
        if (c instanceof Change.MessagesRedacted r) {
            StringBuilder b = new StringBuilder("session " + r.session() + " redacted " + r.messages().size()
                    + " message(s) stating forgotten values" + (r.hard() ? " (hard)" : ""));
            for (StoredMessage msg : r.messages()) {
                b.append(" [").append(msg.index()).append(' ').append(msg.type()).append(']');
            }
            return b.toString();
        }
        if (c instanceof Change.UserForgotten u) {
            return "forgot the whole user" + (u.hard() ? " (hard)" : "");
        }
        return c.type();
    }

    private static String clip(String s) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length() && b.length() < 160; i++) {
            char ch = s.charAt(i);
            b.append(ch < 0x20 || Character.isSurrogate(ch) ? '?' : ch);
        }
        return s.length() > 160 ? b + "..." : b.toString();
    }
}

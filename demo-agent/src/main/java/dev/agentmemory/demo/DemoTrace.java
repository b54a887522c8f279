package dev.agentmemory.demo;

import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.Scope;
import dev.agentmemory.core.MemoryRecord.Status;
import dev.agentmemory.core.event.Change;
import dev.agentmemory.core.event.LoggedEvent;
import dev.agentmemory.core.spi.Partition;
import dev.langchain4j.service.tool.ToolExecution;
import dev.agentmemory.core.Proposal.Outcome;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.langchain4j.SessionRef;
import org.jspecify.annotations.Nullable;
import java.util.ArrayList;
import java.util.List;

/**
 * What happened to memory during one turn, in words: every write with its layer and outcome
 * (and the reason when refused), ledger steps and shop side effects. The scenario and the chat
 * print it after each turn.
 */
final class DemoTrace {

    private final List<String> lines = new ArrayList<>();

    synchronized void note(@Nullable SessionRef ref, String line) {
        lines.add(line);
    }

    /** Records refused and conflicting outcomes; committed writes arrive through {@link #committed}. */
    synchronized void outcomes(SessionRef ref, List<Outcome> outcomes) {
        for (Outcome o : outcomes) {
            if (!o.isApplied()) {
                lines.add(describe(o));
            }
        }
    }

    /** An engine listener: every committed memory change of any writer, in words. */
    void committed(Partition partition, List<LoggedEvent> events) {
        for (LoggedEvent e : events) {
            String line = describe(e.change());
            if (line != null) {
                synchronized (this) {
                    lines.add(line);
                }
            }
        }
    }

    /** A tool call the model made, with its result when the tool refused or failed. */
    void tool(ToolExecution t) {
        String result = t.result() == null ? "" : t.result();
        boolean refused = t.hasFailed() || result.startsWith("Not saved") || result.startsWith("Nothing forgotten")
                || result.startsWith("Cannot") || result.startsWith("Task not started") || result.startsWith("Refused");
        synchronized (this) {
            lines.add("tool " + t.request().name() + " " + clip(t.request().arguments())
                    + (refused ? " -> REFUSED: " + clip(result) : ""));
        }
    }

    private static @Nullable String describe(Change c) {
        if (c instanceof Change.RecordWritten w) {
            MemoryRecord r = w.record();
            Scope s = r.scope();
            String where = s.layer().name().toLowerCase() + (s.task() != null ? " " + s.task() : "");
            String status = r.status() == Status.CONFLICT ? " -> recorded as CONFLICT" : " -> v" + r.version();
            return "write [" + where + "] " + r.key() + " = " + (r.value() == null ? "(none)" : clip(r.text())) + " ("
                    + r.kind().name().toLowerCase() + ", " + r.source().name().toLowerCase() + ", "
                    + r.trust().name().toLowerCase() + ")" + status
                    + (w.superseded().isEmpty() ? "" : ", superseding " + w.superseded().size() + " older version(s)");
        }
        if (c instanceof Change.RecordsForgotten f) {
            return "forgot " + f.ids().size() + " record(s) (" + (f.hard() ? "hard: value scrubbed from the log" : "soft: tombstone")
                    + ")" + (f.reason() == null ? "" : ": " + f.reason());
        }
        if (c instanceof Change.MessagesForgotten m) {
            return "forgot " + m.indices().size() + " message(s) of session " + m.session();
        }
        if (c instanceof Change.TaskChanged t) {
            return "task " + t.task() + " -> " + t.status().name().toLowerCase();
        }
        return null;
    }

    static String describe(Outcome o) {
        Proposal p = o.proposal();
        String layer = p.scope().layer().name().toLowerCase();
        String where = layer + (p.scope().task() != null ? " " + p.scope().task() : "");
        String what = p.op() == Proposal.Op.INVALIDATE ? "invalidate " + p.key()
                : p.key() + " = " + (p.value() == null ? "" : clip(p.value().text()));
        String meta = "(" + p.kind().name().toLowerCase() + ", " + p.source().name().toLowerCase() + ", "
                + p.trust().name().toLowerCase() + ")";
        return switch (o.result()) {
            case APPLIED -> "write [" + where + "] " + what + " " + meta
                    + o.written().map(MemoryRecord::version).map(v -> " -> v" + v).orElse("");
            case CONFLICT -> "write [" + where + "] " + what + " " + meta + " -> recorded as CONFLICT: " + o.reason();
            case REJECTED -> "REFUSED [" + where + "] " + what + " " + meta + ": " + o.reason();
        };
    }

    static String clip(String s) {
        String one = s.replace('\n', ' ');
        return one.length() > 90 ? one.substring(0, 87) + "..." : one;
    }

    /** The lines recorded since the last drain, which are removed. */
    synchronized List<String> drain() {
        List<String> out = List.copyOf(lines);
        lines.clear();
        return out;
    }
}

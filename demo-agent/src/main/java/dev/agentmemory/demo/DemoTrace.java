package dev.agentmemory.demo;

import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.Outcome;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.langchain4j.SessionRef;
import java.util.ArrayList;
import java.util.List;

/**
 * What happened to memory during one turn, in words: every write with its layer and outcome
 * (and the reason when refused), ledger steps and shop side effects. The scenario and the chat
 * print it after each turn.
 */
final class DemoTrace {

    private final List<String> lines = new ArrayList<>();

    synchronized void note(SessionRef ref, String line) {
        lines.add(line);
    }

    synchronized void outcomes(SessionRef ref, List<Outcome> outcomes) {
        for (Outcome o : outcomes) {
            lines.add(describe(o));
        }
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

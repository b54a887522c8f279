package dev.agentmemory.langchain4j;

import dev.agentmemory.langchain4j.internal.EnumText;
import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ScopeView.KeyState;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.TaskInfo;
import dev.agentmemory.core.MemoryRecord.Trust;
import dev.langchain4j.data.document.Metadata;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.rag.content.Content;
import dev.langchain4j.rag.content.ContentMetadata;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * The "tasks" layer of the block: the user's open tasks that the asking session is not working
 * on, so that a model asked to "continue as last time" in a new conversation can offer the right
 * one and resume it with the {@code resumeTask} tool. One item per task: id, title, where and
 * since when it is suspended (or open in another conversation), and a one-line state. The item's
 * status is {@code suspended} or {@code open-elsewhere}, never {@code current}: its state is
 * served as current only after the task is resumed here.
 */
final class OpenTasks {

    /** The layer name of these items. */
    static final String LAYER = "tasks";
    /** Most tasks listed, most recently changed first. */
    static final int MAX_TASKS = 5;
    /** Most characters of a task's one-line state. */
    static final int MAX_STATE_CHARS = 200;

    private OpenTasks() {
    }

    static List<Content> contents(MemoryEngine engine, Caller caller, String session, List<TaskInfo> all) {
        List<TaskInfo> open = new ArrayList<>();
        for (TaskInfo t : all) {
            boolean suspended = t.status() == TaskInfo.Status.SUSPENDED;
            boolean elsewhere = t.status() == TaskInfo.Status.ACTIVE && !t.heldBy().equals(session);
            if (suspended || elsewhere) {
                open.add(t);
            }
        }
        open.sort(Comparator.comparing(TaskInfo::changedAt).reversed());
        List<Content> out = new ArrayList<>();
        for (TaskInfo t : open.subList(0, Math.min(open.size(), MAX_TASKS))) {
            out.add(content(engine, caller, session, t));
        }
        return out;
    }

    private static Content content(MemoryEngine engine, Caller caller, String session, TaskInfo t) {
        boolean trusted = true;
        StringBuilder state = new StringBuilder();
        for (KeyState k : engine.view(caller, caller.task(t)).keys()) {
            MemoryRecord r = k.current() != null ? k.current() : k.needsReverification();
            if (r == null || r.value() == null) {
                continue;
            }
            trusted &= r.trust() == Trust.TRUSTED;
            // a value past its re-verify deadline says so here too (StatusRule row 4)
            String pair = r.key().path() + " = " + r.text() + (r == k.needsReverification() ? " (needs-reverification)" : "");
            if (state.length() + pair.length() + 2 > MAX_STATE_CHARS) {
                state.append(state.isEmpty() ? "" : "; ").append("...");
                break;
            }
            state.append(state.isEmpty() ? "" : "; ").append(pair);
        }
        boolean here = t.heldBy().equals(session);
        String status = t.status() == TaskInfo.Status.SUSPENDED ? "suspended" : "open-elsewhere";
        String where = here ? "in this conversation" : "in conversation " + t.heldBy();
        String text = "task " + t.task() + (t.title() != null ? " (" + t.title() + ")" : "") + ": "
                + (t.status() == TaskInfo.Status.SUSPENDED ? "suspended " : "active ") + where + " since " + t.changedAt()
                + "; state: " + (state.isEmpty() ? "none" : state) + ". Resume it with resumeTask before relying on it.";
        Metadata md = new Metadata();
        md.put(MemoryContent.LAYER, LAYER);
        md.put(MemoryContent.ID, "task:" + t.session() + "/" + t.task());
        md.put(MemoryContent.SCOPE, caller.task(t).toString());
        md.put(MemoryContent.TASK, t.task());
        md.put(MemoryContent.TASK_STATUS, EnumText.label(t.status()));
        md.put(MemoryContent.KIND, "task");
        md.put(MemoryContent.SOURCE, "system");
        md.put(MemoryContent.TRUST, trusted ? "trusted" : "untrusted");
        md.put(MemoryContent.STATUS, status);
        md.put(MemoryContent.OBSERVED_AT, t.changedAt().toString());
        md.put(MemoryContent.RECORDED_AT, t.changedAt().toString());
        md.put(MemoryContent.SCORE, 1.0);
        md.put(MemoryContent.WHY, "an open task of the user not active in this conversation");
        return Content.from(TextSegment.from(text, md), Map.of(ContentMetadata.SCORE, 1.0));
    }
}

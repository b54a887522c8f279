package dev.agentmemory.demo;

import static java.util.Objects.requireNonNull;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ForgetMode;
import dev.agentmemory.core.ForgetReceipt;
import dev.agentmemory.core.ForgetTarget;
import dev.agentmemory.core.Kind;
import dev.agentmemory.core.MemoryEngine;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.MemoryValue;
import dev.agentmemory.core.Outcome;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.Scope;
import dev.agentmemory.core.Source;
import dev.agentmemory.core.TaskInfo;
import dev.agentmemory.core.event.TaskStatus;
import dev.agentmemory.langchain4j.SessionRef;
import dev.langchain4j.agent.tool.P;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.agent.tool.ToolMemoryId;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The memory tools the shop assistant calls: each one becomes a core proposal (validated like
 * any other write) or a task/forget operation, and a refusal is returned to the model with its
 * reason. What the user said is written with source {@code user} and a reference to the session.
 */
final class DemoMemoryTools {

    private final MemoryEngine engine;
    private final DemoTrace trace;
    private final ForgetMode forgetMode;

    DemoMemoryTools(MemoryEngine engine, DemoTrace trace, ForgetMode forgetMode) {
        this.engine = requireNonNull(engine, "engine");
        this.trace = requireNonNull(trace, "trace");
        this.forgetMode = requireNonNull(forgetMode, "forgetMode");
    }

    @Tool("Remembers a lasting preference the user stated (kept across sessions), e.g. key preference.language.")
    String rememberPreference(@ToolMemoryId Object memoryId, @P("dotted key, e.g. preference.language") String key,
                              @P("the preference as the user stated it") String value) {
        SessionRef ref = SessionRef.of(memoryId);
        return propose(ref, Proposal.set(ShopTools.caller(ref).persistent(), MemoryKey.of(key), MemoryValue.of(value))
                .kind(Kind.PREFERENCE).source(Source.USER, "session:" + ref.session()).build());
    }

    @Tool("Notes a fact about the current task (kept with the task only), e.g. trip.destination.")
    String noteTaskFact(@ToolMemoryId Object memoryId, @P("dotted key") String key, @P("the fact") String value) {
        SessionRef ref = SessionRef.of(memoryId);
        return propose(ref, Proposal.set(DemoMemory.workingScope(engine, ref), MemoryKey.of(key), MemoryValue.of(value))
                .kind(Kind.TASK_FACT).source(Source.USER, "session:" + ref.session()).build());
    }

    @Tool("Records a choice the user made. persistent=true keeps it across sessions (e.g. a requested exchange).")
    String recordDecision(@ToolMemoryId Object memoryId, @P("dotted key") String key, @P("the choice") String value,
                          @P("keep across sessions") boolean persistent) {
        SessionRef ref = SessionRef.of(memoryId);
        Scope scope = persistent ? ShopTools.caller(ref).persistent() : DemoMemory.workingScope(engine, ref);
        return propose(ref, Proposal.set(scope, MemoryKey.of(key), MemoryValue.of(value))
                .kind(Kind.DECISION).source(Source.USER, "session:" + ref.session()).build());
    }

    @Tool("Starts a task (or resumes it when it exists); the current task is suspended with its state intact.")
    String startTask(@ToolMemoryId Object memoryId, @P("task id, letters, digits and dashes") String task,
                     @P("a short title") String title) {
        SessionRef ref = SessionRef.of(memoryId);
        Caller caller = ShopTools.caller(ref);
        Optional<TaskInfo> existing = engine.tasks(caller, ref.session()).stream()
                .filter(t -> t.task().equals(task)).findFirst();
        if (existing.isPresent() && existing.get().status() != TaskStatus.ENDED) {
            return resumeTask(memoryId, task);
        }
        Optional<TaskInfo> before = engine.activeTask(caller, ref.session());
        engine.startTask(caller, ref.session(), task, title);
        before.ifPresent(t -> trace.note(ref, "task " + t.task() + " suspended (state kept)"));
        trace.note(ref, "task " + task + " started");
        return "Task " + task + " started" + before.map(t -> "; task " + t.task() + " is suspended").orElse("") + ".";
    }

    @Tool("Resumes a suspended task with its state as it was.")
    String resumeTask(@ToolMemoryId Object memoryId, @P("task id") String task) {
        SessionRef ref = SessionRef.of(memoryId);
        Caller caller = ShopTools.caller(ref);
        Optional<TaskInfo> before = engine.activeTask(caller, ref.session()).filter(t -> !t.task().equals(task));
        engine.resumeTask(caller, ref.session(), task);
        before.ifPresent(t -> trace.note(ref, "task " + t.task() + " suspended (state kept)"));
        trace.note(ref, "task " + task + " resumed");
        java.util.Map<MemoryKey, dev.agentmemory.core.MemoryValue> values =
                engine.view(caller, caller.task(ref.session(), task)).values();
        StringBuilder b = new StringBuilder("Task " + task + " resumed with its " + values.size() + " remembered value(s): ");
        values.forEach((k, v) -> b.append(k.path()).append(" = ").append(v.text()).append("; "));
        return b.toString().trim();
    }

    @Tool("Forgets a remembered value everywhere it is kept for this user (memory, index, summaries).")
    String forgetMemory(@ToolMemoryId Object memoryId, @P("dotted key, e.g. preference.language") String key) {
        SessionRef ref = SessionRef.of(memoryId);
        Caller caller = ShopTools.caller(ref);
        MemoryKey k = MemoryKey.of(key);
        List<Scope> scopes = new ArrayList<>(List.of(caller.persistent(), caller.session(ref.session())));
        engine.activeTask(caller, ref.session()).ifPresent(t -> scopes.add(caller.task(ref.session(), t.task())));
        List<String> done = new ArrayList<>();
        for (Scope scope : scopes) {
            List<MemoryRecord> versions = engine.history(caller, scope, k);
            if (versions.isEmpty()) {
                continue;
            }
            ForgetReceipt r = engine.forget(caller, ForgetTarget.key(scope, k), forgetMode);
            trace.note(ref, "forget [" + scope.layer().name().toLowerCase() + "] " + key + ": " + r.recordIds().size()
                    + " record(s) tombstoned (" + r.mode() + "), derived data removed " + r.derived());
            done.add(scope.layer().name().toLowerCase());
        }
        if (done.isEmpty()) {
            return "Nothing was remembered under " + key + ".";
        }
        return "Forgot " + key + " (" + String.join(", ", done) + ").";
    }

    private String propose(SessionRef ref, Proposal p) {
        Outcome o = engine.propose(ShopTools.caller(ref), List.of(p)).get(0);
        trace.outcomes(ref, List.of(o));
        return switch (o.result()) {
            case APPLIED -> "Remembered " + p.key() + ".";
            case CONFLICT -> "Recorded " + p.key() + " as a conflict: " + o.reason();
            case REJECTED -> "Refused " + p.key() + ": " + o.reason();
        };
    }
}

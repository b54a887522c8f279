package dev.agentmemory.demo;

import static java.util.Objects.requireNonNull;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ForgetMode;
import dev.agentmemory.core.ForgetReceipt;
import dev.agentmemory.core.ForgetTarget;
import dev.agentmemory.core.ScopeView.KeyState;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.Scope;
import dev.agentmemory.core.TaskInfo;
import dev.agentmemory.core.audit.AuditReport;
import dev.agentmemory.inspector.InspectorOptions;
import dev.agentmemory.inspector.MemoryInspector;
import dev.agentmemory.langchain4j.SessionRef;
import org.jspecify.annotations.Nullable;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The interactive chat: each line goes to the assistant, except the commands {@code /help},
 * {@code /memory}, {@code /why}, {@code /history KEY}, {@code /forget KEY}, {@code /tasks},
 * {@code /audit}, {@code /inspect} and {@code /quit}, which read (or forget in) the memory the chat has open, so
 * they also stand in for {@code inspect} and {@code audit} while the chat holds the store.
 */
final class Chat {

    static final String COMMANDS = """
            commands (anything else goes to the assistant):
              /memory        what is remembered now, by layer (persistent, this session, its tasks)
              /why           which memory the last answer used, and why
              /history KEY   every version of KEY, e.g. /history preference.language
              /forget KEY    forget KEY everywhere in your memory (value removed from the log too)
              /tasks         the tasks of this session and their status
              /audit         check that the state equals the replay of the event log
              /inspect       open the memory inspector in the browser (read-only; prints its address)
              /help          this list
              /quit          leave (also /exit or end of input)""";

    private final ShopAgent agent;
    private final SessionRef ref;
    private final Caller caller;
    private final PrintStream out;
    private final PrintStream err;
    private boolean lastTurnFailed;
    private @Nullable MemoryInspector inspector;

    Chat(ShopAgent agent, SessionRef ref, PrintStream out, PrintStream err) {
        this.agent = requireNonNull(agent, "agent");
        this.ref = requireNonNull(ref, "ref");
        this.caller = ShopTools.caller(ref);
        this.out = requireNonNull(out, "out");
        this.err = requireNonNull(err, "err");
    }

    /** Reads lines until /quit or the end of input; stops the inspector {@code /inspect} started. */
    void run(BufferedReader in) {
        try {
            loop(in);
        } finally {
            if (inspector != null) {
                inspector.close();
            }
        }
    }

    /** Starts the inspector over the chat's memory once (read-only, this shop's users) and prints its address. */
    private void inspect() {
        if (inspector == null) {
            inspector = MemoryInspector.start(agent.memory().agentMemory(),
                    InspectorOptions.builder(ShopAgent.TENANT).operator("chat").build());
        }
        out.println("memory inspector (read-only, until the chat ends): " + inspector.uri());
    }

    private void loop(BufferedReader in) {
        while (true) {
            out.print("you> ");
            out.flush();
            String line;
            try {
                line = in.readLine();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the input", e);
            }
            if (line == null) {
                out.println();
                return;
            }
            String said = line.strip();
            if (said.isEmpty()) {
                continue;
            }
            if (said.startsWith("/")) {
                if (!command(said)) {
                    return;
                }
                continue;
            }
            turn(said);
        }
    }

    private void turn(String said) {
        String answer;
        try {
            answer = agent.say(ref, said);
        } catch (RuntimeException e) {
            agent.trace().drain();
            DemoError model = modelError(e);
            if (model == null) {
                throw e;
            }
            err.println("error: " + model.getMessage());
            out.println("(the turn was not answered; type it again, or /quit)");
            lastTurnFailed = true;
            return;
        }
        lastTurnFailed = false;
        out.println("assistant> " + answer);
        for (String t : agent.trace().drain()) {
            out.println("  [memory] " + t);
        }
        List<DemoMemory.Used> used = agent.memory().lastRecall(ref).map(DemoMemory.RecallView::used).orElse(List.of());
        out.println("  [memory used] " + (used.isEmpty() ? "none" : used.size() + " item(s); /why lists them"));
        for (DemoMemory.Used u : used) {
            out.println("    " + u.line());
        }
    }

    private static @Nullable DemoError modelError(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof DemoError d) {
                return d;
            }
        }
        return null;
    }

    /** True when the model failed on the last line sent to it (the chat then exits with {@link DemoError#MODEL}). */
    boolean lastTurnFailed() {
        return lastTurnFailed;
    }

    /** Runs a command; false when the chat should end. */
    boolean command(String line) {
        String[] parts = line.split("\\s+", 2);
        String arg = parts.length > 1 ? parts[1].strip() : "";
        switch (parts[0]) {
            case "/quit", "/exit" -> {
                return false;
            }
            case "/help", "/?" -> out.println(COMMANDS);
            case "/memory" -> memory();
            case "/why" -> why();
            case "/history" -> withKey(arg, "/history", this::history);
            case "/forget" -> withKey(arg, "/forget", this::forget);
            case "/tasks" -> tasks();
            case "/audit" -> audit();
            case "/inspect" -> inspect();
            default -> err.println("error: unknown command " + parts[0] + " (try /help)");
        }
        return true;
    }

    private interface KeyCommand {
        void run(MemoryKey key);
    }

    private void withKey(String arg, String command, KeyCommand c) {
        if (arg.isEmpty()) {
            err.println("error: " + command + " needs a key, e.g. " + command + " preference.language (/memory lists the keys)");
            return;
        }
        MemoryKey key;
        try {
            key = MemoryKey.of(arg);
        } catch (IllegalArgumentException e) {
            err.println("error: not a memory key: \"" + arg + "\" (" + e.getMessage() + ")");
            return;
        }
        c.run(key);
    }

    private MemoryEngine engine() {
        return agent.engine();
    }

    /** Persistent memory, this session, and each of its tasks. */
    private List<Scope> scopes() {
        List<Scope> scopes = new ArrayList<>();
        scopes.add(caller.persistent());
        scopes.add(caller.session(ref.session()));
        for (TaskInfo t : engine().tasks().list(caller, ref.session())) {
            scopes.add(caller.task(t));
        }
        return scopes;
    }

    private static String where(Scope s) {
        return switch (s.layer()) {
            case PERSISTENT -> "persistent memory (all your sessions)";
            case SESSION -> "session " + s.session();
            case TASK -> "task " + s.task();
            default -> s.layer().name().toLowerCase();
        };
    }

    private void memory() {
        int n = 0;
        for (Scope s : scopes()) {
            List<KeyState> keys = engine().view(caller, s).keys().stream().filter(k -> !k.isEmpty()).toList();
            if (keys.isEmpty()) {
                continue;
            }
            out.println(where(s) + ":");
            for (KeyState k : keys) {
                k.currentRecord().ifPresent(r -> out.println("  " + describe(r)));
                for (MemoryRecord c : k.conflicts()) {
                    out.println("  " + describe(c) + "  CONFLICT");
                }
                n++;
            }
        }
        if (n == 0) {
            out.println("nothing remembered yet");
        }
    }

    private static String describe(MemoryRecord r) {
        return r.key() + " = " + (r.value() == null ? "(forgotten)" : DemoTrace.clip(r.text())) + "  (v" + r.version() + ", "
                + r.kind().name().toLowerCase() + ", from " + r.source().name().toLowerCase() + ", "
                + r.trust().name().toLowerCase() + (r.status() == dev.agentmemory.core.MemoryRecord.Status.ACTIVE ? ""
                : ", " + r.status().name().toLowerCase()) + ")";
    }

    private void why() {
        Optional<DemoMemory.RecallView> last = agent.memory().lastRecall(ref);
        if (last.isEmpty()) {
            out.println("no answer yet in this session");
            return;
        }
        List<DemoMemory.Used> used = last.get().used();
        if (used.isEmpty()) {
            out.println("the last answer used no memory");
            return;
        }
        out.println("the last answer used " + used.size() + " memory item(s):");
        for (DemoMemory.Used u : used) {
            out.println("  " + u.line());
        }
    }

    private void history(MemoryKey key) {
        boolean any = false;
        for (Scope s : scopes()) {
            List<MemoryRecord> versions = engine().history(caller, s, key);
            if (versions.isEmpty()) {
                continue;
            }
            any = true;
            out.println(key + " in " + where(s) + ":");
            for (MemoryRecord r : versions) {
                out.println("  v" + r.version() + " = " + (r.value() == null ? "(forgotten, value removed)" : DemoTrace.clip(r.text()))
                        + "  [" + r.status().name().toLowerCase() + ", " + r.kind().name().toLowerCase() + ", from "
                        + r.source().name().toLowerCase() + ", " + r.trust().name().toLowerCase() + ", "
                        + r.recordedAt().truncatedTo(java.time.temporal.ChronoUnit.SECONDS) + "]");
            }
        }
        if (!any) {
            out.println("no history of " + key + " (/memory lists the keys)");
        }
    }

    private void forget(MemoryKey key) {
        List<String> places = new ArrayList<>();
        for (Scope s : scopes()) {
            boolean current = engine().view(caller, s).key(key).map(k -> !k.isEmpty()).orElse(false);
            if (current) {
                ForgetReceipt receipt = engine().forget(caller, ForgetTarget.key(s, key), ForgetMode.HARD);
                if (!receipt.recordIds().isEmpty()) {
                    places.add(where(s));
                }
            }
        }
        if (places.isEmpty()) {
            out.println("nothing to forget: " + key + " is not remembered (/memory lists the keys)");
            return;
        }
        agent.sweepForgotten(caller);
        agent.trace().drain();
        out.println("forgot " + key + " in " + String.join(", ", places) + ": its value is gone from the store and the"
                + " event log, and the message that stated it and its search index entries are gone too; it will not be"
                + " used again");
    }

    private void tasks() {
        List<TaskInfo> tasks = engine().tasks().list(caller, ref.session());
        if (tasks.isEmpty()) {
            out.println("no tasks in this session");
            return;
        }
        for (TaskInfo t : tasks) {
            out.println("  " + t.task() + (t.title() == null ? "" : " (" + t.title() + ")") + ": "
                    + t.status().name().toLowerCase() + (t.status() == TaskInfo.Status.ACTIVE ? "  <- current" : ""));
        }
    }

    private void audit() {
        AuditReport r = engine().admin().audit(caller, Duration.ofDays(30));
        r.lines().forEach(l -> out.println("  " + l));
        out.println(r.consistent() ? "consistent: yes" : "consistent: NO");
    }
}

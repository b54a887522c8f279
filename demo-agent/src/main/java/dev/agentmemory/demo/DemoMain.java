package dev.agentmemory.demo;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ScopeView.KeyState;
import dev.agentmemory.core.Scope.Layer;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.StatusRule;
import dev.agentmemory.core.Scope;
import dev.agentmemory.core.TaskInfo;
import dev.agentmemory.core.audit.AuditReport;
import dev.agentmemory.core.ledger.ActionRecord;
import dev.agentmemory.inspector.InspectorOptions;
import dev.agentmemory.inspector.MemoryInspector;
import dev.agentmemory.langchain4j.SessionRef;
import org.jspecify.annotations.Nullable;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The demo's command line: {@code chat} (default), {@code scenario}, {@code inspect}, {@code audit};
 * {@code --help}, {@code COMMAND --help} and {@code --version}. A user's mistake (a wrong argument,
 * a missing, unusable or locked store, a failing model server) prints one {@code error: ...} line
 * and exits with its own code (see {@link DemoError}); {@code --debug} adds the stack trace.
 */
public final class DemoMain {

    /** Exit code of the crash drill's child JVM when it halted as planned. */
    static final int CRASH_EXIT = 3;

    static final Path DEFAULT_DB = Path.of("demo-data", "agent-memory");

    private static final String USAGE = "usage: java -jar demo-agent.jar [chat|scenario|inspect|inspect-web|audit] [options]"
            + "  (COMMAND --help for its options, --version)";

    private DemoMain() {
    }

    /** Runs the demo; exits with the command's status. */
    public static void main(String[] args) {
        boolean debug = List.of(args).contains("--debug");
        // the libraries' logging (H2, ONNX, LangChain4j) goes to stderr, warnings only unless --debug
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", debug ? "debug" : "warn");
        System.setProperty("org.slf4j.simpleLogger.logFile", "System.err");
        if (!debug) {
            // DJL's "failed to detect GPU count" on a machine without CUDA is not the user's concern
            System.setProperty("org.slf4j.simpleLogger.log.ai.djl", "error");
        }
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        PrintStream err = new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8);
        int code = run(args, System.in, out, err, System.getenv(), Clock.systemUTC());
        out.flush();
        err.flush();
        System.exit(code);
    }

    /** Parsed options. */
    record Options(String command, Path db, String user, @Nullable String session, @Nullable Instant at, @Nullable String say, boolean dbGiven,
                   boolean debug, boolean keep, boolean help) {
    }

    static Options parse(String[] args) {
        String command = null;
        Path db = DEFAULT_DB;
        boolean dbGiven = false;
        String user = "alice";
        String session = null;
        Instant at = null;
        String say = null;
        boolean debug = false;
        boolean keep = false;
        boolean help = false;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--db" -> {
                    String v = value(args, ++i, a);
                    try {
                        db = Path.of(v);
                    } catch (InvalidPathException e) {
                        throw DemoError.usage("--db is not a valid path: \"" + v + "\"");
                    }
                    dbGiven = true;
                }
                case "--user" -> user = name(value(args, ++i, a), a);
                case "--session" -> session = name(value(args, ++i, a), a);
                case "--at" -> {
                    String v = value(args, ++i, a);
                    try {
                        at = Instant.parse(v);
                    } catch (java.time.format.DateTimeParseException e) {
                        throw DemoError.usage("--at needs an instant such as 2024-10-19T09:00:00Z: \"" + v + "\"");
                    }
                }
                case "--say" -> say = value(args, ++i, a);
                case "--debug" -> debug = true;
                case "--keep" -> keep = true;
                case "--version", "-V" -> command = command == null ? "version" : command;
                case "chat", "scenario", "inspect", "inspect-web", "audit", "crash-drill" -> {
                    if (command != null && !command.equals("version")) {
                        throw DemoError.usage("two commands given: " + command + " and " + a + " (try --help)");
                    }
                    command = a;
                }
                case "-h", "--help", "help" -> help = true;
                default -> throw DemoError.usage(a.startsWith("-") ? "unknown option \"" + a + "\" (try --help)"
                        : "unknown command \"" + a + "\" (try --help)");
            }
        }
        return new Options(command == null ? (help ? "help" : "chat") : command, db, user, session, at, say, dbGiven,
                debug, keep, help);
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length || args[i].startsWith("--")) {
            throw DemoError.usage(option + " needs a value (try --help)");
        }
        return args[i];
    }

    private static String name(String v, String option) {
        if (!v.matches("[A-Za-z0-9._@-]{1,64}")) {
            throw DemoError.usage(option + " must be 1-64 letters, digits or . _ @ -: \"" + v + "\"");
        }
        return v;
    }

    static int run(String[] args, InputStream in, PrintStream out, Map<String, String> env) {
        return run(args, in, out, out, env, Clock.systemUTC());
    }

    /**
     * Runs one command with {@code out} for its output and {@code err} for errors and progress of the
     * model; {@code clock} is the chat's clock (the real one in {@link #main}).
     */
    static int run(String[] args, InputStream in, PrintStream out, PrintStream err, Map<String, String> env, Clock clock) {
        boolean debug = List.of(args).contains("--debug");
        try {
            Options o = parse(args);
            if (o.help()) {
                out.println(help(o.command()));
                return 0;
            }
            return switch (o.command()) {
                case "help" -> {
                    out.println(help("help"));
                    yield 0;
                }
                case "version" -> {
                    out.println("demo-agent " + version() + " (agent memory for LangChain4j), Java "
                            + System.getProperty("java.version"));
                    yield 0;
                }
                case "scenario" -> scenario(o, out);
                case "inspect" -> withEngine(o, out, engine -> {
                    out.print(inspect(engine, Caller.of(ShopAgent.TENANT, o.user()), o.session()));
                    return 0;
                });
                case "inspect-web" -> inspectWeb(o, in, out);
                case "audit" -> withEngine(o, out, engine -> {
                    AuditReport r = engine.admin().audit(Caller.of(ShopAgent.TENANT, o.user()), Duration.ofDays(30));
                    r.lines().forEach(out::println);
                    out.println(r.consistent() ? "consistent: yes" : "consistent: NO");
                    return r.consistent() ? 0 : 1;
                });
                case "crash-drill" -> crashDrill(o, out);
                default -> chat(o, in, out, err, env, clock);
            };
        } catch (DemoError e) {
            err.println("error: " + e.getMessage());
            if (debug && e.getCause() != null) {
                e.getCause().printStackTrace(err);
            }
            return e.exitCode();
        } catch (RuntimeException e) {
            err.println("error: internal error: " + e + (debug ? "" : " (run with --debug for the stack trace)"));
            if (debug) {
                e.printStackTrace(err);
            }
            return DemoError.INTERNAL;
        }
    }

    static String help(String command) {
        String common = """
                  --db PATH       the memory store: a file name prefix; H2 writes PATH.mv.db (PATH.mv.db is accepted
                                  too) and the shop's orders to PATH-shop.mv.db (default ./demo-data/agent-memory)
                  --user NAME     whose memory (default alice; tenant "shop")
                  --debug         print the stack trace of an error""";
        return switch (command) {
            case "chat" -> """
                    chat: talk to the shop assistant; every line goes to it, /help lists the in-chat commands
                    (/memory /why /history KEY /forget KEY /tasks /audit /inspect /quit). Runs on the real clock.
                      --session ID    the session to use or continue (default: a new one, chat-<time>)
                    """ + common + """

                    model: the offline scripted model, unless OPENAI_API_KEY is set; then
                      OPENAI_BASE_URL     an OpenAI-compatible endpoint (default https://api.openai.com/v1)
                      OPENAI_MODEL        the model name (default gpt-4o-mini)
                      OPENAI_TIMEOUT      seconds, or ISO-8601 such as PT30S, per attempt (default 30)
                      OPENAI_MAX_RETRIES  retries after a timeout, refused connection or HTTP 5xx/429 (default 2)""";
            case "scenario" -> """
                    scenario: the scripted nine-step memory lifecycle with a PASS/FAIL checklist (offline model,
                    fixed clock from 2024-10-19 so that every run is the same). It uses a new temporary store and
                    deletes it at the end, unless --keep or --db is given.
                      --keep          keep the temporary store and print the inspect/audit commands for it
                      --db PATH       use this (new) store instead of a temporary one; kept
                      --user NAME     whose memory (default alice)
                      --debug         print the stack trace of an error""";
            case "inspect" -> """
                    inspect: state, version history, action ledger and event log of a user (and their sessions).
                    Needs the store not to be open in a running chat (use /memory, /history, /tasks there).
                      --session ID    only this session (with persistent memory)
                    """ + common;
            case "inspect-web" -> """
                    inspect-web: the memory inspector in the browser (layers, key history, as of, turns, log,
                    audit, forget) on 127.0.0.1 with a random access token; prints the address and runs until
                    Enter or the end of the input. Needs the store not to be open in a running chat: H2 locks
                    the file to one process (exit code 6); in a chat, /inspect opens it over the chat's memory.
                    """ + common;
            case "audit" -> """
                    audit: check the user's memory: state == replay(log), conflicts, pending actions, expired
                    values. Exit code 0 when consistent, 1 when not.
                    """ + common;
            default -> USAGE + "\n\n" + """
                    commands:
                      chat        talk to the shop assistant (default)
                      scenario    run the scripted memory lifecycle and print a checklist
                      inspect     print a user's state, history and event log
                      inspect-web open the memory inspector in the browser (forgetting enabled)
                      audit       check a user's memory for consistency
                    options: --db PATH, --user NAME, --session ID, --keep, --debug, --help, --version

                    exit codes: 0 ok, 1 a check failed, 2 wrong arguments or environment variable, 4 no store at
                    --db, 5 store path unusable (a file in the way, read-only, a .mv.db restored without its
                    .hwm), 6 store in use by another process, 7 the model failed on the chat's last line,
                    70 internal error""";
        };
    }

    static String version() {
        try (InputStream in = DemoMain.class.getResourceAsStream("demo-agent.properties")) {
            if (in != null) {
                java.util.Properties p = new java.util.Properties();
                p.load(in);
                return p.getProperty("version", "unknown");
            }
        } catch (IOException e) {
            // fall through
        }
        return "unknown";
    }

    /** How to run this program again: the jar's path when it runs from one. */
    static String launcher() {
        try {
            Path p = Path.of(DemoMain.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            if (p.toString().endsWith(".jar")) {
                Path here = Path.of("").toAbsolutePath();
                Path shown = p.startsWith(here) ? here.relativize(p) : p;
                return "java -jar " + shown;
            }
        } catch (java.net.URISyntaxException | RuntimeException e) {
            // fall through
        }
        return "java -jar demo-agent/target/demo-agent.jar";
    }

    /** The inspector in the browser over a store no chat holds, with forgetting enabled, until Enter or end of input. */
    private static int inspectWeb(Options o, InputStream in, PrintStream out) {
        StoreLocation store = StoreLocation.of(o.db());
        store.requireExisting();
        try (DemoMemory memory = new DemoMemory(store.openEngine());
             MemoryInspector inspector = MemoryInspector.start(memory.agentMemory(),
                     InspectorOptions.builder(ShopAgent.TENANT).forgetting(true).operator("demo").build())) {
            out.println("memory inspector for " + store.file() + " (tenant " + ShopAgent.TENANT + ", forgetting enabled):");
            out.println("  open " + inspector.uri());
            out.println("press Enter (or end the input) to stop");
            try {
                new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)).readLine();
            } catch (IOException e) {
                // the input is gone: stop
            }
            return 0;
        }
    }

    private interface EngineWork {
        int run(MemoryEngine engine);
    }

    private static int withEngine(Options o, PrintStream out, EngineWork work) {
        StoreLocation store = StoreLocation.of(o.db());
        store.requireExisting();
        try (MemoryEngine engine = store.openEngine()) {
            return work.run(engine);
        }
    }

    private static int scenario(Options o, PrintStream out) {
        Path tempDir = null;
        StoreLocation store;
        if (o.dbGiven()) {
            store = StoreLocation.of(o.db());
            if (store.exists()) {
                throw DemoError.usage("the scenario needs a new store, and " + store.file() + " exists; pass another --db");
            }
            store.prepareForWriting();
        } else {
            try {
                tempDir = Files.createTempDirectory("agent-memory-scenario");
            } catch (IOException e) {
                throw new DemoError(DemoError.STORE_UNUSABLE, "cannot create a temporary folder in "
                        + System.getProperty("java.io.tmpdir") + " (" + e.getMessage() + "); pass --db PATH", e);
            }
            store = StoreLocation.of(tempDir.resolve("agent-memory"));
        }
        boolean keep = o.keep() || o.dbGiven();
        out.println("Scenario: the whole memory lifecycle of the shop assistant (offline scripted model, fixed clock"
                + " from 2024-10-19)");
        out.println("memory store: " + store.file() + (keep ? "" : " (temporary, deleted at the end; --keep keeps it)"));
        out.println("shop orders:  " + store.shopFile());
        loadEmbeddings(out);
        boolean ok;
        try {
            ok = new Scenario(store.prefix(), o.user(), out, true).run();
        } finally {
            if (!keep) {
                deleteTree(tempDir);
            }
        }
        out.println();
        if (keep) {
            String db = " --db " + store.prefix() + (o.user().equals("alice") ? "" : " --user " + o.user());
            out.println("store kept at " + store.file() + "; look at it with:");
            out.println("  " + launcher() + " inspect" + db);
            out.println("  " + launcher() + " inspect" + db + " --session day2");
            out.println("  " + launcher() + " audit" + db);
            out.println("  " + launcher() + " chat" + db + "   (continue as the same user)");
        } else {
            out.println("temporary store deleted; run scenario --keep to keep it and get the inspect/audit commands");
        }
        return ok ? 0 : 1;
    }

    static void loadEmbeddings(PrintStream out) {
        out.print("loading the embedding model (all-MiniLM-L6-v2, runs locally; a few seconds)...");
        out.flush();
        long t0 = System.nanoTime();
        Embeddings.shared();
        out.printf(" ready in %.1f s%n", (System.nanoTime() - t0) / 1e9);
    }

    private static void deleteTree(@Nullable Path dir) {
        if (dir == null) {
            return;
        }
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            // best effort: a leftover temp folder is not worth failing the run
        }
    }

    /** The child JVM of the crash drill: one turn whose exchange reaches the shop, then a halt before the checkpoint. */
    private static int crashDrill(Options o, PrintStream out) {
        if (o.session() == null || o.say() == null || o.at() == null) {
            throw DemoError.usage("crash-drill needs --session, --at and --say");
        }
        ShopAgent agent = ShopAgent.open(o.db(), new DemoClock(o.at()), new ScriptedShopModel());
        agent.shopTools().afterRemoteCall(() -> {
            agent.trace().drain().forEach(l -> out.println("[child] " + l));
            out.println("[child] the shop accepted the exchange; halting before the local checkpoint");
            out.flush();
            Runtime.getRuntime().halt(CRASH_EXIT);
        });
        out.println("[child] user> " + o.say());
        String answer = agent.say(ShopAgent.session(o.user(), o.session()), o.say());
        out.println("[child] assistant> " + answer + " (no crash happened)");
        agent.close();
        return 1;
    }

    private static int chat(Options o, InputStream in, PrintStream out, PrintStream err, Map<String, String> env,
                            Clock clock) {
        ModelSetup model = ModelSetup.from(env, line -> err.println("  " + line));
        StoreLocation store = StoreLocation.of(o.db());
        store.prepareForWriting();
        String session = o.session() != null ? o.session() : "chat-" + Long.toString(clock.millis(), 36);
        SessionRef ref = ShopAgent.session(o.user(), session);
        loadEmbeddings(out);
        ShopAgent agent;
        try {
            agent = ShopAgent.open(store.prefix(), clock, model.model());
        } catch (RuntimeException e) {
            throw store.openFailure(e);
        }
        try (agent) {
            out.println("Shop assistant: " + model.describe());
            out.println("user " + o.user() + ", session " + session + ", memory in " + store.file());
            out.println("Try: \"I want to return my earbuds, the right ear is silent\", \"I'd rather exchange them, in white\","
                    + " \"Ship the replacement to 12 Baker Street, London.\", \"I prefer email over phone calls.\","
                    + " \"From now on answer in French.\", \"我更喜欢换成白色的。\", \"forget that\".");
            out.println("Memory: \"Please always answer in French from now on.\", \"Actually I prefer English, not French.\","
                    + " \"No, the colour is blue.\", \"Where were we?\", \"What do you remember about me?\", \"Forget my language"
                    + " preference.\" (in Chinese too: 其实我更喜欢英文, 你记得我什么).");
            out.println("/help lists the commands (/memory, /why, /history KEY, /forget KEY, /tasks, /quit).");
            Chat chat = new Chat(agent, ref, out, err);
            chat.run(new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)));
            out.println("bye");
            return chat.lastTurnFailed() ? DemoError.MODEL : 0;
        }
    }

    /** State, history and event log of a user (and one of their sessions when given). */
    static String inspect(MemoryEngine engine, Caller caller, @Nullable String session) {
        StringBuilder b = new StringBuilder();
        b.append("== user ").append(caller.tenant()).append('/').append(caller.user()).append('\n');
        List<Scope> scopes = new ArrayList<>();
        scopes.add(caller.persistent());
        Set<String> sessions = new LinkedHashSet<>();
        for (KeyState k : engine.servable(caller, Layer.SESSION)) {
            sessions.add(k.scope().session());
        }
        for (KeyState k : engine.servable(caller, Layer.TASK)) {
            sessions.add(k.scope().session());
        }
        if (session != null) {
            sessions.retainAll(Set.of(session));
            sessions.add(session);
        }
        Map<Scope, List<TaskInfo>> tasks = new HashMap<>();
        for (String s : sessions) {
            scopes.add(caller.session(s));
            List<TaskInfo> ts = engine.tasks().list(caller, s);
            tasks.put(caller.session(s), ts);
            for (TaskInfo t : ts) {
                scopes.add(caller.task(t));
            }
        }
        for (Scope scope : scopes) {
            b.append("\n-- ").append(scope).append('\n');
            if (session != null && scope.layer() == Layer.SESSION) {
                var messages = engine.messages().history(caller, session);
                b.append("   ").append(messages.size()).append(" message(s)").append(messages.isEmpty() ? "" : ":").append('\n');
                for (dev.agentmemory.core.event.StoredMessage m : messages.values()) {
                    b.append("   #").append(m.index()).append(' ').append(m.type()).append(' ')
                            .append(m.forgotten() ? "(forgotten)" : m.text() == null ? "" : DemoTrace.clip(m.text())).append('\n');
                }
            }
            for (TaskInfo t : tasks.getOrDefault(scope, List.of())) {
                b.append("   task ").append(t.task()).append(" (").append(t.title()).append("): ")
                        .append(t.status().name().toLowerCase()).append('\n');
            }
            Set<MemoryKey> keys = new LinkedHashSet<>();
            engine.view(caller, scope, dev.agentmemory.core.ReadOptions.withArchived()).keys().forEach(k -> keys.add(k.key()));
            for (dev.agentmemory.core.event.LoggedEvent e : engine.admin().log(caller)) {
                if (e.change() instanceof dev.agentmemory.core.event.Change.RecordWritten w && w.record().scope().equals(scope)) {
                    keys.add(w.record().key());
                }
            }
            TaskInfo scopeTask = scope.layer() != Layer.TASK ? null : tasks.values().stream().flatMap(List::stream)
                    .filter(t -> t.task().equals(scope.task()) && t.session().equals(scope.session())).findFirst().orElse(null);
            for (MemoryKey key : keys) {
                List<MemoryRecord> history = engine.history(caller, scope, key);
                for (MemoryRecord r : history) {
                    b.append("   ").append(key).append(" v").append(r.version()).append(" = ")
                            .append(r.value() == null ? "(tombstone, value removed)" : DemoTrace.clip(r.text()))
                            .append("  [").append(r.status().name().toLowerCase()).append(", ")
                            .append(r.kind().name().toLowerCase()).append(", ").append(r.source().name().toLowerCase())
                            .append(", ").append(r.trust().name().toLowerCase())
                            .append(r.validFrom() != null || r.validTo() != null ? ", valid " + r.validFrom() + ".." + r.validTo() : "")
                            .append("]")
                            .append(r.value() == null ? "" : "  read now as "
                                    + StatusRule.of(r, history, scopeTask, engine.clock().instant()).label())
                            .append("\n");
                }
            }
        }
        b.append("\n-- action ledger\n");
        for (ActionRecord a : ledger(engine, caller)) {
            b.append("   ").append(a.operationId()).append(' ').append(a.action()).append(' ').append(a.params().json())
                    .append(a.pending() ? " PENDING" : " -> " + Objects.requireNonNull(a.outcome(), "a done action has an outcome").json()).append('\n');
        }
        b.append("\n-- event log (sensitive values redacted)").append(session == null ? "" : ", events of session " + session
                + " and of persistent memory").append('\n');
        for (String line : engine.admin().readableLog(caller)) {
            boolean other = session != null && (line.contains(" session ") || line.contains("/session/") || line.contains(" task ")
                    || line.contains("/task/")) && !(line.contains(" session " + session + " ") || line.contains("/session/" + session + " ")
                    || line.contains(" task " + session + "/") || line.contains("/task/" + session + "/"));
            if (!other) {
                b.append("   ").append(line).append('\n');
            }
        }
        return b.toString();
    }

    private static List<ActionRecord> ledger(MemoryEngine engine, Caller caller) {
        List<ActionRecord> out = new ArrayList<>();
        for (dev.agentmemory.core.event.LoggedEvent e : engine.admin().log(caller)) {
            if (e.change() instanceof dev.agentmemory.core.event.Change.ActionIntended i) {
                engine.ledger().action(caller, i.operationId()).ifPresent(out::add);
            }
        }
        return out;
    }
}

package dev.agentmemory.demo;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.KeyState;
import dev.agentmemory.core.Layer;
import dev.agentmemory.core.MemoryEngine;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.Scope;
import dev.agentmemory.core.TaskInfo;
import dev.agentmemory.core.audit.AuditReport;
import dev.agentmemory.core.ledger.ActionRecord;
import dev.agentmemory.core.store.jdbc.JdbcEventStore;
import dev.agentmemory.langchain4j.SessionRef;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The demo's command line: {@code chat} (default), {@code scenario}, {@code inspect}, {@code audit}.
 * Options: {@code --db PATH} (default {@code ./demo-data/agent-memory}), {@code --user}, {@code --session}.
 */
public final class DemoMain {

    /** Exit code of the crash drill's child JVM when it halted as planned. */
    static final int CRASH_EXIT = 3;

    static final Path DEFAULT_DB = Path.of("demo-data", "agent-memory");
    static final Instant CHAT_START = Instant.parse("2024-10-19T09:00:00Z");

    private DemoMain() {
    }

    /** Runs the demo; exits with the command's status. */
    public static void main(String[] args) {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        int code = run(args, System.in, out, System.getenv());
        out.flush();
        System.exit(code);
    }

    /** Parsed options. */
    record Options(String command, Path db, String user, String session, Instant at, String say, boolean dbGiven) {
    }

    static Options parse(String[] args) {
        String command = "chat";
        Path db = DEFAULT_DB;
        boolean dbGiven = false;
        String user = "alice";
        String session = null;
        Instant at = null;
        String say = null;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--db" -> {
                    db = Path.of(value(args, ++i, a));
                    dbGiven = true;
                }
                case "--user" -> user = value(args, ++i, a);
                case "--session" -> session = value(args, ++i, a);
                case "--at" -> at = Instant.parse(value(args, ++i, a));
                case "--say" -> say = value(args, ++i, a);
                case "chat", "scenario", "inspect", "audit", "crash-drill" -> command = a;
                case "-h", "--help", "help" -> command = "help";
                default -> throw new IllegalArgumentException("unknown argument: \"" + a + "\" (try --help)");
            }
        }
        return new Options(command, db, user, session, at, say, dbGiven);
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }

    static int run(String[] args, InputStream in, PrintStream out, Map<String, String> env) {
        Options o;
        try {
            o = parse(args);
        } catch (IllegalArgumentException e) {
            out.println(e.getMessage());
            return 2;
        }
        return switch (o.command()) {
            case "help" -> {
                out.println("usage: java -jar demo-agent.jar [chat|scenario|inspect|audit] [--db PATH] [--user U] [--session S]");
                out.println("chat uses an OpenAI-compatible model when OPENAI_API_KEY is set (also OPENAI_MODEL,"
                        + " OPENAI_BASE_URL, OPENAI_TIMEOUT e.g. PT30S, OPENAI_MAX_RETRIES)");
                yield 0;
            }
            case "scenario" -> scenario(o, out);
            case "inspect" -> withEngine(o, engine -> {
                out.print(inspect(engine, Caller.of(ShopAgent.TENANT, o.user()), o.session()));
                return 0;
            });
            case "audit" -> withEngine(o, engine -> {
                AuditReport r = engine.admin().audit(Caller.of(ShopAgent.TENANT, o.user()), Duration.ofDays(30));
                r.lines().forEach(out::println);
                out.println(r.consistent() ? "consistent: yes" : "consistent: NO");
                return r.consistent() ? 0 : 1;
            });
            case "crash-drill" -> crashDrill(o, out);
            default -> chat(o, in, out, env);
        };
    }

    private interface EngineWork {
        int run(MemoryEngine engine);
    }

    private static int withEngine(Options o, EngineWork work) {
        if (!Files.exists(o.db().resolveSibling(o.db().getFileName() + ".mv.db"))) {
            throw new IllegalArgumentException("no memory store at " + o.db() + " (run chat or scenario first, or pass --db)");
        }
        try (MemoryEngine engine = MemoryEngine.builder().store(JdbcEventStore.h2File(o.db())).build()) {
            return work.run(engine);
        }
    }

    private static int scenario(Options o, PrintStream out) {
        Path db;
        try {
            db = o.dbGiven() ? o.db() : Files.createTempDirectory("agent-memory-scenario").resolve("agent-memory");
            if (Files.exists(db.resolveSibling(db.getFileName() + ".mv.db"))) {
                out.println("the scenario needs a fresh store, and " + db + " exists; pass another --db");
                return 2;
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot create a temporary directory: " + e.getMessage(), e);
        }
        out.println("Scenario: the whole memory lifecycle of the shop assistant (offline scripted model)");
        out.println("memory store: " + db + ".mv.db, shop: " + ShopAgent.shopFile(db) + ".mv.db");
        boolean ok = new Scenario(db, o.user(), out, true).run();
        return ok ? 0 : 1;
    }

    /** The child JVM of the crash drill: one turn whose exchange reaches the shop, then a halt before the checkpoint. */
    private static int crashDrill(Options o, PrintStream out) {
        if (o.session() == null || o.say() == null || o.at() == null) {
            throw new IllegalArgumentException("crash-drill needs --session, --at and --say");
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

    private static int chat(Options o, InputStream in, PrintStream out, Map<String, String> env) {
        Clock clock = Clock.offset(Clock.systemUTC(), Duration.between(Instant.now(), CHAT_START));
        String session = o.session() != null ? o.session() : "chat-" + Long.toString(System.currentTimeMillis(), 36);
        SessionRef ref = ShopAgent.session(o.user(), session);
        boolean offline = env.get("OPENAI_API_KEY") == null || env.get("OPENAI_API_KEY").isBlank();
        dev.langchain4j.model.chat.ChatModel model;
        try {
            model = ShopAgent.defaultModel(env);
        } catch (IllegalArgumentException e) {
            out.println(e.getMessage());
            return 2;
        }
        try (ShopAgent agent = ShopAgent.open(o.db(), clock, model)) {
            out.println("Shop assistant (" + (offline ? "offline scripted model" : "OpenAI-compatible model") + "), user "
                    + o.user() + ", session " + session + ", memory in " + o.db() + ".mv.db");
            out.println("Ask about orders, returns, exchanges, delivery addresses or policies. /quit to leave.");
            BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            String line;
            while (true) {
                out.print("you> ");
                out.flush();
                line = reader.readLine();
                if (line == null || line.strip().equals("/quit") || line.strip().equals("/exit")) {
                    break;
                }
                if (line.isBlank()) {
                    continue;
                }
                out.println();
                String answer;
                try {
                    answer = agent.say(ref, line.strip());
                } catch (RuntimeException e) {
                    answer = "(error: " + e.getMessage() + ")";
                }
                out.println("assistant> " + answer);
                for (String t : agent.trace().drain()) {
                    out.println("  [memory] " + t);
                }
                agent.memory().lastRecall(ref).ifPresent(r -> out.println("  [context] " + r.used().size()
                        + " memory item(s): " + r.used().stream().map(DemoMemory.Used::id).toList()));
            }
            out.println("bye");
            return 0;
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the input: " + e.getMessage(), e);
        }
    }

    /** State, history and event log of a user (and one of their sessions when given). */
    static String inspect(MemoryEngine engine, Caller caller, String session) {
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
            for (MemoryKey key : keys) {
                for (MemoryRecord r : engine.history(caller, scope, key)) {
                    b.append("   ").append(key).append(" v").append(r.version()).append(" = ")
                            .append(r.value() == null ? "(tombstone, value removed)" : DemoTrace.clip(r.text()))
                            .append("  [").append(r.status().name().toLowerCase()).append(", ")
                            .append(r.kind().name().toLowerCase()).append(", ").append(r.source().name().toLowerCase())
                            .append(", ").append(r.trust().name().toLowerCase())
                            .append(r.validFrom() != null || r.validTo() != null ? ", valid " + r.validFrom() + ".." + r.validTo() : "")
                            .append("]\n");
                }
            }
        }
        b.append("\n-- action ledger\n");
        for (ActionRecord a : ledger(engine, caller)) {
            b.append("   ").append(a.operationId()).append(' ').append(a.action()).append(' ').append(a.params().json())
                    .append(a.pending() ? " PENDING" : " -> " + a.outcome().json()).append('\n');
        }
        b.append("\n-- event log (sensitive values redacted)\n");
        for (String line : engine.admin().readableLog(caller)) {
            b.append("   ").append(line).append('\n');
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

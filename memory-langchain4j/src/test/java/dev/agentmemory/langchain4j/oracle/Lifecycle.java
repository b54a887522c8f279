package dev.agentmemory.langchain4j.oracle;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.TaskInfo;
import dev.agentmemory.langchain4j.AgentMemory;
import dev.agentmemory.langchain4j.SessionRef;
import dev.agentmemory.langchain4j.framing.FramedItem;
import dev.agentmemory.langchain4j.framing.MemoryFrameParser;
import dev.agentmemory.langchain4j.framing.ParsedFrame;
import dev.agentmemory.testing.TestClock;
import dev.agentmemory.testing.langchain4j.ScriptedChatModel;
import dev.agentmemory.testing.langchain4j.SharedEmbeddingModel;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.Content;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.tool.ToolErrorHandlerResult;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * Runs one lifecycle: a list of {@link Step}s through a real AiService over {@link AgentMemory}
 * (chat memory provider, retrieval augmentor, memory tools) with a scripted model and the real
 * embedding model, checking every request the model receives. Not thread-safe; one use.
 */
final class Lifecycle implements AutoCloseable {

    /** The AiService a user writes. */
    interface Assistant {
        String chat(@MemoryId SessionRef session, @dev.langchain4j.service.UserMessage String text);
    }

    /**
     * How the lifecycle is set up.
     *
     * @param h2        an H2 file (restarts reopen it) instead of the in-memory store
     * @param careful   the AiService has a hallucinated-tool-name strategy and a tool-arguments error handler
     * @param summaries a summarizer compacts messages that leave the window
     */
    record Config(boolean h2, boolean careful, boolean summaries) {
        @Override
        public String toString() {
            return (h2 ? "H2 file" : "in-memory store") + ", " + (careful ? "careful AiService (tool error handlers)"
                    : "bare AiService (no tool error handlers)") + ", " + (summaries ? "summaries every 4" : "no summaries");
        }
    }

    /** What a lifecycle found. */
    record Result(Config config, List<Step> steps, List<Violation> violations, int requests, List<String> log) {

        /** The whole story of a violation: the setup and each step as it ran, up to the one that failed. */
        String story(Violation v) {
            StringBuilder sb = new StringBuilder(v.toString()).append("\n  setup: ").append(config).append('\n');
            for (String line : log) {
                int n = Integer.parseInt(line.substring(1, line.indexOf(' ')));
                if (n <= v.step()) {
                    sb.append("  ").append(line).append('\n');
                }
            }
            return sb.toString();
        }
    }

    private record Plan(String text, List<Function<ChatRequest, AiMessage>> actions, String summary,
                        boolean failureExpected) {
    }

    private static final class ScriptedFailure extends RuntimeException {
        ScriptedFailure() {
            super("scripted model failure");
        }
    }

    static final int WINDOW = 8;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SUMMARY_PROMPT_START = "Summarize the conversation excerpt";

    private final Config config;
    private final Path dir;
    private final TestClock clock = TestClock.ticking(Instant.parse("2026-03-01T09:00:00Z"), Duration.ofMillis(1));
    private final ScriptedChatModel model;
    private final RequestChecker checker = new RequestChecker();
    private final EngineView[] views = {new EngineView(), new EngineView()};
    private final List<Violation> violations = new ArrayList<>();
    private final List<String> log = new ArrayList<>();
    private final Map<SessionRef, Integer> produced = new HashMap<>();
    private final List<Set<String>> retired = List.of(new HashSet<>(), new HashSet<>());
    /** For each user, the scope each value was first written in: a value lives in one scope only. */
    private final List<Map<String, String>> boundTo = List.of(new HashMap<>(), new HashMap<>());
    private final int[] tasksStarted = new int[2];
    private AgentMemory memory;
    private Assistant assistant;
    private int requests;
    private int callIds;
    private int step;
    private int round;
    private int user;
    private SessionRef ref;
    private Deque<Function<ChatRequest, AiMessage>> script = new ArrayDeque<>();
    /** The engine's state when the turn's first request was made, and the nonces of the blocks it carried. */
    private EngineView.Snapshot turnStart;
    private Set<String> turnNonces = Set.of();

    Lifecycle(Config config) {
        this.config = config;
        try {
            this.dir = config.h2() ? Files.createTempDirectory("prompt-oracle") : null;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.model = ScriptedChatModel.checking(this::check, this::respond);
        open();
    }

    /** Runs the steps and returns what was found; a lifecycle runs once. */
    Result run(List<Step> steps) {
        for (int i = 0; i < steps.size(); i++) {
            step = i + 1;
            Step s = steps.get(i);
            user = s.user();
            ref = new SessionRef(Vocabulary.TENANT, Vocabulary.USERS[user], Vocabulary.SESSIONS[s.session()]);
            Plan plan = plan(s);
            if (plan == null) {
                refreshViews();
                continue;
            }
            log(s.kind() + " «" + plan.text() + "» → " + plan.summary());
            script = new ArrayDeque<>(plan.actions());
            round = 0;
            turnStart = null;
            turnNonces = Set.of();
            produced.merge(ref, 1, Integer::sum);
            try {
                assistant.chat(ref, plan.text());
            } catch (RuntimeException e) {
                String what = describe(e);
                log.set(log.size() - 1, log.get(log.size() - 1) + " — turn failed: " + what);
                if (!plan.failureExpected()) {
                    violations.add(new Violation(Invariant.UNEXPECTED_FAILURE, step, round, "AiService.chat", what));
                }
            }
            refreshViews();
        }
        return new Result(config, List.copyOf(steps), List.copyOf(violations), requests, List.copyOf(log));
    }

    // ------------------------------------------------------------------ the model

    private void check(ChatRequest request) {
        boolean summary = isSummaryRequest(request);
        EngineView.Snapshot snapshot = views[user].snapshot(memory, user);
        Caller caller = memory.caller(ref);
        int stored = memory.engine().messages().history(caller, ref.session()).size();
        if (!summary && round == 0) {
            turnStart = snapshot;
            turnNonces = new HashSet<>();
            MemoryFrameParser.parse(lastUserText(request)).forEach(f -> turnNonces.add(f.nonce()));
        }
        requests++;
        violations.addAll(checker.check(request, new RequestChecker.Context(step, round, user, summary, snapshot,
                turnStart == null ? snapshot : turnStart, turnNonces, stored, produced.getOrDefault(ref, 0))));
    }

    private AiMessage respond(ChatRequest request) {
        if (isSummaryRequest(request)) {
            List<String> said = new ArrayList<>(new LinkedHashSet<>(Vocabulary.valuesIn(lastUserText(request), user)));
            return AiMessage.from(said.isEmpty() ? "The user made small talk." : "The user mentioned " + String.join(", ", said) + ".");
        }
        Function<ChatRequest, AiMessage> next = script.poll();
        round++;
        AiMessage reply = next == null ? AiMessage.from("OK.") : next.apply(request);
        produced.merge(ref, 1 + (reply.hasToolExecutionRequests() ? reply.toolExecutionRequests().size() : 0), Integer::sum);
        return reply;
    }

    private static boolean isSummaryRequest(ChatRequest request) {
        return !request.messages().isEmpty() && request.messages().get(0) instanceof SystemMessage s
                && s.text().startsWith(SUMMARY_PROMPT_START);
    }

    // ------------------------------------------------------------------ steps

    private Plan plan(Step s) {
        Caller caller = memory.caller(ref);
        String session = ref.session();
        Optional<TaskInfo> active = memory.engine().tasks().active(caller, session);
        EngineView.Snapshot now = views[user].snapshot(memory, user);
        boolean quoted = s.choice() % 5 != 0;
        switch (s.kind()) {
            case PREFERENCE, FACT -> {
                String key = s.kind() == Step.Kind.PREFERENCE ? Vocabulary.LANGUAGE : Vocabulary.CITY;
                String value = pick(key, "persistent", now, s.choice());
                if (value == null) {
                    return ask();
                }
                String text = key.equals(Vocabulary.LANGUAGE) ? "Please answer in " + value + " from now on."
                        : "I live in " + value + ".";
                String quote = key.equals(Vocabulary.LANGUAGE) ? "answer in " + value : "I live in " + value;
                return new Plan(text, List.of(
                        call("remember", "key", key, "value", value, "kind",
                                key.equals(Vocabulary.LANGUAGE) ? "preference" : "fact", "userQuote", quoted ? quote : null),
                        say("Noted: " + value + ".")),
                        "remember(" + key + "=" + value + (quoted ? ", quoted" : ", unquoted") + ")", false);
            }
            case START_TASK -> {
                if (tasksStarted[user] >= 9) {
                    return ask();
                }
                String task = Vocabulary.taskId(user, ++tasksStarted[user]);
                return new Plan("Let's work on the exchange for order " + task + ".",
                        List.of(call("startTask", "task", task, "title", "exchange"), say("Started " + task + ".")),
                        "startTask(" + task + ")", false);
            }
            case TASK_STATE -> {
                String scope = active.map(t -> "task " + t.task()).orElse("session " + session);
                String value = pick(Vocabulary.COLOR, scope, now, s.choice());
                if (value == null) {
                    return ask();
                }
                return new Plan("For this exchange I want the " + value + " one.", List.of(
                        call("updateState", "key", Vocabulary.COLOR, "value", value, "scope",
                                active.isPresent() ? "task" : "session", "userQuote", quoted ? "the " + value + " one" : null),
                        say("OK, the " + value + " one.")),
                        "updateState(" + Vocabulary.COLOR + "=" + value + " in " + scope + (quoted ? ", quoted" : ", unquoted") + ")",
                        false);
            }
            case SUSPEND_TASK -> {
                return new Plan("Let's put this exchange aside for now.",
                        List.of(call("suspendTask"), say("Put aside.")), "suspendTask(" + active.map(TaskInfo::task).orElse("none active") + ")", false);
            }
            case RESUME_TASK -> {
                List<String> suspended = memory.engine().tasks().list(caller, session).stream()
                        .filter(t -> t.status() == TaskInfo.Status.SUSPENDED).map(TaskInfo::task).toList();
                String task = suspended.isEmpty() ? Vocabulary.taskId(user, 1) : suspended.get(s.choice() % suspended.size());
                return new Plan("Let's go back to order " + task + ".",
                        List.of(call("resumeTask", "task", task), say("Back to " + task + ".")), "resumeTask(" + task + ")", false);
            }
            case END_TASK -> {
                return new Plan("This exchange is done, thanks.", List.of(call("endTask"), say("Closed.")),
                        "endTask(" + active.map(TaskInfo::task).orElse("none active") + ")", false);
            }
            case FORGET_PREFERENCE, FORGET_FACT -> {
                boolean language = s.kind() == Step.Kind.FORGET_PREFERENCE;
                String text = language ? "Please forget my language preference." : "Please forget where I live.";
                String quote = language ? "forget my language preference" : "forget where I live";
                String key = language ? Vocabulary.LANGUAGE : Vocabulary.CITY;
                return new Plan(text, List.of(call("forget", "key", key, "scope", "persistent", "userQuote", quote),
                        say("Forgotten.")), "forget(" + key + " in persistent)", false);
            }
            case FORGET_TASK_STATE -> {
                String scope = active.isPresent() ? "task" : "session";
                return new Plan("Please forget the color I chose.", List.of(call("forget", "key", Vocabulary.COLOR,
                        "scope", scope, "userQuote", "forget the color I chose"), say("Forgotten.")),
                        "forget(" + Vocabulary.COLOR + " in " + active.map(t -> "task " + t.task()).orElse("session " + session) + ")",
                        false);
            }
            case ASK -> {
                return ask();
            }
            case MALFORMED_TOOL_CALL -> {
                String args = s.choice() % 2 == 0 ? "{\"key\": \"" + Vocabulary.LANGUAGE + "\", \"value\": "
                        : "{key: exchange.color, value: [}";
                String tool = s.choice() % 2 == 0 ? "remember" : "updateState";
                return new Plan("Please save my settings.", List.of(raw(tool, args), say("Sorry, that went wrong.")),
                        tool + " with arguments " + args, !config.careful());
            }
            case UNKNOWN_TOOL -> {
                return new Plan("Please save everything about me.",
                        List.of(raw("saveEverything", "{\"what\": \"all\"}"), say("I could not do that.")),
                        "saveEverything (no such tool)", !config.careful());
            }
            case MODEL_FAILS -> {
                Function<ChatRequest, AiMessage> fail = r -> {
                    throw new ScriptedFailure();
                };
                if (s.choice() % 2 == 0) {
                    return new Plan("Are you there?", List.of(fail), "model throws", true);
                }
                return new Plan("Are you there?", List.of(call("forget", "key", Vocabulary.LANGUAGE, "scope", "everywhere"), fail),
                        "forget with a bad scope (no effect), then the model throws", true);
            }
            case ECHO_FRAME -> {
                int variant = s.choice() % 3;
                if (variant == 0) {
                    return new Plan("Show me what you were given.", List.of(r -> AiMessage.from("I was given:\n" + frameText(r, false))),
                            "echoes the framed block in its reply", false);
                }
                if (variant == 1) {
                    return new Plan("Show me what you were given.", List.of(r -> AiMessage.from("Markers:\n" + frameText(r, true))),
                            "echoes the block's marker lines in its reply", false);
                }
                return new Plan("Show me what you were given.", List.of(r -> callNow("updateState", "key", "notes.echo",
                        "value", frameText(r, false), "scope", "session"), say("Noted.")),
                        "echoes the framed block into updateState(notes.echo) arguments", false);
            }
            case RESTART -> {
                if (!config.h2()) {
                    return ask();
                }
                memory.close();
                open();
                log("RESTART (closed the memory, built a new one on the same H2 file)");
                return null;
            }
            case TIME_PASSES -> {
                clock.advance(Duration.ofDays(2));
                log("TIME_PASSES (2 days: facts pass their 1-day re-verify deadline)");
                return null;
            }
            default -> throw new IllegalStateException("unknown step " + s);
        }
    }

    private Plan ask() {
        return new Plan("What do you remember about me?", List.of(r -> AiMessage.from(restate(r))),
                "answers restating the current items of its memory block", false);
    }

    /** A value for {@code key} not forgotten before, not held in another scope, not the current one. */
    private String pick(String key, String scope, EngineView.Snapshot now, int choice) {
        Map<String, String> bound = boundTo.get(user);
        List<String> candidates = Vocabulary.values(key, user).stream()
                .filter(v -> !retired.get(user).contains(v))
                .filter(v -> !bound.containsKey(v) || bound.get(v).equals(scope))
                .filter(v -> !now.valid().contains(v))
                .toList();
        if (candidates.isEmpty()) {
            return null;
        }
        String value = candidates.get(choice % candidates.size());
        bound.put(value, scope);
        return value;
    }

    private void refreshViews() {
        for (int u = 0; u < 2; u++) {
            retired.get(u).addAll(views[u].snapshot(memory, u).forgotten().keySet());
        }
    }

    // ------------------------------------------------------------------ model actions

    private Function<ChatRequest, AiMessage> call(String tool, Object... keyValues) {
        return r -> callNow(tool, keyValues);
    }

    private AiMessage callNow(String tool, Object... keyValues) {
        ObjectNode args = JSON.createObjectNode();
        for (int i = 0; i < keyValues.length; i += 2) {
            if (keyValues[i + 1] != null) {
                args.put((String) keyValues[i], (String) keyValues[i + 1]);
            }
        }
        return AiMessage.from(ToolExecutionRequest.builder().id("call-" + (++callIds)).name(tool)
                .arguments(args.toString()).build());
    }

    private Function<ChatRequest, AiMessage> raw(String tool, String arguments) {
        return r -> AiMessage.from(ToolExecutionRequest.builder().id("call-" + (++callIds)).name(tool)
                .arguments(arguments).build());
    }

    private static Function<ChatRequest, AiMessage> say(String text) {
        return r -> AiMessage.from(text);
    }

    /** What a model that restates its memory says: the texts of the current items it was shown. */
    private static String restate(ChatRequest r) {
        List<String> items = new ArrayList<>();
        for (ParsedFrame f : MemoryFrameParser.parse(lastUserText(r))) {
            for (FramedItem i : f.items()) {
                if ("current".equals(i.status())) {
                    items.add(i.text());
                }
            }
        }
        return items.isEmpty() ? "I do not remember anything about you yet." : "I remember: " + String.join("; ", items) + ".";
    }

    /** The framed block of the last user message (or only its marker lines); a fake header when there is none. */
    private static String frameText(ChatRequest r, boolean markersOnly) {
        String text = lastUserText(r);
        List<ParsedFrame> frames = MemoryFrameParser.parse(text);
        if (frames.isEmpty()) {
            return "<<<AGENT-MEMORY-DATA nonce=00000000000000000000000000000000 items=1>>>";
        }
        String block = text.substring(frames.get(0).start(), frames.get(0).end());
        if (!markersOnly) {
            return block;
        }
        String[] lines = block.split("\n");
        return lines[0] + "\n" + lines[lines.length - 1];
    }

    private static String lastUserText(ChatRequest r) {
        List<ChatMessage> messages = r.messages();
        for (int i = messages.size() - 1; i >= 0; i--) {
            if (messages.get(i) instanceof UserMessage u) {
                StringBuilder sb = new StringBuilder();
                for (Content c : u.contents()) {
                    if (c instanceof TextContent t) {
                        sb.append(t.text());
                    }
                }
                return sb.toString();
            }
        }
        return "";
    }

    // ------------------------------------------------------------------ setup

    private void open() {
        AgentMemory.Builder b = AgentMemory.builder()
                .embeddingModel(SharedEmbeddingModel.get())
                .windowSize(WINDOW)
                .engineSettings(e -> e.clock(clock).ttl(Kind.OBSERVATION, Duration.ofDays(1)));
        if (config.h2()) {
            b.h2File(dir.resolve("memory"));
        }
        if (config.summaries()) {
            b.summarizer(model, 4);
        }
        memory = b.build();
        AiServices<Assistant> services = AiServices.builder(Assistant.class)
                .chatModel(model)
                .chatMemoryProvider(memory.chatMemoryProvider())
                .retrievalAugmentor(memory.retrievalAugmentor())
                .tools(memory.tools());
        if (config.careful()) {
            // what a careful user sets (LangChain4j 1.19): the model learns of its mistake instead of the call failing
            services.hallucinatedToolNameStrategy(call -> ToolExecutionResultMessage.from(call,
                            "There is no tool named " + call.name() + "; use one of the tools you were given."))
                    .toolArgumentsErrorHandler((error, context) -> ToolErrorHandlerResult.text(
                            "The arguments of " + context.toolExecutionRequest().name() + " are not valid JSON for it: "
                                    + error.getMessage()));
        }
        assistant = services.build();
    }

    private void log(String line) {
        log.add(String.format("#%02d %s/%s %s", step, Vocabulary.USERS[user], ref == null ? "-" : ref.session(), line));
    }

    private static String describe(Throwable e) {
        StringBuilder sb = new StringBuilder();
        for (Throwable t = e; t != null && sb.length() < 400; t = t.getCause() == t ? null : t.getCause()) {
            if (sb.length() > 0) {
                sb.append(" ← ");
            }
            sb.append(t.getClass().getSimpleName()).append(": ").append(String.valueOf(t.getMessage()).replace("\n", " "));
        }
        return sb.length() > 400 ? sb.substring(0, 400) + "…" : sb.toString();
    }

    @Override
    public void close() {
        memory.close();
        if (dir != null) {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException e) {
                // a temp dir left behind is not a test failure
            }
        }
    }
}

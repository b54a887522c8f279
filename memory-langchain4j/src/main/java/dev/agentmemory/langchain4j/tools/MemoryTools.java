package dev.agentmemory.langchain4j.tools;

import dev.agentmemory.langchain4j.internal.EnumText;
import dev.agentmemory.langchain4j.internal.MemorySpans;
import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ForgetMode;
import dev.agentmemory.core.ForgetReceipt;
import dev.agentmemory.core.ForgetTarget;
import dev.agentmemory.core.ScopeView.KeyState;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.Scope.Layer;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.MemoryValue;
import dev.agentmemory.core.Proposal.Outcome;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.ReadOptions;
import dev.agentmemory.core.Scope;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.core.TaskInfo;
import dev.agentmemory.core.event.StoredMessage;
import dev.agentmemory.langchain4j.SessionRef;
import dev.agentmemory.langchain4j.SessionResolver;
import dev.agentmemory.langchain4j.plainwords.Attribute;
import dev.agentmemory.langchain4j.plainwords.PlainWords;
import dev.langchain4j.agent.tool.P;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.agent.tool.ToolMemoryId;
import org.jspecify.annotations.Nullable;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Memory tools for an AiService: remember, update state, forget, and start, suspend, resume or
 * end a task. Pass an instance to {@code AiServices.builder(...).tools(...)}; the AiService's
 * memory id is mapped to a session by a {@link SessionResolver} (the one of the
 * {@code AgentMemory} that made these tools).
 *
 * <p><b>Trust.</b> A model is not believed on its own say-so. Every call becomes a core
 * {@link Proposal} that the engine validates like any other write:
 * <ul>
 *   <li>Without {@code userQuote}, a write is the model's own: source MODEL, untrusted, a
 *       candidate waiting for confirmation. A requested preference or decision is kept as an
 *       unconfirmed inference (tagged {@code unconfirmed-preference} or {@code unconfirmed-decision})
 *       because the engine lets no untrusted source write either; a model can never forget.</li>
 *   <li>With {@code userQuote}, the tool checks the claim: the quoted words must occur in one of
 *       the user's messages in the session's window, and every word of the value must occur in
 *       the quote. Then the write is the user's statement (source USER, trusted) with a reference
 *       to that message ({@code message:<session>#<index>}) and the tag {@code cited-by-model}.</li>
 *   <li>A quote must also support the key's meaning, not only hold its value: a key about the
 *       user's identity or standing facts (residence, nationality, employer, name, contact) needs a
 *       quote stating that attribute ("I live in Berlin", "我住在海岚"), and a preference needs a
 *       quote that is not about a trip, an order or another person. A quote that does not (the
 *       trip sentence "这次 11 月去海岚。" for {@code user.residence}) keeps the write as the model's
 *       unconfirmed inference, tagged {@value #UNSUPPORTED_QUOTE_TAG}, and the answer says why.</li>
 * </ul>
 * Quotes are looked up in the session's messages held by the engine, so quoted writes need
 * the AiService to keep its chat memory in the {@code AgentMemory}'s store; with another
 * {@code ChatMemoryStore} every quoted write is answered with {@link #NO_MESSAGES_TO_QUOTE}.
 * Rule violations, unknown keys, bad ids and uncheckable quotes come back as the tool's text
 * result, never as an exception into the AiService. Thread-safe.
 */
public final class MemoryTools {

    /** Tag on writes the model made for the user by citing the user's words. */
    public static final String CITED_TAG = "cited-by-model";

    /**
     * Tag on writes the model cited the user for, but whose quote does not state the key's
     * meaning (a trip quoted for a residence): kept as the model's unconfirmed inference.
     */
    public static final String UNSUPPORTED_QUOTE_TAG = "quote-does-not-state-it";

    /**
     * The answer to a quoted write when this memory holds no user message of the session: the
     * quote cannot be checked, typically because the AiService keeps its chat memory in another
     * store (LangChain4j's {@code InMemoryChatMemoryStore}) instead of the AgentMemory's.
     */
    public static final String NO_MESSAGES_TO_QUOTE = "Not saved: the quote cannot be checked because this memory"
            + " holds no user message of this session (quoted writes need the AiService's chat memory to be"
            + " AgentMemory.chatMemoryProvider() or chatMemoryStore(), not another ChatMemoryStore); leave userQuote"
            + " out to keep an unconfirmed candidate.";

    private final MemoryEngine engine;
    private final String agent;
    private final ForgetMode forgetMode;
    private final SessionResolver sessions;
    /** Set by {@code AgentMemory} when tracing is configured, before the tools are handed out. */
    private volatile MemorySpans spans = MemorySpans.NONE;

    static {
        MemorySpans.ToolsHook.register((tools, spans) -> ((MemoryTools) tools).spans = spans);
    }

    /** Tools acting as {@code agent}; forgetting is soft (tombstones stay for audit); ids mapped by {@link SessionResolver#standard()}. */
    public MemoryTools(MemoryEngine engine, String agent) {
        this(engine, agent, ForgetMode.SOFT);
    }

    /** Tools acting as {@code agent}, forgetting in {@code forgetMode}; ids mapped by {@link SessionResolver#standard()}. */
    public MemoryTools(MemoryEngine engine, String agent, ForgetMode forgetMode) {
        this(engine, agent, forgetMode, SessionResolver.standard());
    }

    /**
     * Tools acting as {@code agent}, forgetting in {@code forgetMode}, mapping memory ids with
     * {@code sessions} (use the chat memory store's mapping, so that quotes are looked up in the
     * session the AiService writes to).
     */
    public MemoryTools(MemoryEngine engine, String agent, ForgetMode forgetMode, SessionResolver sessions) {
        this.engine = Objects.requireNonNull(engine, "engine");
        this.agent = Objects.requireNonNull(agent, "agent");
        this.forgetMode = Objects.requireNonNull(forgetMode, "forgetMode");
        this.sessions = Objects.requireNonNull(sessions, "sessions");
        new Caller("tenant", "user", agent); // validates the agent id
    }

    private SessionRef session(Object memoryId) {
        return SessionResolver.resolve(sessions, memoryId);
    }

    @Tool(name = "remember", value = {
            "Remembers a lasting fact or preference about the user, kept across sessions.",
            "If the user stated it, copy their exact words into userQuote; otherwise it is kept only as",
            "your unconfirmed guess. Preferences need the user's words."})
    public String remember(@ToolMemoryId Object memoryId,
                           @P("dotted key naming the value, e.g. answer.language") String key,
                           @P("the value, short, in the user's words") String value,
                           @P("preference or fact") String kind,
                           @P(value = "the user's exact words stating it, copied from their message", required = false)
                           @Nullable String userQuote) {
        return traced("remember", memoryId, key, value, span -> remember(span, memoryId, key, value, kind, userQuote));
    }

    private String remember(MemorySpans.Span span, Object memoryId, String key, String value, String kind,
                            @Nullable String userQuote) {
        SessionRef ref = session(memoryId);
        Caller caller = ref.caller(agent);
        boolean preference;
        if ("preference".equals(kind)) {
            preference = true;
        } else if ("fact".equals(kind)) {
            preference = false;
        } else {
            return "Not saved: kind must be preference or fact: " + OperationParser.quote(String.valueOf(kind)) + ".";
        }
        return write(span, caller, ref, caller.persistent(), "persistent memory", key, value,
                preference ? Kind.PREFERENCE : Kind.OBSERVATION, preference ? "preference" : "fact", userQuote);
    }

    @Tool(name = "updateState", value = {
            "Sets a variable of the current conversation: in the active task (default when one is active)",
            "or in the session. If the user stated it, copy their exact words into userQuote."})
    public String updateState(@ToolMemoryId Object memoryId,
                              @P("dotted key, e.g. order.current or exchange.color") String key,
                              @P("the value") String value,
                              @P(value = "task or session; default: the active task, else the session", required = false)
                              @Nullable String scope,
                              @P(value = "fact (default) or decision", required = false) @Nullable String kind,
                              @P(value = "the user's exact words stating it, copied from their message", required = false)
                              @Nullable String userQuote) {
        return traced("updateState", memoryId, key, value,
                span -> updateState(span, memoryId, key, value, scope, kind, userQuote));
    }

    private String updateState(MemorySpans.Span span, Object memoryId, String key, String value, @Nullable String scope,
                               @Nullable String kind, @Nullable String userQuote) {
        SessionRef ref = session(memoryId);
        Caller caller = ref.caller(agent);
        Kind k;
        if (kind == null || kind.isBlank() || "fact".equals(kind)) {
            k = Kind.TASK_FACT;
        } else if ("decision".equals(kind)) {
            k = Kind.DECISION;
        } else {
            return "Not saved: kind must be fact or decision: " + OperationParser.quote(kind) + ".";
        }
        String where = scope == null || scope.isBlank() ? null : scope;
        Scope target;
        String place;
        if (where != null && !where.equals("task") && !where.equals("session")) {
            return "Not saved: scope must be task or session: " + OperationParser.quote(where) + ".";
        }
        Optional<TaskInfo> active = engine.tasks().active(caller, ref.session());
        if ("task".equals(where) && active.isEmpty()) {
            return "Not saved: session " + ref.session() + " has no active task; start one or use scope session.";
        }
        if (!"session".equals(where) && active.isPresent()) {
            target = caller.task(active.get());
            place = "task " + active.get().task();
        } else {
            target = caller.session(ref.session());
            place = "session " + ref.session();
        }
        return write(span, caller, ref, target, place, key, value, k, k == Kind.DECISION ? "decision" : "fact", userQuote);
    }

    @Tool(name = "forget", value = {
            "Forgets a remembered value because the user asked to. Copy the user's exact words asking",
            "to forget into userQuote; without them nothing is forgotten."})
    public String forget(@ToolMemoryId Object memoryId,
                         @P("the dotted key to forget") String key,
                         @P("persistent, session or task (the active task)") String scope,
                         @P(value = "the user's exact words asking to forget it", required = false)
                         @Nullable String userQuote) {
        try (MemorySpans.Span span = spans.start("delete_memory")) {
            try {
                span.set(TOOL, "forget").set(FORGET_TARGET, "key").set(KEY, key)
                        .set(FORGET_MODE, EnumText.label(forgetMode));
                String answer = forget(span, memoryId, key, scope, userQuote);
                span.set(OUTCOME, answer.startsWith("Forgot ") ? "forgotten" : "rejected");
                return answer;
            } catch (RuntimeException | Error e) {
                span.failed(e);
                throw e;
            }
        }
    }

    private String forget(MemorySpans.Span span, Object memoryId, String key, String scope, @Nullable String userQuote) {
        SessionRef ref = session(memoryId);
        who(span, ref);
        Caller caller = ref.caller(agent);
        MemoryKey k;
        try {
            k = MemoryKey.of(key);
        } catch (IllegalArgumentException e) {
            return "Nothing forgotten: " + e.getMessage() + ".";
        }
        Scope target;
        switch (String.valueOf(scope)) {
            case "persistent" -> target = caller.persistent();
            case "session" -> target = caller.session(ref.session());
            case "task" -> {
                Optional<TaskInfo> active = engine.tasks().active(caller, ref.session());
                if (active.isEmpty()) {
                    return "Nothing forgotten: session " + ref.session() + " has no active task.";
                }
                target = caller.task(active.get());
            }
            default -> {
                return "Nothing forgotten: scope must be persistent, session or task: "
                        + OperationParser.quote(String.valueOf(scope)) + ".";
            }
        }
        Proposal.Builder b = Proposal.invalidate(target, k).reason("forget requested through the forget tool");
        if (userQuote == null || userQuote.isBlank()) {
            b.source(Source.MODEL);
        } else {
            Optional<StoredMessage> said = Citations.findUserMessage(engine.messages().window(caller, ref.session()), userQuote);
            if (said.isEmpty()) {
                return "Nothing forgotten: the quote was not found in the user's messages of this session; "
                        + "copy the user's exact words.";
            }
            b.source(Source.USER, Citations.messageRef(ref.session(), said.get().index())).tag(CITED_TAG);
        }
        Optional<String> violation = b.build().ruleViolation();
        if (violation.isPresent()) {
            return "Nothing forgotten: " + violation.get()
                    + ". Only the user can have memory forgotten: quote their request in userQuote.";
        }
        KeyState state = engine.keyState(caller, target, k, ReadOptions.withArchived());
        if (state.isEmpty()) {
            return "Nothing forgotten: there is no value at " + k + " in " + describe(target) + ".";
        }
        ForgetReceipt receipt = engine.forget(caller, ForgetTarget.key(target, k), forgetMode);
        span.set(LAYER, EnumText.label(target.layer())).set("gen_ai.memory.record.count", receipt.recordIds().size());
        receipt.derived().forEach((name, n) -> span.set("agentmemory.forget.derived." + name, n));
        StringBuilder text = new StringBuilder("Forgot ").append(k).append(" in ").append(describe(target))
                .append(": ").append(receipt.recordIds().size()).append(" version(s)");
        receipt.derived().forEach((name, n) -> {
            if (n > 0) {
                text.append(", ").append(n).append(" derived item(s) in ").append(name);
            }
        });
        return text.append('.').toString();
    }

    @Tool(name = "startTask", value = {
            "Starts a task in this conversation (e.g. one order's exchange); the active task, if any,",
            "is suspended with its state intact."})
    public String startTask(@ToolMemoryId Object memoryId,
                            @P("task id: letters, digits, . _ : @ -") String task,
                            @P(value = "a short title", required = false) @Nullable String title) {
        SessionRef ref = session(memoryId);
        Caller caller = ref.caller(agent);
        try {
            Optional<TaskInfo> before = engine.tasks().active(caller, ref.session());
            engine.tasks().start(caller, ref.session(), task, title == null || title.isBlank() ? null : title);
            String suspended = before.map(t -> "; suspended task " + t.task()).orElse("");
            return "Started task " + task + suspended + ".";
        } catch (IllegalArgumentException | IllegalStateException e) {
            return "Task not started: " + e.getMessage() + ".";
        }
    }

    /** Suspends {@code task} (null: the active one) as the {@code suspendTask} tool does, finding where it is held. */
    public String suspendTask(Object memoryId, @Nullable String task) {
        return suspendTask(memoryId, task, null);
    }

    @Tool(name = "suspendTask", value = {
            "Suspends a task (default: the active one); its state stays intact until resumed. The task may",
            "be one of this user's tasks held by another conversation (the memory block lists them)."})
    public String suspendTask(@ToolMemoryId Object memoryId,
                              @P(value = "task id; default: the active task", required = false) @Nullable String task,
                              @P(value = "the session the task was started in, when several open tasks share the id",
                                      required = false) @Nullable String startedIn) {
        return changeTask(memoryId, task, startedIn, "suspended", "suspend");
    }

    /** Resumes {@code task} as the {@code resumeTask} tool does, finding the session it was started in. */
    public String resumeTask(Object memoryId, String task) {
        return resumeTask(memoryId, task, null);
    }

    @Tool(name = "resumeTask", value = {
            "Resumes a suspended task with its state as it was; the active task is suspended. The task may",
            "come from an earlier conversation of this user (the memory block lists them): it then moves here."})
    public String resumeTask(@ToolMemoryId Object memoryId, @P("task id") String task,
                             @P(value = "the session the task was started in, when several open tasks share the id",
                                     required = false) @Nullable String startedIn) {
        SessionRef ref = session(memoryId);
        Caller caller = ref.caller(agent);
        if (task == null || task.isBlank()) {
            return "Cannot resume: name the task.";
        }
        try {
            Optional<TaskInfo> before = engine.tasks().list(caller, ref.session()).stream()
                    .filter(t -> t.task().equals(task)).findFirst();
            TaskInfo t = engine.tasks().resume(caller, ref.session(),
                    startedIn == null || startedIn.isBlank() ? null : startedIn, task);
            return "Task " + task + " resumed" + (before.isEmpty() ? " (started in session " + t.session()
                    + "; it moved to this session, which holds it from now on)" : "") + ".";
        } catch (IllegalArgumentException | IllegalStateException e) {
            return "Cannot resume: " + e.getMessage() + ".";
        }
    }

    /** Ends {@code task} (null: the active one) as the {@code endTask} tool does, finding where it is held. */
    public String endTask(Object memoryId, @Nullable String task) {
        return endTask(memoryId, task, null);
    }

    @Tool(name = "endTask", value = {
            "Ends a task (default: the active one); its state is archived. The task may be one of this",
            "user's tasks held by another conversation (the memory block lists them)."})
    public String endTask(@ToolMemoryId Object memoryId,
                          @P(value = "task id; default: the active task", required = false) @Nullable String task,
                          @P(value = "the session the task was started in, when several open tasks share the id",
                                  required = false) @Nullable String startedIn) {
        return changeTask(memoryId, task, startedIn, "ended", "end");
    }

    /**
     * Suspends or ends a task of the user, held by this session or another one of the user's; the
     * answer says which session held it when it was not this one.
     */
    private String changeTask(Object memoryId, @Nullable String task, @Nullable String startedIn, String done,
                              String verb) {
        SessionRef ref = session(memoryId);
        Caller caller = ref.caller(agent);
        String id = task;
        if (id == null || id.isBlank()) {
            Optional<TaskInfo> active = engine.tasks().active(caller, ref.session());
            if (active.isEmpty()) {
                return "Cannot " + verb + ": session " + ref.session() + " has no active task; name the task.";
            }
            id = active.get().task();
        }
        String from = startedIn == null || startedIn.isBlank() ? null : startedIn;
        try {
            TaskInfo t = switch (verb) {
                case "suspend" -> engine.tasks().suspend(caller, ref.session(), from, id);
                default -> engine.tasks().end(caller, ref.session(), from, id);
            };
            String where = t.heldBy().equals(ref.session()) ? ""
                    : " (it was held by conversation " + t.heldBy() + ")";
            return "Task " + id + " " + done + where + (verb.equals("end") ? "; its state is archived." : ".");
        } catch (IllegalArgumentException | IllegalStateException e) {
            return "Cannot " + verb + ": " + e.getMessage() + ".";
        }
    }

    private String write(MemorySpans.Span span, Caller caller, SessionRef ref, Scope scope, String place, String key, String value, Kind kind,
                         String kindName, @Nullable String userQuote) {
        MemoryKey k;
        MemoryValue v;
        try {
            k = MemoryKey.of(key);
            v = MemoryValue.of(Objects.requireNonNull(value, "value"));
        } catch (IllegalArgumentException | NullPointerException e) {
            return "Not saved: " + e.getMessage() + ".";
        }
        k = keyInUse(caller, scope, k);
        span.set(KEY, k.toString()).set(LAYER, EnumText.label(scope.layer()));
        boolean cited = userQuote != null && !userQuote.isBlank();
        Proposal.Builder b;
        if (cited && userQuote != null) { // cited says userQuote != null; the checker wants it here
            List<StoredMessage> window = engine.messages().window(caller, ref.session());
            Optional<StoredMessage> said = Citations.findUserMessage(window, userQuote);
            if (said.isEmpty() && window.stream().noneMatch(m -> Citations.USER_TYPE.equals(m.type()))) {
                return NO_MESSAGES_TO_QUOTE;
            }
            if (said.isEmpty()) {
                return "Not saved: the quote was not found in the user's messages of this session; copy the user's "
                        + "exact words, or leave userQuote out to keep an unconfirmed candidate.";
            }
            List<String> missing = Citations.wordsMissingFrom(value, userQuote);
            if (!missing.isEmpty()) {
                return "Not saved: the value's words " + missing + " are not in the quote; store the user's own words.";
            }
            QuoteRule.Verdict verdict = QuoteRule.check(k, kind, value, userQuote);
            if (!verdict.supported()) {
                b = unconfirmed(scope, k, v, kind).tag(UNSUPPORTED_QUOTE_TAG);
                Outcome o;
                try {
                    o = engine.propose(caller, b.build());
                } catch (IllegalArgumentException e) {
                    return "Not saved: " + e.getMessage() + ".";
                }
                String meaning = verdict.attribute().map(QuoteRule.Attribute::meaning).orElse("it");
                return describe(o, place, kindName, false, "; not recorded as stated by the user because "
                        + verdict.reason() + "; to record it, quote words where the user states " + meaning);
            }
            b = Proposal.set(scope, k, v).kind(kind)
                    .source(Source.USER, Citations.messageRef(ref.session(), said.get().index())).tag(CITED_TAG);
        } else {
            b = unconfirmed(scope, k, v, kind);
        }
        Outcome o;
        try {
            o = engine.propose(caller, b.build());
        } catch (IllegalArgumentException e) {
            return "Not saved: " + e.getMessage() + ".";
        }
        MemoryRecord written = o.record();
        if (written != null) {
            span.set("gen_ai.memory.record.id", written.id());
        }
        boolean downgraded = !cited && o.proposal().kind() != kind;
        return describe(o, place, kindName, cited, downgraded ? "; quote the user's words to record a " + kindName : "");
    }

    /**
     * The key a persistent write of an attribute the plain-words rules read goes to: the
     * attribute's own key when the rules already hold its value there ({@code user.language} for a
     * model's {@code preference.language}), so that one attribute keeps one key whichever wrote
     * first; otherwise {@code k}.
     */
    private MemoryKey keyInUse(Caller caller, Scope scope, MemoryKey k) {
        if (scope.layer() != Layer.PERSISTENT) {
            return k;
        }
        return Attribute.of(k).map(Attribute::key).filter(own -> !own.equals(k) && heldByRules(caller, scope, own))
                .orElse(k);
    }

    /**
     * Whether the rules' key stands at a value they wrote: current, or applying but past its
     * re-verify deadline (still the attribute's key; a restatement belongs there).
     */
    private boolean heldByRules(Caller caller, Scope scope, MemoryKey own) {
        KeyState state = engine.keyState(caller, scope, own, ReadOptions.DEFAULT);
        MemoryRecord standing = state.current() != null ? state.current() : state.needsReverification();
        return standing != null && standing.tags().contains(PlainWords.TAG);
    }

    /** The model's own write: untrusted; a preference or decision kept as an unconfirmed inference. */
    private static Proposal.Builder unconfirmed(Scope scope, MemoryKey k, MemoryValue v, Kind asked) {
        Kind kept = asked == Kind.PREFERENCE || asked == Kind.DECISION || asked == Kind.OBSERVATION
                ? Kind.INFERENCE : asked;
        Proposal.Builder b = Proposal.set(scope, k, v).kind(kept).source(Source.MODEL);
        if (asked == Kind.PREFERENCE || asked == Kind.DECISION) {
            b.tag("unconfirmed-" + EnumText.label(asked));
        }
        return b;
    }

    private static final String TOOL = "agentmemory.tool";
    private static final String KEY = "agentmemory.key";
    private static final String LAYER = "agentmemory.layer";
    private static final String OUTCOME = "agentmemory.write.outcome";
    private static final String FORGET_TARGET = "agentmemory.forget.target";
    private static final String FORGET_MODE = "agentmemory.forget.mode";

    /** One tool write in an {@code update_memory} span, its outcome read from the answer's documented opening. */
    private String traced(String tool, Object memoryId, String key, String value,
                          java.util.function.Function<MemorySpans.Span, String> write) {
        MemorySpans current = spans;
        try (MemorySpans.Span span = current.start("update_memory")) {
            try {
                span.set(TOOL, tool).set(KEY, key);
                who(span, SessionResolver.resolve(sessions, memoryId));
                if (current.capturesContent()) {
                    span.set("gen_ai.memory.records", "[{\"id\":" + json(key) + ",\"content\":" + json(value) + "}]");
                }
                String answer = write.apply(span);
                span.set(OUTCOME, answer.startsWith("Saved ") ? "applied"
                        : answer.startsWith("Recorded ") ? "conflict" : "rejected");
                return answer;
            } catch (RuntimeException | Error e) {
                span.failed(e);
                throw e;
            }
        }
    }

    private void who(MemorySpans.Span span, SessionRef ref) {
        span.set("gen_ai.memory.store.id", agent).set("gen_ai.conversation.id", ref.session())
                .set("agentmemory.user.hash", MemorySpans.userHash(ref.tenant(), ref.user()));
    }

    /** {@code text} as a JSON string literal. */
    private static String json(@Nullable String text) {
        if (text == null) {
            return "null";
        }
        StringBuilder b = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format(java.util.Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }

    private static String describe(Outcome o, String place, String kindName, boolean cited, String note) {
        Proposal p = o.proposal();
        String what = p.key() + " = " + OperationParser.quote(Objects.requireNonNull(p.value()).text());
        return switch (o.result()) {
            case REJECTED -> "Not saved: " + o.reason() + "."
                    + (cited ? "" : " Without the user's quoted words a write is only your unconfirmed guess.");
            case CONFLICT -> "Recorded " + what + " in " + place
                    + " only as a conflict candidate beside the current value: " + o.reason() + ".";
            case APPLIED -> {
                MemoryRecord r = Objects.requireNonNull(o.record());
                String as = cited
                        ? "as a " + kindName + " stated by the user"
                        : "as your unconfirmed " + EnumText.words(r.kind())
                        + " (a candidate until the user confirms it"
                        + note + ")";
                yield "Saved " + what + " in " + place + " " + as + ", version " + r.version() + ".";
            }
        };
    }

    private static String describe(Scope scope) {
        return switch (scope.layer()) {
            case PERSISTENT -> "persistent memory";
            case SESSION -> "session " + scope.session();
            case TASK -> "task " + scope.task();
        };
    }
}

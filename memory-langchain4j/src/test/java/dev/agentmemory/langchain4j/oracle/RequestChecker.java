package dev.agentmemory.langchain4j.oracle;

import dev.agentmemory.core.TaskInfo;
import dev.agentmemory.langchain4j.framing.FramedItem;
import dev.agentmemory.langchain4j.framing.MemoryFrameParser;
import dev.agentmemory.langchain4j.framing.ParsedFrame;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.Content;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.request.ChatRequest;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Checks one whole {@link ChatRequest} against the engine's state at the moment it is sent.
 * Stateless; every finding is a {@link Violation} naming the invariant, the part of the request
 * and the offending text.
 */
final class RequestChecker {

    /** Words by which a non-current item may say that what it states is no longer current. */
    private static final Pattern STALE_MARK = Pattern.compile(
            "supersed|replaced|archiv|expired|reverif|conflict|ended|suspended|outdated|stale|obsolete|no longer|historical",
            Pattern.CASE_INSENSITIVE);

    /** What the checker knows about the request besides the request itself. */
    record Context(int step, int round, int user, boolean summaryRequest, EngineView.Snapshot engine,
                   EngineView.Snapshot turnStart, Set<String> turnNonces, int storedHistory, int producedMessages) {
    }

    /** One piece of text of the request and where it sits. */
    private record Part(String where, String text) {
    }

    List<Violation> check(ChatRequest request, Context ctx) {
        List<Violation> out = new ArrayList<>();
        List<ChatMessage> messages = request.messages();
        int lastUser = -1;
        for (int i = 0; i < messages.size(); i++) {
            if (messages.get(i) instanceof UserMessage) {
                lastUser = i;
            }
        }
        List<Part> parts = new ArrayList<>();
        int framesElsewhere = 0;
        List<ParsedFrame> currentFrames = new ArrayList<>();
        for (int i = 0; i < messages.size(); i++) {
            ChatMessage m = messages.get(i);
            String role = role(m) + "#" + i;
            for (Part p : texts(m, role)) {
                List<ParsedFrame> frames = MemoryFrameParser.parse(p.text());
                if (frames.isEmpty()) {
                    parts.add(p);
                    continue;
                }
                parts.add(new Part(p.where() + " (text outside its framed blocks)", MemoryFrameParser.stripFrames(p.text())));
                for (ParsedFrame f : frames) {
                    for (FramedItem item : f.items()) {
                        parts.add(new Part(p.where() + " framed item " + item.id() + " [" + item.extra().get("layer")
                                + ", " + item.status() + "]", item.text()));
                    }
                }
                if (i == lastUser) {
                    currentFrames.addAll(frames);
                } else if (i < lastUser) {
                    // a block in an earlier turn's message was resent (the current turn's own replies are the model's)
                    framesElsewhere += frames.size();
                    if (!ctx.summaryRequest()) {
                        out.add(v(ctx, Invariant.FRAME_PLACEMENT, p.where(), frames.size()
                                + " framed block(s) outside the current user message (nonce " + frames.get(0).nonce()
                                + ", items " + frames.get(0).items().stream().map(FramedItem::text).toList() + ")"));
                    }
                }
            }
        }
        checkValues(parts, ctx, out);
        if (ctx.summaryRequest()) {
            return out;
        }
        if (currentFrames.size() > 1) {
            out.add(v(ctx, Invariant.FRAME_PLACEMENT, "user#" + lastUser,
                    currentFrames.size() + " framed blocks in the current user message"));
        }
        if (currentFrames.isEmpty() && framesElsewhere == 0 && ctx.round() == 0 && ctx.engine().hasPersistent()) {
            out.add(v(ctx, Invariant.FRAME_MISSING, "user#" + lastUser, "no framed block although current values "
                    + ctx.engine().valid() + " are in memory"));
        }
        for (ParsedFrame f : currentFrames) {
            // a block made at the start of the turn is judged by the state it was made from; tool calls of
            // the turn may have changed the state since, and the model sees their results
            EngineView.Snapshot labels = ctx.turnNonces().contains(f.nonce()) ? ctx.turnStart() : ctx.engine();
            for (FramedItem item : f.items()) {
                checkItem(item, "user#" + lastUser + " framed item " + item.id(), ctx, labels, out);
            }
        }
        checkPairing(messages, ctx, out);
        if (ctx.storedHistory() > 2 * ctx.producedMessages() + 10) {
            out.add(v(ctx, Invariant.HISTORY_GROWTH, "engine message history", ctx.storedHistory()
                    + " messages stored in this session for " + ctx.producedMessages() + " produced by its turns"));
        }
        return out;
    }

    private static void checkValues(List<Part> parts, Context ctx, List<Violation> out) {
        Set<String> other = Vocabulary.allWords(1 - ctx.user());
        Map<String, String> forgotten = ctx.engine().forgotten();
        for (Part p : parts) {
            for (String w : Vocabulary.wordsIn(p.text(), forgotten.keySet())) {
                out.add(v(ctx, Invariant.FORGOTTEN, p.where(), "forgotten value '" + w + "' (" + forgotten.get(w)
                        + "): «" + Vocabulary.excerpt(p.text(), w) + "»"));
            }
            for (String w : Vocabulary.wordsIn(p.text(), other)) {
                out.add(v(ctx, Invariant.OTHER_USER, p.where(), "value '" + w + "' of user "
                        + Vocabulary.USERS[1 - ctx.user()] + ": «" + Vocabulary.excerpt(p.text(), w) + "»"));
            }
        }
    }

    private static void checkItem(FramedItem item, String where, Context ctx, EngineView.Snapshot e,
                                  List<Violation> out) {
        List<String> words = Vocabulary.valuesIn(item.text(), ctx.user());
        String attributes = attributes(item);
        for (String w : words) {
            if (e.forgotten().containsKey(w) || e.valid().contains(w) || !e.stale().containsKey(w)) {
                continue;
            }
            if ("current".equals(item.status())) {
                out.add(v(ctx, Invariant.STALE_AS_CURRENT, where, "'" + w + "' is " + e.stale().get(w)
                        + " but the item is labelled current: «" + Vocabulary.excerpt(item.text(), w) + "» " + attributes));
            } else if (!STALE_MARK.matcher(attributes).find()) {
                out.add(v(ctx, Invariant.STALE_UNMARKED, where, "'" + w + "' is " + e.stale().get(w)
                        + " but the item (status " + item.status() + ") does not say so: «"
                        + Vocabulary.excerpt(item.text(), w) + "» " + attributes));
            }
        }
        boolean taskItem = "task-state".equals(item.extra().get("layer"))
                || item.id().startsWith(Vocabulary.COLOR + "@") && words.stream().anyMatch(e.taskOf()::containsKey);
        if (taskItem) {
            String task = words.stream().map(e.taskOf()::get).filter(t -> t != null).findFirst().orElse(null);
            Set<String> named = new LinkedHashSet<>(Vocabulary.wordsIn(attributes, e.tasks().keySet()));
            if (named.isEmpty()) {
                out.add(v(ctx, Invariant.TASK_ITEM_UNNAMED, where, "task item does not name its task"
                        + (task != null ? " " + task : "") + ": " + attributes));
            } else {
                for (String t : named) {
                    TaskInfo.Status s = e.tasks().get(t);
                    if (!attributes.toLowerCase(Locale.ROOT).contains(EngineView.label(s))) {
                        out.add(v(ctx, Invariant.TASK_ITEM_UNNAMED, where, "task item names task " + t
                                + " but not its status " + EngineView.label(s) + ": " + attributes));
                    }
                }
            }
        }
    }

    /** The item's labels (everything but its text), as the model sees them. */
    private static String attributes(FramedItem item) {
        return "{id=" + item.id() + ", kind=" + item.kind() + ", source=" + item.source() + ", status=" + item.status()
                + ", " + item.extra() + "}";
    }

    private static void checkPairing(List<ChatMessage> messages, Context ctx, List<Violation> out) {
        Set<String> open = new LinkedHashSet<>();
        Set<String> answerable = new HashSet<>();
        int openedAt = -1;
        for (int i = 0; i < messages.size(); i++) {
            ChatMessage m = messages.get(i);
            if (m instanceof ToolExecutionResultMessage r) {
                if (!answerable.contains(r.id())) {
                    out.add(v(ctx, Invariant.TOOL_PAIRING, "tool-result#" + i, "result for id " + r.id() + " ("
                            + r.toolName() + ") answers no tool call of the preceding assistant message"));
                }
                open.remove(r.id());
                answerable.remove(r.id());
                continue;
            }
            if (!open.isEmpty()) {
                out.add(v(ctx, Invariant.TOOL_PAIRING, "ai#" + openedAt, "tool call(s) " + open
                        + " not answered before " + role(m) + "#" + i));
            }
            open.clear();
            answerable.clear();
            if (m instanceof AiMessage ai && ai.hasToolExecutionRequests()) {
                for (ToolExecutionRequest t : ai.toolExecutionRequests()) {
                    open.add(t.id());
                    answerable.add(t.id());
                }
                openedAt = i;
            }
        }
        if (!open.isEmpty()) {
            out.add(v(ctx, Invariant.TOOL_PAIRING, "ai#" + openedAt, "tool call(s) " + open
                    + " not answered at the end of the request"));
        }
    }

    private static List<Part> texts(ChatMessage m, String role) {
        List<Part> out = new ArrayList<>();
        if (m instanceof SystemMessage s) {
            out.add(new Part(role, s.text()));
        } else if (m instanceof UserMessage u) {
            for (Content c : u.contents()) {
                if (c instanceof TextContent t) {
                    out.add(new Part(role, t.text()));
                }
            }
        } else if (m instanceof AiMessage ai) {
            if (ai.text() != null) {
                out.add(new Part(role + " text", ai.text()));
            }
            if (ai.hasToolExecutionRequests()) {
                for (ToolExecutionRequest t : ai.toolExecutionRequests()) {
                    out.add(new Part(role + " call " + t.name() + " arguments", String.valueOf(t.arguments())));
                }
            }
        } else if (m instanceof ToolExecutionResultMessage r) {
            out.add(new Part(role + " (" + r.toolName() + ")", String.valueOf(r.text())));
        } else {
            out.add(new Part(role, String.valueOf(m)));
        }
        return out;
    }

    private static String role(ChatMessage m) {
        return switch (m.type()) {
            case SYSTEM -> "system";
            case USER -> "user";
            case AI -> "ai";
            case TOOL_EXECUTION_RESULT -> "tool-result";
            default -> m.type().name().toLowerCase(Locale.ROOT);
        };
    }

    private static Violation v(Context ctx, Invariant inv, String where, String detail) {
        return new Violation(inv, ctx.step(), ctx.round(), where, detail);
    }
}

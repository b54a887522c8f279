package dev.agentmemory.inspector;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.event.Change;
import dev.agentmemory.core.event.LoggedEvent;
import dev.agentmemory.core.event.StoredMessage;
import dev.agentmemory.langchain4j.Recall;
import dev.agentmemory.langchain4j.SessionRef;
import dev.langchain4j.rag.content.Content;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A user's conversations and, for one, each recent turn's block as the model received it
 * ({@link dev.agentmemory.langchain4j.AgentMemory#recentRecalls}) item by item (every
 * {@link dev.agentmemory.langchain4j.MemoryContent} field), what the budget
 * cut, and the conversation's messages (the window and the history).
 */
final class Turns {

    private final Views views;
    private final MemoryEngine engine;

    Turns(Views views) {
        this.views = views;
        this.engine = views.memory().engine();
    }

    /** The user's conversations (from the log), each with its message count and the turns kept in memory. */
    Map<String, Object> sessions(Caller caller) {
        Map<String, Integer> messages = new TreeMap<>();
        for (LoggedEvent e : engine.admin().log(caller)) {
            String s = EventLog.sessionOf(e.change());
            if (s != null) {
                int added = e.change() instanceof Change.MessagesAppended m ? m.messages().size() : 0;
                messages.merge(s, added, Integer::sum);
            }
        }
        List<Map<String, Object>> out = new ArrayList<>();
        messages.forEach((s, n) -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("session", s);
            m.put("messages", n);
            m.put("turns", views.memory().recentRecalls(new SessionRef(caller.tenant(), caller.user(), s)).size());
            out.add(m);
        });
        views.logRead(caller, "sessions", Map.of());
        return Map.of("sessions", out);
    }

    /** The turns kept for one conversation, newest first, beside its window and history. */
    Map<String, Object> turns(Caller caller, String session) {
        SessionRef ref;
        try {
            ref = new SessionRef(caller.tenant(), caller.user(), session);
        } catch (IllegalArgumentException e) {
            throw new Http.BadRequest(String.valueOf(e.getMessage()));
        }
        List<Recall> recalls = views.memory().recentRecalls(ref);
        List<Map<String, Object>> turns = new ArrayList<>();
        for (int i = recalls.size() - 1; i >= 0; i--) {
            turns.add(turn(recalls.get(i), i + 1));
        }
        List<StoredMessage> window = engine.messages().window(caller, session);
        Set<Long> inWindow = new HashSet<>();
        window.forEach(m -> inWindow.add(m.index()));
        List<Map<String, Object>> history = new ArrayList<>();
        engine.messages().history(caller, session).values().forEach(m -> history.add(message(m, inWindow)));
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("session", session);
        out.put("turns", turns);
        out.put("window", window.stream().map(m -> message(m, inWindow)).toList());
        out.put("history", history);
        views.logRead(caller, "turns", Map.of("session", session));
        return out;
    }

    private static Map<String, Object> turn(Recall r, int number) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("turn", number);
        m.put("at", Items.time(r.at()));
        m.put("query", r.query());
        m.put("sent", r.sent());
        m.put("block", r.block());
        m.put("blockChars", r.block().length());
        m.put("blockTokens", r.blockTokens());
        m.put("sentChars", r.sent().length());
        m.put("used", r.used().stream().map(c -> item(c, null)).toList());
        List<Map<String, Object>> cut = new ArrayList<>();
        for (int i = 0; i < r.cut().size(); i++) {
            cut.add(item(r.cut().get(i), r.cutReasons().get(i)));
        }
        m.put("cut", cut);
        return m;
    }

    /** One item of a block: its text and every {@link MemoryContent} field (layer, status, score, why, ...). */
    private static Map<String, Object> item(Content c, @org.jspecify.annotations.Nullable String cutReason) {
        Map<String, Object> m = new LinkedHashMap<>();
        String text = c.textSegment().text();
        m.put("text", text);
        m.put("chars", text.length());
        Map<String, Object> meta = new TreeMap<>();
        c.textSegment().metadata().toMap().forEach((k, v) -> {
            if (k.startsWith("memory.")) {
                meta.put(k.substring("memory.".length()), String.valueOf(v));
            }
        });
        if (!meta.containsKey("layer")) {
            meta.put("layer", "document");
        }
        m.put("meta", meta);
        if (cutReason != null) {
            m.put("cutReason", cutReason);
        }
        return m;
    }

    private static Map<String, Object> message(StoredMessage m, Set<Long> inWindow) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("index", m.index());
        out.put("type", m.type());
        out.put("text", m.forgotten() ? "" : java.util.Objects.toString(m.text(), ""));
        out.put("forgotten", m.forgotten());
        out.put("inWindow", inWindow.contains(m.index()));
        return out;
    }
}

package dev.agentmemory.langchain4j;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.IntPredicate;

/**
 * The tool-call pairing rule a list of chat messages must follow to be sent to a model: an AI
 * message with tool requests is followed by the results that answer all of them, and every result
 * answers a request right before it. Pure functions over a list; no store, no engine.
 */
final class ToolCallPairing {

    private ToolCallPairing() {
    }

    /**
     * Positions of messages that break tool-call pairing: an AI message with tool requests not all
     * answered by the results right after it, or followed by a result that answers none of its
     * requests (with those results), and results that follow no request.
     */
    static List<Integer> danglingToolMessages(List<ChatMessage> messages) {
        List<Integer> out = new ArrayList<>();
        int p = 0;
        while (p < messages.size()) {
            ChatMessage m = messages.get(p);
            if (m instanceof AiMessage ai && ai.hasToolExecutionRequests()) {
                int q = p + 1;
                List<ToolExecutionResultMessage> results = new ArrayList<>();
                while (q < messages.size() && messages.get(q) instanceof ToolExecutionResultMessage r) {
                    results.add(r);
                    q++;
                }
                if (!complete(ai.toolExecutionRequests(), results)) {
                    for (int x = p; x < q; x++) {
                        out.add(x);
                    }
                }
                p = q;
            } else {
                if (m instanceof ToolExecutionResultMessage) {
                    out.add(p);
                }
                p++;
            }
        }
        return out;
    }

    /**
     * Positions a read leaves out: those {@link #danglingToolMessages} names, except a call at the
     * end of the list that is still waiting for its results ({@link #pendingCall}) and the results
     * of it that came, when {@code waiting} says so of the position of that call. Anything that
     * follows a call other than its own results makes it an orphan for good.
     */
    static List<Integer> leftOut(List<ChatMessage> messages, IntPredicate waiting) {
        List<Integer> dangling = danglingToolMessages(messages);
        int call = pendingCall(messages, dangling);
        if (call < 0 || !waiting.test(call)) {
            return dangling;
        }
        List<Integer> out = new ArrayList<>(dangling.size());
        for (int p : dangling) {
            if (p < call) {
                out.add(p);
            }
        }
        return out;
    }

    /** A new list of {@code messages} without the ones at {@code positions}. */
    static List<ChatMessage> without(List<ChatMessage> messages, List<Integer> positions) {
        Set<Integer> hidden = new HashSet<>(positions);
        List<ChatMessage> out = new ArrayList<>(messages.size() - hidden.size());
        for (int p = 0; p < messages.size(); p++) {
            if (!hidden.contains(p)) {
                out.add(messages.get(p));
            }
        }
        return out;
    }

    /**
     * Where the list ends with an AI message whose calls are still being answered (only results
     * of its own calls after it): the position of that message, else -1. {@code dangling} is
     * {@link #danglingToolMessages} of the list.
     */
    static int pendingCall(List<ChatMessage> current, List<Integer> dangling) {
        if (dangling.isEmpty() || dangling.get(dangling.size() - 1) != current.size() - 1) {
            return -1;
        }
        int p = current.size() - 1;
        while (p >= 0 && current.get(p) instanceof ToolExecutionResultMessage) {
            p--;
        }
        if (p < 0 || !(current.get(p) instanceof AiMessage ai) || !ai.hasToolExecutionRequests()
                || !dangling.contains(p)) {
            return -1;
        }
        Set<String> ids = requestIds(ai);
        for (int q = p + 1; q < current.size(); q++) {
            if (!ids.contains(((ToolExecutionResultMessage) current.get(q)).id())) {
                return -1;
            }
        }
        return p;
    }

    private static Set<String> requestIds(AiMessage ai) {
        Set<String> ids = new HashSet<>();
        for (ToolExecutionRequest r : ai.toolExecutionRequests()) {
            ids.add(r.id());
        }
        return ids;
    }

    private static boolean complete(List<ToolExecutionRequest> requests, List<ToolExecutionResultMessage> results) {
        if (results.size() < requests.size()) {
            return false;
        }
        Set<String> ids = new HashSet<>();
        for (ToolExecutionRequest r : requests) {
            if (r.id() != null) {
                ids.add(r.id());
            }
        }
        Set<String> answered = new HashSet<>();
        for (ToolExecutionResultMessage r : results) {
            if (r.id() != null) {
                if (!ids.isEmpty() && !ids.contains(r.id())) {
                    return false;
                }
                answered.add(r.id());
            }
        }
        return answered.containsAll(ids);
    }
}

package dev.agentmemory.langchain4j;

import dev.agentmemory.core.engine.MemoryEngine.Messages.WindowChange;
import dev.agentmemory.core.event.StoredMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ChatMessageSerializer;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import java.util.function.IntPredicate;
import java.util.function.UnaryOperator;

/**
 * The change that turns a session's stored window into the list LangChain4j hands to
 * {@code updateMessages}: messages that left the list are evicted (they stay in the history), new
 * ones are appended with an order that places them where the list has them. Nothing already
 * stored is rewritten. A message is matched to the stored one by identity (the instance the store
 * handed out) or by its stored serialized form, never by interpreting its content.
 *
 * <p>A message instance is stored at most once: an instance the store already stored that is no
 * longer in the window (another caller's update evicted it after this caller read the window) is
 * left out rather than stored a second time; it stays, once, in the history.
 *
 * <p>Pure: it reads only its arguments and returns the change with the decoded messages it
 * appends; the caller applies it (under the user's lock) to the engine and to its caches.
 */
final class WindowDiff {

    /** Distance between the orders of messages appended at the end, leaving room for insertions. */
    static final long GAP = 1L << 20;

    /** Makes the stored form of a new message (and may refuse it). */
    @FunctionalInterface
    interface NewMessage {
        StoredMessage store(long index, long order, ChatMessage message, String json);
    }

    /** A message this change appends: as stored (echoed blocks removed) and as the caller gave it. */
    record Appended(ChatMessage stored, ChatMessage given) {
    }

    /** A window with its decoded messages at the same positions. */
    record Window(List<StoredMessage> stored, List<ChatMessage> messages) {
    }

    /**
     * A computed change.
     *
     * @param change      what to write
     * @param appended    the appended messages by history index
     * @param windowAfter the window once the change is written, when it is known without reading it back
     */
    record Result(WindowChange change, Map<Long, Appended> appended, @Nullable Window windowAfter) {
    }

    private final UnaryOperator<ChatMessage> withoutEchoes;
    private final NewMessage newMessage;

    /**
     * @param withoutEchoes the message as it is stored (blocks of this memory a model echoed removed)
     * @param newMessage    the stored form of a new message
     */
    WindowDiff(UnaryOperator<ChatMessage> withoutEchoes, NewMessage newMessage) {
        this.withoutEchoes = withoutEchoes;
        this.newMessage = newMessage;
    }

    /**
     * The change that turns {@code window} into {@code incoming}. The incoming list is compared
     * with what a read shows of the window ({@link ToolCallPairing#leftOut} with {@code waiting}:
     * the messages left out there never come back from LangChain4j, and they leave the window). A
     * call at the end still waiting for its results is shown, so it comes back in the list like
     * any other message, or is evicted when the list no longer has it.
     *
     * @param window   the stored window, in window order
     * @param current  its decoded messages, same positions
     * @param incoming the list handed to {@code updateMessages}
     * @param first    the history index of the first appended message
     * @param storedAt the history index of a message instance already stored, or null
     * @param waiting  whether the call at a position of the window, at its end, is still waiting for its results
     */
    Result diff(List<StoredMessage> window, List<ChatMessage> current, List<ChatMessage> incoming, long first,
                Function<ChatMessage, @Nullable Long> storedAt, IntPredicate waiting) {
        incoming = withoutStoredElsewhere(window, incoming, storedAt);
        List<Integer> leftOut = ToolCallPairing.leftOut(current, waiting);
        if (leftOut.isEmpty()) {
            Result slid = slide(window, current, incoming, first);
            if (slid != null) {
                return slid;
            }
        }
        Set<Integer> hidden = new HashSet<>(leftOut);
        List<Integer> visible = new ArrayList<>(window.size() - hidden.size());
        for (int p = 0; p < window.size(); p++) {
            if (!hidden.contains(p)) {
                visible.add(p);
            }
        }
        int k = visible.size();
        int n = incoming.size();
        // Keys: the stored JSON. Messages the store handed out are recognised by identity, so only
        // new messages are serialized, and nothing in a message's content changes how it is matched.
        Map<ChatMessage, String> known = new IdentityHashMap<>();
        for (int p : visible) {
            known.put(current.get(p), window.get(p).json());
        }
        String[] keys = new String[n];
        Map<String, Integer> remaining = new HashMap<>();
        for (int j = 0; j < n; j++) {
            String key = known.get(incoming.get(j));
            if (key == null) {
                key = ChatMessageSerializer.messageToJson(incoming.get(j));
            }
            keys[j] = key;
            remaining.merge(key, 1, Integer::sum);
        }
        // Greedy common subsequence: a stored message is kept when it matches the next incoming
        // one; an incoming message is new when the stored one still occurs later; else the stored
        // one left the window.
        StoredMessage[] keptAt = new StoredMessage[n];
        List<Long> evicted = new ArrayList<>();
        int i = 0;
        int j = 0;
        while (i < k && j < n) {
            StoredMessage stored = window.get(visible.get(i));
            if (Objects.equals(stored.json(), keys[j])) {
                keptAt[j] = stored;
                remaining.merge(keys[j], -1, Integer::sum);
                i++;
                j++;
            } else if (remaining.getOrDefault(stored.json(), 0) > 0) {
                remaining.merge(keys[j], -1, Integer::sum);
                j++;
            } else {
                evicted.add(stored.index());
                i++;
            }
        }
        while (i < k) {
            evicted.add(window.get(visible.get(i++)).index());
        }
        long[] orders = assignOrders(keptAt, evicted);
        for (int p : leftOut) {
            evicted.add(window.get(p).index());
        }
        List<StoredMessage> appended = new ArrayList<>();
        Map<Long, Appended> messages = new LinkedHashMap<>();
        long next = first;
        for (int p = 0; p < n; p++) {
            if (keptAt[p] == null) {
                ChatMessage given = incoming.get(p);
                ChatMessage m = withoutEchoes.apply(given);
                String json = m == given ? keys[p] : ChatMessageSerializer.messageToJson(m);
                appended.add(newMessage.store(next, orders[p], m, json));
                messages.put(next, new Appended(m, given));
                next++;
            }
        }
        return new Result(new WindowChange(evicted, appended), messages, null);
    }

    /**
     * {@code incoming} without the instances already stored at an index that is not in the
     * window (the same list when there are none).
     */
    private static List<ChatMessage> withoutStoredElsewhere(List<StoredMessage> window, List<ChatMessage> incoming,
                                                            Function<ChatMessage, @Nullable Long> storedAt) {
        Set<Long> inWindow = null;
        List<ChatMessage> out = null;
        for (int p = 0; p < incoming.size(); p++) {
            ChatMessage m = incoming.get(p);
            Long index = storedAt.apply(m);
            if (index != null) {
                if (inWindow == null) {
                    inWindow = new HashSet<>();
                    for (StoredMessage s : window) {
                        inWindow.add(s.index());
                    }
                }
                if (!inWindow.contains(index)) {
                    if (out == null) {
                        out = new ArrayList<>(incoming.subList(0, p));
                    }
                    continue;
                }
            }
            if (out != null) {
                out.add(m);
            }
        }
        return out == null ? incoming : out;
    }

    /**
     * The common case in linear time without serializing anything kept: the incoming list is the
     * stored window minus some messages at its front (the very instances the store handed out),
     * followed by new messages. Null when the list is anything else.
     */
    private @Nullable Result slide(List<StoredMessage> window, List<ChatMessage> current,
                                   List<ChatMessage> incoming, long firstIndex) {
        int k = window.size();
        int n = incoming.size();
        int from = 0;
        if (n > 0 && k > 0) {
            ChatMessage first = incoming.get(0);
            while (from < k && current.get(from) != first) {
                from++;
            }
        } else {
            from = k;
        }
        if (from == k && k > 0) {
            // nothing stored comes back as the very instance: copies are matched by their
            // serialized form in the general diff
            return null;
        }
        int kept = k - from;
        if (kept > n) {
            return null;
        }
        for (int p = 0; p < kept; p++) {
            if (current.get(from + p) != incoming.get(p)) {
                return null;
            }
        }
        if (n > kept && anyStored(current, incoming.subList(kept, n))) {
            // a stored message coming back after new ones: the general diff decides
            return null;
        }
        List<Long> evicted = new ArrayList<>(from);
        for (int p = 0; p < from; p++) {
            evicted.add(window.get(p).index());
        }
        long base = kept > 0 ? window.get(k - 1).order() : 0;
        List<StoredMessage> appended = new ArrayList<>(n - kept);
        List<StoredMessage> newWindow = new ArrayList<>(n);
        List<ChatMessage> newMessages = new ArrayList<>(n);
        Map<Long, Appended> messages = new LinkedHashMap<>();
        newWindow.addAll(window.subList(from, k));
        newMessages.addAll(current.subList(from, k));
        long next = firstIndex;
        for (int p = kept; p < n; p++) {
            ChatMessage given = incoming.get(p);
            ChatMessage m = withoutEchoes.apply(given);
            StoredMessage stored = newMessage.store(next, base + GAP * (p - kept + 1), m,
                    ChatMessageSerializer.messageToJson(m));
            appended.add(stored);
            newWindow.add(stored);
            newMessages.add(m);
            messages.put(next, new Appended(m, given));
            next++;
        }
        return new Result(new WindowChange(evicted, appended), messages,
                new Window(newWindow, Collections.unmodifiableList(newMessages)));
    }

    /**
     * Orders for the new messages (slots where {@code keptAt} is null) so that sorting the window
     * by order gives the incoming list. When a run of new messages does not fit between two kept
     * neighbours, the kept messages from there on are evicted and appended again as new ones.
     */
    private static long[] assignOrders(StoredMessage[] keptAt, List<Long> evicted) {
        int n = keptAt.length;
        long[] orders = new long[n];
        int p = 0;
        long prev = Long.MIN_VALUE;
        boolean anyKeptBefore = false;
        while (p < n) {
            if (keptAt[p] != null) {
                prev = keptAt[p].order();
                orders[p] = prev;
                anyKeptBefore = true;
                p++;
                continue;
            }
            int start = p;
            while (p < n && keptAt[p] == null) {
                p++;
            }
            int m = p - start;
            if (p == n) {
                long base = anyKeptBefore ? prev : 0;
                for (int t = 0; t < m; t++) {
                    orders[start + t] = base + GAP * (t + 1);
                }
            } else if (!anyKeptBefore) {
                long nextOrder = keptAt[p].order();
                for (int t = 0; t < m; t++) {
                    orders[start + t] = nextOrder - GAP * (m - t);
                }
            } else {
                long nextOrder = keptAt[p].order();
                if (nextOrder - prev - 1 >= m) {
                    long span = nextOrder - prev;
                    for (int t = 0; t < m; t++) {
                        orders[start + t] = prev + span * (t + 1) / (m + 1);
                    }
                } else {
                    for (int q = p; q < n; q++) {
                        if (keptAt[q] != null) {
                            evicted.add(keptAt[q].index());
                            keptAt[q] = null;
                        }
                    }
                    p = start;
                    // Loop again: the run now reaches the end and is appended after prev.
                }
            }
        }
        return orders;
    }

    private static boolean anyStored(List<ChatMessage> current, List<ChatMessage> fresh) {
        if (fresh.size() <= 8) {
            for (ChatMessage m : fresh) {
                for (ChatMessage c : current) {
                    if (c == m) {
                        return true;
                    }
                }
            }
            return false;
        }
        Set<ChatMessage> stored = Collections.newSetFromMap(new IdentityHashMap<>(2 * current.size()));
        stored.addAll(current);
        for (ChatMessage m : fresh) {
            if (stored.contains(m)) {
                return true;
            }
        }
        return false;
    }
}

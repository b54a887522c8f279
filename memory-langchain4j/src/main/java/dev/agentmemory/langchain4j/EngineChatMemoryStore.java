package dev.agentmemory.langchain4j;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ForgetMode;
import dev.agentmemory.core.ForgetTarget;
import dev.agentmemory.core.MemoryEngine;
import dev.agentmemory.core.MemoryEngine.WindowChange;
import dev.agentmemory.core.event.StoredMessage;
import dev.agentmemory.core.spi.Partition;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ChatMessageDeserializer;
import dev.langchain4j.data.message.ChatMessageSerializer;
import dev.langchain4j.data.message.Content;
import dev.langchain4j.data.message.CustomMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.store.memory.chat.ChatMemoryStore;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@link ChatMemoryStore} over the memory engine's message log.
 *
 * <p>LangChain4j hands {@code updateMessages} the whole window every time. This store diffs it
 * against the window the engine holds and logs only the change: messages that left the window
 * are evicted (they stay in the session's history), new ones are appended with an order that
 * places them where the list has them. Nothing already stored is rewritten, so a turn costs the
 * same whatever the length of the history. A message is matched to the stored one by identity
 * (the instance this store handed out) or by its stored serialized form, never by interpreting
 * its content, so whatever a message says (a model echoing a memory block, marker lines in tool
 * arguments) it is kept or appended exactly once. The diff and the write run under the engine's
 * per-user lock; different users never wait for each other.
 *
 * <p>{@link #getMessages} always returns a list that is valid to send to a model: an AI message
 * whose tool calls are not all answered by the results right after it, and results that answer
 * no call, are left out. This is computed on every read from the stored window and never writes,
 * so the answer is the same before and after a restart. Such messages stay in the window until
 * the next update: an unanswered call at the end of the window is kept while only its results
 * follow it (a tool loop in progress); any other left-out message can never become valid and
 * leaves the window with that update (it stays in the history).
 */
final class EngineChatMemoryStore implements ChatMemoryStore {

    /** Distance between the orders of messages appended at the end, leaving room for insertions. */
    static final long GAP = 1L << 20;

    private final MemoryEngine engine;
    private final String agent;
    private final SessionResolver ids;
    private final ForgetMode deleteMode;
    /** Blocks of this memory a model echoed into a reply or a tool call never reach the stored history. */
    private final EchoedBlocks echoes;
    private final Map<SessionRef, SessionCache> sessions = new ConcurrentHashMap<>();

    /**
     * What this store knows of one session: decoded messages of the window, by history index. It
     * is only a cache of what the engine holds (every decision is taken on the engine's window,
     * under the user's lock), so several stores over one engine never disagree.
     */
    private static final class SessionCache {
        final SessionRef ref;
        final Map<Long, ChatMessage> decoded = new ConcurrentHashMap<>();
        /** The window as last read or written here, with its decoded messages (same positions); null when unknown. */
        volatile @Nullable Snapshot snapshot;

        SessionCache(SessionRef ref) {
            this.ref = ref;
        }

        /** The decoded messages of {@code window}: the snapshot's when it is the same window, else decoded one by one. */
        List<ChatMessage> messagesOf(List<StoredMessage> window) {
            Snapshot snap = snapshot;
            if (snap != null && snap.sameWindow(window)) {
                return snap.messages();
            }
            List<ChatMessage> out = new ArrayList<>(window.size());
            for (StoredMessage m : window) {
                out.add(decode(m));
            }
            snapshot = new Snapshot(window, List.copyOf(out));
            return snapshot.messages();
        }

        ChatMessage decode(StoredMessage m) {
            ChatMessage known = decoded.get(m.index());
            if (known != null) {
                return known;
            }
            String json = Objects.requireNonNull(m.json(), "a forgotten message is never in a window");
            ChatMessage fresh = ChatMessageDeserializer.messageFromJson(json);
            decoded.put(m.index(), fresh);
            return fresh;
        }
    }

    /**
     * A window and its decoded messages. The engine hands out the same {@link StoredMessage}
     * instances until the window changes, so comparing by identity tells whether it is still current.
     */
    private record Snapshot(List<StoredMessage> window, List<ChatMessage> messages) {
        boolean sameWindow(List<StoredMessage> other) {
            if (other.size() != window.size()) {
                return false;
            }
            for (int p = 0; p < other.size(); p++) {
                if (other.get(p) != window.get(p)) {
                    return false;
                }
            }
            return true;
        }
    }

    EngineChatMemoryStore(MemoryEngine engine, String agent, SessionResolver ids, ForgetMode deleteMode,
                          EchoedBlocks echoes) {
        this.engine = engine;
        this.agent = agent;
        this.ids = ids;
        this.deleteMode = deleteMode;
        this.echoes = echoes;
    }

    @Override
    public List<ChatMessage> getMessages(Object memoryId) {
        SessionRef ref = ref(memoryId);
        Caller caller = ref.caller(agent);
        SessionCache cache = cache(ref);
        List<ChatMessage> window = cache.messagesOf(engine.messages().window(caller, ref.session()));
        Set<Integer> hidden = new HashSet<>(danglingToolMessages(window));
        List<ChatMessage> out = new ArrayList<>(window.size() - hidden.size());
        for (int p = 0; p < window.size(); p++) {
            if (!hidden.contains(p)) {
                out.add(window.get(p));
            }
        }
        return out;
    }

    @Override
    public void updateMessages(Object memoryId, List<ChatMessage> messages) {
        Objects.requireNonNull(messages, "messages");
        SessionRef ref = ref(memoryId);
        Caller caller = ref.caller(agent);
        List<ChatMessage> incoming = new ArrayList<>(messages.size());
        for (ChatMessage m : messages) {
            incoming.add(Objects.requireNonNull(m, "message"));
        }
        SessionCache cache = cache(ref);
        try {
            engine.messages().changeIndexed(caller, ref.session(), (window, next) -> diff(cache, window, incoming, next));
        } catch (RuntimeException e) {
            // the cache may hold messages of an append that did not happen
            sessions.remove(ref);
            throw e;
        }
    }

    @Override
    public void deleteMessages(Object memoryId) {
        SessionRef ref = ref(memoryId);
        engine.forget(ref.caller(agent), ForgetTarget.scope(ref.scope()), deleteMode);
    }

    /** Drops what this store cached about a user's sessions (after a forget); returns how many sessions. */
    int invalidate(Partition partition) {
        int n = 0;
        for (SessionRef ref : List.copyOf(sessions.keySet())) {
            if (ref.tenant().equals(partition.tenant()) && ref.user().equals(partition.user())
                    && sessions.remove(ref) != null) {
                n++;
            }
        }
        return n;
    }

    SessionRef ref(Object memoryId) {
        return SessionResolver.resolve(ids, memoryId);
    }

    private SessionCache cache(SessionRef ref) {
        return sessions.computeIfAbsent(ref, SessionCache::new);
    }

    /** The stored form of a new message, refused when it is over the engine's size limit. */
    private StoredMessage stored(SessionRef ref, long index, long order, ChatMessage m, String json) {
        int limit = engine.messages().maxMessageChars();
        if (json.length() > limit) {
            throw new IllegalArgumentException("a message of type " + m.type().name() + " of session " + ref + " is " + json.length() + " characters serialized, over the limit"
                    + " of " + limit + " (raise agentmemory.max-message-chars, AgentMemory.Builder#maxMessageChars)");
        }
        return new StoredMessage(index, order, m.type().name(), json, textOf(m));
    }

    /**
     * Under the user's lock: the change that turns {@code window} into {@code incoming}. The
     * incoming list is compared with what {@link #getMessages} shows of the window (the messages
     * left out there never come back from LangChain4j); of those left out, an unanswered call at
     * the end stays while only its results are added after it, the others leave the window.
     */
    private WindowChange diff(SessionCache cache, List<StoredMessage> window, List<ChatMessage> incoming, long first) {
        List<ChatMessage> current = cache.messagesOf(window);
        List<Integer> dangling = danglingToolMessages(current);
        if (dangling.isEmpty()) {
            WindowChange slid = slide(cache, window, current, incoming, first);
            if (slid != null) {
                return slid;
            }
        }
        Set<Integer> hidden = new HashSet<>(dangling);
        List<Integer> visible = new ArrayList<>(window.size() - hidden.size());
        for (int p = 0; p < window.size(); p++) {
            if (!hidden.contains(p)) {
                visible.add(p);
            }
        }
        int pending = pendingCall(current, dangling);
        int k = visible.size();
        int n = incoming.size();
        // Keys: the stored JSON. Messages this store handed out are recognised by identity, so only
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
        long tailFloor = pending < 0 ? Long.MIN_VALUE : window.get(window.size() - 1).order();
        long[] orders = assignOrders(keptAt, evicted, tailFloor);
        boolean keepPending = pending >= 0 && onlyResultsAfterKept(keptAt, incoming, (AiMessage) current.get(pending));
        for (int p : dangling) {
            if (!(keepPending && p >= pending)) {
                evicted.add(window.get(p).index());
            }
        }
        List<StoredMessage> appended = new ArrayList<>();
        long next = first;
        for (int p = 0; p < n; p++) {
            if (keptAt[p] == null) {
                ChatMessage m = echoes.without(incoming.get(p));
                String json = m == incoming.get(p) ? keys[p] : ChatMessageSerializer.messageToJson(m);
                appended.add(stored(cache.ref, next, orders[p], m, json));
                cache.decoded.put(next, m);
                next++;
            }
        }
        for (Long e : evicted) {
            cache.decoded.remove(e);
        }
        cache.snapshot = null;
        return new WindowChange(evicted, appended);
    }

    /**
     * Where the window ends with an AI message whose calls are still being answered (only results
     * of its own calls after it): the position of that message, else -1.
     */
    private static int pendingCall(List<ChatMessage> current, List<Integer> dangling) {
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

    /** Whether every new message after the last kept one is a result of one of {@code call}'s requests. */
    private static boolean onlyResultsAfterKept(StoredMessage[] keptAt, List<ChatMessage> incoming, AiMessage call) {
        Set<String> ids = requestIds(call);
        for (int p = keptAt.length - 1; p >= 0 && keptAt[p] == null; p--) {
            if (!(incoming.get(p) instanceof ToolExecutionResultMessage r) || !ids.contains(r.id())) {
                return false;
            }
        }
        return true;
    }

    private static Set<String> requestIds(AiMessage ai) {
        Set<String> ids = new HashSet<>();
        for (ToolExecutionRequest r : ai.toolExecutionRequests()) {
            ids.add(r.id());
        }
        return ids;
    }

    /**
     * The common case in linear time without serializing anything kept: the incoming list is the
     * stored window minus some messages at its front (the very instances this store handed out),
     * followed by new messages. Null when the list is anything else.
     */
    private @Nullable WindowChange slide(SessionCache cache, List<StoredMessage> window, List<ChatMessage> current,
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
        newWindow.addAll(window.subList(from, k));
        newMessages.addAll(current.subList(from, k));
        long next = firstIndex;
        for (int p = kept; p < n; p++) {
            ChatMessage m = echoes.without(incoming.get(p));
            StoredMessage stored = stored(cache.ref, next, base + GAP * (p - kept + 1), m,
                    ChatMessageSerializer.messageToJson(m));
            appended.add(stored);
            newWindow.add(stored);
            newMessages.add(m);
            cache.decoded.put(next, m);
            next++;
        }
        for (Long e : evicted) {
            cache.decoded.remove(e);
        }
        cache.snapshot = new Snapshot(newWindow, Collections.unmodifiableList(newMessages));
        return new WindowChange(evicted, appended);
    }

    /**
     * Orders for the new messages (slots where {@code keptAt} is null) so that sorting the window
     * by order gives the incoming list. When a run of new messages does not fit between two kept
     * neighbours, the kept messages from there on are evicted and appended again as new ones. New
     * messages at the end are placed after {@code tailFloor} too (a message kept out of the list).
     */
    private static long[] assignOrders(StoredMessage[] keptAt, List<Long> evicted, long tailFloor) {
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
                long base = Math.max(anyKeptBefore ? prev : 0, tailFloor);
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

    static @Nullable String textOf(ChatMessage m) {
        if (m instanceof UserMessage u) {
            StringBuilder b = new StringBuilder();
            for (Content c : u.contents()) {
                if (c instanceof TextContent t) {
                    if (!b.isEmpty()) {
                        b.append('\n');
                    }
                    b.append(t.text());
                }
            }
            return b.toString();
        }
        if (m instanceof AiMessage ai) {
            return ai.text() == null ? "" : ai.text();
        }
        if (m instanceof SystemMessage s) {
            return s.text();
        }
        if (m instanceof ToolExecutionResultMessage r) {
            return r.text() == null ? "" : r.text();
        }
        if (m instanceof CustomMessage) {
            return "";
        }
        return "";
    }
}

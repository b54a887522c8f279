package dev.agentmemory.langchain4j;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ForgetMode;
import dev.agentmemory.core.ForgetTarget;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.engine.MemoryEngine.Messages;
import dev.agentmemory.core.event.StoredMessage;
import dev.agentmemory.core.spi.Partition;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.store.memory.chat.ChatMemoryStore;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntPredicate;

/**
 * The engine side of the memory's {@link ChatMemoryStore}: a session's window over the memory
 * engine's message log, for a session already resolved from its memory id.
 *
 * <p>LangChain4j hands {@code updateMessages} the whole window every time. This store diffs it
 * against the window the engine holds and logs only the change: messages that left the window
 * are evicted (they stay in the session's history), new ones are appended with an order that
 * places them where the list has them. Nothing already stored is rewritten, so a turn costs the
 * same whatever the length of the history. A message is matched to the stored one by identity
 * (the instance this store handed out) or by its stored serialized form, never by interpreting
 * its content, so whatever a message says (a model echoing a memory block, marker lines in tool
 * arguments) it is kept or appended exactly once. The diff and the write run under the engine's
 * per-user lock; different users never wait for each other. Concurrent updates of one memory id
 * (LangChain4j does not serialise them) never store a message twice: the list of a caller that
 * read the window before another caller's update is diffed against the window as it is then, and
 * a message instance already stored that this update would bring back after another update
 * evicted it is left out (it stays, once, in the history); the window is the last writer's list
 * without such messages.
 *
 * <p>{@link #getMessages} returns what LangChain4j's {@code InMemoryChatMemoryStore} would, except
 * that it never returns an orphan: an AI message whose tool calls are not all answered by the
 * results right after it, and results that answer no call, are left out. The one exception is a
 * call still waiting for its results: a call this store stored, at the end of the window, followed
 * only by results of its own requests (a tool loop in progress here, whether AiServices' or an
 * application's own) is returned as it was added, with the results that came. Once anything else
 * follows it, it can never be answered and is left out; so it is when a new turn begins in the
 * session ({@link #stopWaiting}) and in a store that did not store it (after a restart, or another
 * memory over the same engine), since the loop that would answer it is not running there. This is
 * computed on every read from the stored window and never writes; a left-out message leaves the
 * window with the next update (it stays in the history).
 *
 * <p>The parts: {@link WindowDiff} computes the change (pure), {@link ToolCallPairing} is the
 * pairing rule (pure), {@link SessionCache} holds what this store decoded; this class reads and
 * writes through the engine.
 */
final class EngineChatMemoryStore {

    private final MemoryEngine engine;
    private final String agent;
    private final ForgetMode deleteMode;
    /** Blocks of this memory a model echoed into a reply or a tool call never reach the stored history. */
    private final EchoedBlocks echoes;
    private final Map<SessionRef, SessionCache> sessions = new ConcurrentHashMap<>();
    /** What users state in plain words becomes versioned records when their turn ends. */
    private final PlainWordsWriter plainWords;
    /**
     * The history index of the last tool call this store appended to each session, while nothing
     * but its results were appended after it. Not a cache: a forget that drops the caches keeps it.
     */
    private final Map<SessionRef, Long> callsStoredHere = new ConcurrentHashMap<>();
    /** The window change of a turn's user message, kept until its reply (see {@link #defer}). Not a cache. */
    private final Map<SessionRef, Deferred> deferred = new ConcurrentHashMap<>();

    /** How {@link #deleteMessages} forgets. */
    ForgetMode deleteMode() {
        return deleteMode;
    }

    EngineChatMemoryStore(MemoryEngine engine, String agent, ForgetMode deleteMode, EchoedBlocks echoes) {
        this.plainWords = new PlainWordsWriter(engine, agent);
        this.engine = engine;
        this.agent = agent;
        this.deleteMode = deleteMode;
        this.echoes = echoes;
    }

    /**
     * The window of a session as a chat memory shows it: on the thread of a turn whose user message
     * is deferred ({@link #defer}), the window that update asked for, while the stored window is
     * still the one it was asked on; anywhere else (or once the stored window changed) the deferred
     * update is written first.
     */
    List<ChatMessage> getMessages(SessionRef ref) {
        Deferred d = deferred.get(ref);
        if (d != null) {
            if (d.owner() == Thread.currentThread()
                    && sameWindow(engine.messages().window(ref.caller(agent), ref.session()), d.base())) {
                return d.shown();
            }
            flush(ref, d);
        }
        return storedWindow(ref);
    }

    /** The stored window of a session as a chat memory shows it. */
    private List<ChatMessage> storedWindow(SessionRef ref) {
        Caller caller = ref.caller(agent);
        SessionCache cache = cache(ref);
        List<StoredMessage> window = engine.messages().window(caller, ref.session());
        List<ChatMessage> messages = cache.messagesOf(window);
        return ToolCallPairing.without(messages, ToolCallPairing.leftOut(messages, waiting(ref, window)));
    }

    /**
     * A turn's window change that only adds its user message (and evicts the oldest messages),
     * kept in this process until the turn's next update, which writes it with the reply in one
     * append. {@code base} is the stored window it was asked on, {@code owner} the turn's thread.
     */
    private record Deferred(List<ChatMessage> messages, List<ChatMessage> shown, ChatMessage user,
                            List<StoredMessage> base, List<ChatMessage> seen, Thread owner) {
    }

    /**
     * The list to store for a turn's reply update {@code incoming}, whose deferred change {@code d}
     * was asked on a window that has since changed (another instance stored a turn of the session
     * meanwhile, read when the append was refused): the stored window without what the turn
     * evicted, then the turn's new messages, so that a concurrent turn is not evicted by a list
     * read before it. {@code incoming} itself when the window is the one the turn saw.
     */
    private static List<ChatMessage> rebased(@Nullable Deferred d, List<StoredMessage> window, List<ChatMessage> current,
                                             List<ChatMessage> incoming) {
        if (d == null || sameWindow(window, d.base())) {
            return incoming;
        }
        Map<ChatMessage, Boolean> seen = new java.util.IdentityHashMap<>();
        d.seen().forEach(m -> seen.put(m, true));
        Map<ChatMessage, Boolean> kept = new java.util.IdentityHashMap<>();
        incoming.forEach(m -> kept.put(m, true));
        List<ChatMessage> out = new ArrayList<>();
        Map<ChatMessage, Boolean> added = new java.util.IdentityHashMap<>();
        for (ChatMessage m : current) {
            if (!seen.containsKey(m) || kept.containsKey(m)) {
                out.add(m);
                added.put(m, true);
            }
        }
        for (ChatMessage m : incoming) {
            if (!seen.containsKey(m) && !added.containsKey(m)) {
                out.add(m);
            }
        }
        return out;
    }

    /**
     * Keeps {@code messages} as the session's window in this process instead of storing it now,
     * when it is the stored window (as {@link #getMessages} shows it) with some of its oldest
     * messages evicted and {@code user} added at the end, and nothing else is deferred in the
     * session: the next update on this thread, with the model's reply, stores both in one append
     * (see {@link #updateMessages}). Returns false, storing nothing, when the update does anything
     * else; the caller then stores it as usual. {@code user} must be the last of {@code messages}.
     */
    boolean defer(SessionRef ref, List<ChatMessage> messages, ChatMessage user) {
        if (messages.isEmpty() || messages.get(messages.size() - 1) != user || deferred.containsKey(ref)) {
            return false;
        }
        int limit = engine.messages().maxMessageChars();
        if (dev.langchain4j.data.message.ChatMessageSerializer.messageToJson(user).length() > limit) {
            return false; // refused by the write, now, before the model is called
        }
        List<StoredMessage> window = engine.messages().window(ref.caller(agent), ref.session());
        List<ChatMessage> shown = storedWindow(ref);
        int next = 0;
        for (int i = 0; i < messages.size() - 1; i++) {
            ChatMessage m = messages.get(i);
            while (next < shown.size() && shown.get(next) != m) {
                next++;
            }
            if (next == shown.size()) {
                return false; // not a message of the stored window, in order
            }
            next++;
        }
        for (ChatMessage m : shown) {
            if (m == user) {
                return false;
            }
        }
        List<ChatMessage> copy = List.copyOf(messages);
        List<ChatMessage> filtered = ToolCallPairing.without(copy, ToolCallPairing.leftOut(copy, p -> false));
        return deferred.putIfAbsent(ref, new Deferred(copy, filtered, user, window, shown, Thread.currentThread())) == null;
    }

    /** Writes the session's deferred window change, if it is still {@code d}. */
    private void flush(SessionRef ref, Deferred d) {
        if (deferred.remove(ref, d)) {
            write(ref, d.messages(), null);
        }
    }

    /**
     * Writes every deferred window change (a turn whose model call failed leaves one), for a
     * memory that closes. Keeps going when one fails and throws the first failure at the end.
     */
    void flushDeferred() {
        RuntimeException failed = null;
        for (Map.Entry<SessionRef, Deferred> e : List.copyOf(deferred.entrySet())) {
            try {
                flush(e.getKey(), e.getValue());
            } catch (RuntimeException ex) {
                if (failed == null) {
                    failed = ex;
                } else {
                    failed.addSuppressed(ex);
                }
            }
        }
        if (failed != null) {
            throw failed;
        }
    }

    private static boolean sameWindow(List<StoredMessage> a, List<StoredMessage> b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (int p = 0; p < a.size(); p++) {
            if (a.get(p) != b.get(p)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Runs {@code work} as part of the turn of {@code ref} whose store check was already made on
     * this thread (see {@link MemoryEngine.Admin#continuing}).
     */
    <T> T continuing(SessionRef ref, java.util.function.Supplier<T> work) {
        return engine.admin().continuing(ref.caller(agent), work);
    }

    /** Whether the call at a position of {@code window} is the last one this store stored in the session. */
    private IntPredicate waiting(SessionRef ref, List<StoredMessage> window) {
        Long call = callsStoredHere.get(ref);
        return p -> call != null && window.get(p).index() == call;
    }

    /**
     * The tool call this store stored last in {@code session} is no longer waiting for its results
     * (a new turn began there): reads leave it out unless its results all came.
     */
    void stopWaiting(SessionRef session) {
        callsStoredHere.remove(session);
    }

    /** Remembers the last call {@code result} appends, or forgets the last one when anything but results follows it. */
    private void track(SessionRef ref, WindowDiff.Result result) {
        for (Map.Entry<Long, WindowDiff.Appended> e : result.appended().entrySet()) {
            ChatMessage m = e.getValue().stored();
            if (m instanceof AiMessage ai && ai.hasToolExecutionRequests()) {
                callsStoredHere.put(ref, e.getKey());
            } else if (!(m instanceof ToolExecutionResultMessage)) {
                callsStoredHere.remove(ref);
            }
        }
    }

    /**
     * Stores the change from the session's window to {@code messages}. A deferred change of the
     * session is part of it when this is the turn's thread and {@code messages} still holds the
     * deferred user message (the reply's update: one append for both); otherwise it is written
     * first.
     */
    void updateMessages(SessionRef ref, List<ChatMessage> messages) {
        Objects.requireNonNull(messages, "messages");
        List<ChatMessage> incoming = new ArrayList<>(messages.size());
        for (ChatMessage m : messages) {
            incoming.add(Objects.requireNonNull(m, "message"));
        }
        Deferred d = deferred.get(ref);
        Deferred carried = null;
        if (d != null) {
            ChatMessage user = d.user();
            if (d.owner() != Thread.currentThread() || incoming.stream().noneMatch(m -> m == user)) {
                flush(ref, d);
            } else if (deferred.remove(ref, d)) {
                carried = d;
            }
        }
        try {
            write(ref, incoming, carried);
        } catch (RuntimeException e) {
            if (carried != null) {
                deferred.putIfAbsent(ref, carried); // not stored: still the turn's, for its next update
            }
            throw e;
        }
    }

    /** Stores the change to {@code incoming}, rebased when it carries the deferred change {@code carried}. */
    private void write(SessionRef ref, List<ChatMessage> incoming, @Nullable Deferred carried) {
        Caller caller = ref.caller(agent);
        SessionCache cache = cache(ref);
        WindowDiff diff = new WindowDiff(echoes::without, (index, order, m, json) -> stored(ref, index, order, m, json));
        AtomicReference<WindowDiff.@Nullable Result> written = new AtomicReference<>();
        Messages.WindowChange change;
        try {
            // the diff is computed on the window read under the user's lock and written with it
            change = engine.messages().changeIndexed(caller, ref.session(), (window, next) -> {
                WindowDiff.Result refused = written.getAndSet(null);
                if (refused != null) {
                    cache.undo(refused); // an attempt whose append lost the race: made again on the fresh window
                }
                List<ChatMessage> current = cache.messagesOf(window);
                WindowDiff.Result result = diff.diff(window, current, rebased(carried, window, current, incoming), next, cache::indexOf,
                        waiting(ref, window));
                cache.apply(result);
                written.set(result);
                return result.change();
            });
            WindowDiff.Result result = written.get();
            if (result != null) {
                track(ref, result);
            }
        } catch (RuntimeException e) {
            // the cache may hold messages of an append that did not happen
            sessions.remove(ref);
            throw e;
        }
        ChatMessage last = incoming.isEmpty() ? null : incoming.get(incoming.size() - 1);
        plainWords.stored(ref, change.appended(), last instanceof AiMessage ai && !ai.hasToolExecutionRequests());
    }

    /** Forgets the session's scope in the delete mode (a deferred change of it is dropped). */
    void deleteMessages(SessionRef ref) {
        deferred.remove(ref);
        callsStoredHere.remove(ref);
        engine.forget(ref.caller(agent), ForgetTarget.scope(ref.scope()), deleteMode);
    }

    /** Drops what this store cached about a user's sessions (after a forget); returns how many sessions. */
    int invalidate(Partition partition) {
        plainWords.invalidate(partition.tenant(), partition.user());
        int n = 0;
        for (SessionRef ref : List.copyOf(sessions.keySet())) {
            if (ref.tenant().equals(partition.tenant()) && ref.user().equals(partition.user())
                    && sessions.remove(ref) != null) {
                n++;
            }
        }
        return n;
    }

    private SessionCache cache(SessionRef ref) {
        return sessions.computeIfAbsent(ref, SessionCache::new);
    }

    /** The stored form of a new message, refused when it is over the engine's size limit. */
    private StoredMessage stored(SessionRef ref, long index, long order, ChatMessage m, String json) {
        int limit = engine.messages().maxMessageChars();
        if (json.length() > limit) {
            throw new IllegalArgumentException("a message of type " + m.type().name() + " of session " + ref + " is " + json.length() + " characters serialized, over the limit"
                    + " of " + limit + " (raise agentmemory.max-message-chars, MemoryEngine.Builder#maxMessageChars)");
        }
        return new StoredMessage(index, order, m.type().name(), json, MessageText.of(m));
    }
}

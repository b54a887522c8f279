package dev.agentmemory.langchain4j;

import dev.agentmemory.langchain4j.internal.EnumText;
import dev.agentmemory.langchain4j.internal.MemorySpans;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.langchain4j.framing.MemoryFramer;
import dev.agentmemory.langchain4j.tools.Summarizer;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.Content;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.store.memory.chat.ChatMemoryStore;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The chat memory store {@link AgentMemory} hands out. It adds two things around the
 * engine-backed store, which never persists injected memory blocks:
 * <ul>
 *   <li>A turn's framed user message (the one the retrieval augmentor made, announced through
 *       {@link #begin}) is stored as the user's own message: the framed copy is recognised by
 *       identity, never by reading its text, so nothing a model echoes can be mistaken for it.
 *       During that turn's tool loop (AiServices re-reads the chat memory to build the request of
 *       every round after the first), {@link #getMessages} shows the user message with its block
 *       once per round, to the read that follows all of the round's tool results, so each round
 *       sees the memory it was given. The framed copy lives only in this process and only for its turn:
 *       the next augmentation of the session, the turn's final answer, or a forget of anything of
 *       the user drops it, and a read after a round was shown (which is where a failed turn
 *       leaves off) gets the plain message, so a failed turn leaves nothing behind.</li>
 *   <li>A turn (from the augmentation that {@link #begin}s it to its final answer) is one unit
 *       against the store: its calls on the turn's thread continue from the store check of the
 *       chat memory read AiServices made before the augmentation, and its user message waits in
 *       the process ({@link EngineChatMemoryStore#defer}) to be stored with the reply in one
 *       append. Issue 27: one head check and one append per turn on a shared store.</li>
 *   <li>When a summarizer is configured, a finished turn (an AI answer without tool calls)
 *       summarizes the messages that left the window.</li>
 * </ul>
 */
final class TurnAwareChatMemoryStore implements ChatMemoryStore {

    /**
     * A turn's user message as the user wrote it and as the model is shown it, and the last
     * message of the list the framed copy was last shown with (each tool round shows it once).
     */
    private record Turn(UserMessage original, UserMessage framed, @Nullable ChatMessage before,
                        AtomicReference<ChatMessage> shownWith, @Nullable Thread owner, AtomicInteger reads) {
        Turn(UserMessage original, UserMessage framed, @Nullable ChatMessage before, @Nullable Thread owner) {
            this(original, framed, before, new AtomicReference<>(), owner, new AtomicInteger());
        }

        /**
         * Whether a call on this thread is part of the turn, whose store check was made when it
         * began: its thread's calls, except a read that follows {@value #READS_IN_A_ROW} reads
         * without a write between (a turn reads twice in a row at most: before its user message
         * is added, and before and after the model call; a read after that is a new call on a
         * thread whose turn failed, and checks the store again).
         */
        boolean owns(boolean read) {
            if (owner != Thread.currentThread()) {
                return false;
            }
            if (!read) {
                reads.set(0);
                return true;
            }
            return reads.incrementAndGet() <= READS_IN_A_ROW;
        }

        /**
         * Whether the user message at {@code user} can be this turn's: it comes after the last
         * message stored before the turn began (found by identity: the store hands out the same
         * instances), so an earlier message with the same text ("Are you there?" again) never is.
         */
        boolean after(List<ChatMessage> messages, int user) {
            if (before == null) {
                return true;
            }
            for (int p = messages.size() - 1; p >= 0; p--) {
                if (messages.get(p) == before) {
                    return user > p;
                }
            }
            return true;
        }
    }

    private final EngineChatMemoryStore delegate;
    private final MemoryFramer framer;
    private final @Nullable Summarizer summarizer;
    /** The memory's one resolver: each call maps its memory id once, here, and passes the session down. */
    private final SessionResolver sessions;
    private final Map<SessionRef, Turn> turns = new ConcurrentHashMap<>();
    /** How many reads in a row a turn makes at most (see {@link Turn#owns}). */
    static final int READS_IN_A_ROW = 2;
    /**
     * The last read of each session that checked the store, with the thread that made it and what
     * it returned: AiServices reads the chat memory just before it asks the retrieval augmentor,
     * which then continues from that check (see {@link #continuesCheckedRead}).
     */
    private final Map<SessionRef, CheckedRead> checkedReads = new ConcurrentHashMap<>();

    private record CheckedRead(Thread thread, List<ChatMessage> returned) {
    }
    private final String agent;
    private final MemorySpans spans;

    TurnAwareChatMemoryStore(EngineChatMemoryStore delegate, MemoryFramer framer, @Nullable Summarizer summarizer,
                             SessionResolver sessions, String agent, MemorySpans spans) {
        this.sessions = sessions;
        this.agent = agent;
        this.spans = spans;
        this.delegate = delegate;
        this.framer = framer;
        this.summarizer = summarizer;
    }

    /**
     * A new turn of {@code session} starts with {@code original}, shown to the model as
     * {@code framed}. Whatever an earlier turn left (it may have failed) is dropped, and a tool
     * call it left waiting for its results is waited for no longer: AiServices reads the memory
     * for the new turn's request before it adds the user message, and that request must not
     * carry the call.
     */
    void begin(SessionRef session, ChatMessage original, ChatMessage framed) {
        turns.remove(session);
        checkedReads.remove(session);
        delegate.stopWaiting(session);
        if (original instanceof UserMessage o && framed instanceof UserMessage f) {
            // the augmentation that begins the turn has just checked the store on this thread
            List<ChatMessage> stored = delegate.continuing(session, () -> delegate.getMessages(session));
            turns.put(session, new Turn(o, f, stored.isEmpty() ? null : stored.get(stored.size() - 1),
                    Thread.currentThread()));
        }
    }

    /**
     * Whether the retrieval for a new turn of {@code session} on this thread continues from the
     * store check of the chat memory read AiServices made just before it: the last call on the
     * session was a read that checked, on this thread, and it returned exactly the messages
     * ({@code chatMemory}, by identity) that AiServices passes to the augmentation. Consumes that read.
     */
    boolean continuesCheckedRead(SessionRef session, @Nullable List<ChatMessage> chatMemory) {
        CheckedRead read = checkedReads.remove(session);
        if (read == null || chatMemory == null || read.thread() != Thread.currentThread()
                || read.returned().size() != chatMemory.size()) {
            return false;
        }
        for (int i = 0; i < chatMemory.size(); i++) {
            if (read.returned().get(i) != chatMemory.get(i)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public List<ChatMessage> getMessages(Object memoryId) {
        SessionRef ref = SessionResolver.resolve(sessions, memoryId);
        Turn turn = turns.get(ref);
        List<ChatMessage> messages;
        if (turn != null && turn.owns(true)) {
            messages = delegate.continuing(ref, () -> delegate.getMessages(ref));
        } else {
            messages = delegate.getMessages(ref);
            checkedReads.put(ref, new CheckedRead(Thread.currentThread(), messages));
        }
        if (turn == null || turn.original() == turn.framed()) {
            return messages;
        }
        int user = lastUser(messages);
        ChatMessage last = messages.isEmpty() ? null : messages.get(messages.size() - 1);
        if (user >= 0 && user < messages.size() - 1 && messages.get(user).equals(turn.original())
                && turn.after(messages, user) && answeredToolRounds(messages, user + 1)
                && turn.shownWith().getAndSet(last) != last) {
            List<ChatMessage> out = new ArrayList<>(messages);
            out.set(user, turn.framed());
            return out;
        }
        return messages;
    }

    @Override
    public void updateMessages(Object memoryId, List<ChatMessage> messages) {
        Objects.requireNonNull(messages, "messages");
        try (MemorySpans.Span span = spans.start("update_memory")) {
            try {
                span.set(RecallSpans.LAYER, "messages").set(MemoryTracing.RECORD_COUNT, messages.size());
                SessionRef ref = SessionResolver.resolve(sessions, memoryId);
                RecallSpans.who(span, agent, ref);
                update(ref, messages);
                span.set(WRITE_OUTCOME, "applied");
            } catch (RuntimeException | Error e) {
                span.failed(e);
                throw e;
            }
        }
    }

    /** The outcome of a write: {@code applied}, {@code conflict} or {@code rejected}. */
    static final String WRITE_OUTCOME = "agentmemory.write.outcome";

    private void update(SessionRef ref, List<ChatMessage> messages) {
        checkedReads.remove(ref);
        List<ChatMessage> stored = new ArrayList<>(messages);
        int user = lastUser(stored);
        if (user >= 0) {
            stored.set(user, unframed(ref, (UserMessage) stored.get(user)));
        }
        Turn turn = turns.get(ref);
        if (turn != null && turn.owns(false)) {
            // the turn's user message waits for the reply, to be stored with it in one append
            boolean deferred = user == stored.size() - 1 && stored.get(user) == turn.original()
                    && delegate.continuing(ref, () -> delegate.defer(ref, stored, turn.original()));
            if (!deferred) {
                delegate.continuing(ref, () -> {
                    delegate.updateMessages(ref, stored);
                    return null;
                });
            }
        } else {
            delegate.updateMessages(ref, stored);
        }
        ChatMessage end = messages.isEmpty() ? null : messages.get(messages.size() - 1);
        if (end instanceof AiMessage ai && !ai.hasToolExecutionRequests()) {
            turns.remove(ref);
            if (summarizer != null) {
                summarizer.summarize(ref);
            }
        }
    }

    /**
     * The current user message as it is stored: the turn's original for its framed copy (by
     * identity, or equal to it), or, for a message framed without {@link #begin} (the injector
     * used on its own), the message without the block this framer attached at its start.
     * Any other message is stored exactly as it is.
     */
    private UserMessage unframed(SessionRef ref, UserMessage m) {
        Turn turn = turns.get(ref);
        if (turn != null && (m == turn.framed() || m.equals(turn.framed()))) {
            return turn.original();
        }
        if (turn != null && (m == turn.original() || m.equals(turn.original()))) {
            return m;
        }
        List<Content> contents = m.contents();
        if (contents.isEmpty() || !(contents.get(0) instanceof TextContent first)) {
            return m;
        }
        String rest = framer.stripFrames(first.text());
        if (rest.equals(first.text())) {
            return m;
        }
        List<Content> stripped = new ArrayList<>(contents);
        if (rest.isEmpty() && contents.size() > 1) {
            stripped.remove(0);
        } else {
            stripped.set(0, new TextContent(rest));
        }
        UserMessage original = m.toBuilder().contents(stripped).build();
        turns.put(ref, new Turn(original, m, null, null));
        return original;
    }

    private static int lastUser(List<ChatMessage> messages) {
        for (int i = messages.size() - 1; i >= 0; i--) {
            if (messages.get(i) instanceof UserMessage) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Whether everything from {@code from} on is AI tool calls and their results, every call
     * answered (a tool loop between two rounds; a call still waiting for its results is shown
     * without the block, as a failed turn that left it leaves nothing behind).
     */
    private static boolean answeredToolRounds(List<ChatMessage> messages, int from) {
        for (int i = from; i < messages.size(); i++) {
            ChatMessage m = messages.get(i);
            boolean toolRound = m instanceof ToolExecutionResultMessage
                    || m instanceof AiMessage ai && ai.hasToolExecutionRequests();
            if (!toolRound) {
                return false;
            }
        }
        return ToolCallPairing.danglingToolMessages(messages.subList(from, messages.size())).isEmpty();
    }

    @Override
    public void deleteMessages(Object memoryId) {
        try (MemorySpans.Span span = spans.start("delete_memory")) {
            try {
                span.set(FORGET_TARGET, "session").set(FORGET_MODE, EnumText.label(delegate.deleteMode()));
                SessionRef ref = SessionResolver.resolve(sessions, memoryId);
                RecallSpans.who(span, agent, ref);
                turns.remove(ref);
                checkedReads.remove(ref);
                delegate.deleteMessages(ref);
            } catch (RuntimeException | Error e) {
                span.failed(e);
                throw e;
            }
        }
    }

    /** What a forget targets: {@code session} (all of it) or {@code key}. */
    static final String FORGET_TARGET = "agentmemory.forget.target";
    /** How a forget forgets: {@code soft} or {@code hard}. */
    static final String FORGET_MODE = "agentmemory.forget.mode";

    /** Drops the framed copies of a user's turns (their memory may hold what was just forgotten). */
    int invalidate(Partition partition) {
        int n = 0;
        for (SessionRef ref : List.copyOf(turns.keySet())) {
            if (ref.tenant().equals(partition.tenant()) && ref.user().equals(partition.user())) {
                checkedReads.remove(ref);
                Turn dropped = turns.remove(ref);
                if (dropped != null && dropped.framed() != dropped.original()) {
                    n++; // a framed copy, which may state what was forgotten
                }
            }
        }
        return n;
    }
}

package dev.agentmemory.langchain4j;

import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.langchain4j.framing.MemoryFramer;
import dev.agentmemory.langchain4j.tools.Summarizer;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.store.memory.chat.ChatMemoryStore;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The chat memory store {@link AgentMemory} hands out. It adds two things around the
 * engine-backed store, which never persists injected memory blocks:
 * <ul>
 *   <li>During a turn, the user message keeps its memory block in what {@link #getMessages}
 *       returns, so that every round of a tool loop (AiServices re-reads the chat memory for
 *       each round) still sees the memory it was given. The framed copy lives only in this
 *       process, only until the turn's final answer, and is dropped when anything of the user is
 *       forgotten.</li>
 *   <li>When a summarizer is configured, a finished turn (an AI answer without tool calls)
 *       summarizes the messages that left the window.</li>
 * </ul>
 */
final class TurnAwareChatMemoryStore implements ChatMemoryStore {

    private record Turn(String stripped, UserMessage framed) {
    }

    private final EngineChatMemoryStore delegate;
    private final MemoryFramer framer;
    private final @Nullable Summarizer summarizer;
    private final Map<SessionRef, Turn> turns = new ConcurrentHashMap<>();

    TurnAwareChatMemoryStore(EngineChatMemoryStore delegate, MemoryFramer framer, @Nullable Summarizer summarizer) {
        this.delegate = delegate;
        this.framer = framer;
        this.summarizer = summarizer;
    }

    @Override
    public List<ChatMessage> getMessages(Object memoryId) {
        List<ChatMessage> messages = delegate.getMessages(memoryId);
        Turn turn = turns.get(delegate.ref(memoryId));
        if (turn == null) {
            return messages;
        }
        for (int i = messages.size() - 1; i >= 0; i--) {
            if (messages.get(i) instanceof UserMessage u) {
                if (u.hasSingleText() && u.singleText().equals(turn.stripped())) {
                    List<ChatMessage> out = new ArrayList<>(messages);
                    out.set(i, turn.framed());
                    return out;
                }
                break;
            }
        }
        return messages;
    }

    @Override
    public void updateMessages(Object memoryId, List<ChatMessage> messages) {
        SessionRef ref = delegate.ref(memoryId);
        delegate.updateMessages(memoryId, messages);
        UserMessage last = null;
        for (int i = messages.size() - 1; i >= 0 && last == null; i--) {
            if (messages.get(i) instanceof UserMessage u) {
                last = u;
            }
        }
        if (last != null && last.hasSingleText()) {
            String stripped = framer.stripFrames(last.singleText());
            if (!stripped.equals(last.singleText())) {
                turns.put(ref, new Turn(stripped, last));
            } else {
                Turn turn = turns.get(ref);
                if (turn != null && !turn.stripped().equals(stripped)) {
                    turns.remove(ref);
                }
            }
        }
        ChatMessage end = messages.isEmpty() ? null : messages.get(messages.size() - 1);
        if (end instanceof AiMessage ai && !ai.hasToolExecutionRequests()) {
            turns.remove(ref);
            if (summarizer != null) {
                summarizer.summarize(ref);
            }
        }
    }

    @Override
    public void deleteMessages(Object memoryId) {
        turns.remove(delegate.ref(memoryId));
        delegate.deleteMessages(memoryId);
    }

    /** Drops the framed copies of a user's turns (their memory may hold what was just forgotten). */
    int invalidate(Partition partition) {
        int n = 0;
        for (SessionRef ref : List.copyOf(turns.keySet())) {
            if (ref.tenant().equals(partition.tenant()) && ref.user().equals(partition.user()) && turns.remove(ref) != null) {
                n++;
            }
        }
        return n;
    }
}

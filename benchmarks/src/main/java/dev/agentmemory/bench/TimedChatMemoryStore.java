package dev.agentmemory.bench;

import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.store.memory.chat.ChatMemoryStore;
import java.util.List;

/**
 * A chat memory store that adds up the time spent in its delegate: in {@code updateMessages},
 * and in {@code getMessages} too when asked. Single-threaded use (one benchmark loop).
 */
final class TimedChatMemoryStore implements ChatMemoryStore {
    private final ChatMemoryStore delegate;
    private final boolean timeReads;
    long nanos;

    TimedChatMemoryStore(ChatMemoryStore delegate, boolean timeReads) {
        this.delegate = delegate;
        this.timeReads = timeReads;
    }

    @Override
    public List<ChatMessage> getMessages(Object memoryId) {
        long t = System.nanoTime();
        List<ChatMessage> r = delegate.getMessages(memoryId);
        if (timeReads) {
            nanos += System.nanoTime() - t;
        }
        return r;
    }

    @Override
    public void updateMessages(Object memoryId, List<ChatMessage> messages) {
        long t = System.nanoTime();
        delegate.updateMessages(memoryId, messages);
        nanos += System.nanoTime() - t;
    }

    @Override
    public void deleteMessages(Object memoryId) {
        delegate.deleteMessages(memoryId);
    }
}

package dev.agentmemory.langchain4j;

import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.core.testing.RoundTripCounter;
import dev.agentmemory.core.testing.RoundTripCounter.Kind;
import dev.agentmemory.testing.langchain4j.ScriptedChatModel;
import dev.agentmemory.testing.langchain4j.SharedEmbeddingModel;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;

import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * An AiServices assistant with the memory's chat memory provider, retrieval augmentor and tools
 * over a store whose round trips are counted, and a scripted model that can be told to fail. For
 * tests that count what a turn costs the store.
 */
final class CountedAssistant implements AutoCloseable {

    interface Assistant {
        String chat(@MemoryId SessionRef session, @dev.langchain4j.service.UserMessage String text);
    }

    final RoundTripCounter store;
    final AgentMemory memory;
    final ScriptedChatModel model;
    final Assistant assistant;
    /** What the model answers next; by default "Noted: " and the question's last word. */
    final AtomicReference<Function<ChatRequest, AiMessage>> answer = new AtomicReference<>();

    /** Over {@code store}, with a window of {@code windowSize} messages (small, so that turns evict). */
    CountedAssistant(EventStore store, int windowSize) {
        this.store = new RoundTripCounter(store);
        this.memory = AgentMemory.builder().store(this.store).embeddingModel(SharedEmbeddingModel.get())
                .windowSize(windowSize).build();
        this.model = new ScriptedChatModel(r -> {
            Function<ChatRequest, AiMessage> next = answer.get();
            return next != null ? next.apply(r) : AiMessage.from("Noted.");
        });
        this.assistant = AiServices.builder(Assistant.class).chatModel(model)
                .chatMemoryProvider(memory.chatMemoryProvider())
                .retrievalAugmentor(memory.retrievalAugmentor())
                .tools(memory.tools())
                .build();
    }

    /** The store's round trips of one turn, by kind; the episodic index has caught up before and after. */
    Map<Kind, Long> countTurn(SessionRef session, String text) {
        memory.awaitIndexed();
        store.reset();
        assistant.chat(session, text);
        memory.awaitIndexed();
        return store.counts();
    }

    /** A map of every kind to 0 but the ones given, as {@link RoundTripCounter#counts()} reports. */
    static Map<Kind, Long> only(Kind kind, long n, Object... more) {
        Map<Kind, Long> out = new java.util.EnumMap<>(Kind.class);
        for (Kind k : Kind.values()) {
            out.put(k, 0L);
        }
        out.put(kind, n);
        for (int i = 0; i < more.length; i += 2) {
            out.put((Kind) more[i], ((Number) more[i + 1]).longValue());
        }
        return out;
    }

    @Override
    public void close() {
        memory.close();
    }
}

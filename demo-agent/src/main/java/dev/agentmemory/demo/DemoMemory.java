package dev.agentmemory.demo;

import static java.util.Objects.requireNonNull;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ForgetMode;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.Scope;
import dev.agentmemory.langchain4j.AgentMemory;
import dev.agentmemory.langchain4j.MemoryContent;
import dev.agentmemory.langchain4j.Recall;
import dev.agentmemory.langchain4j.SessionRef;
import dev.langchain4j.data.document.Metadata;
import dev.langchain4j.memory.chat.ChatMemoryProvider;
import dev.langchain4j.rag.RetrievalAugmentor;
import dev.langchain4j.rag.content.Content;
import dev.langchain4j.rag.content.retriever.ContentRetriever;
import org.jspecify.annotations.Nullable;
import java.util.List;
import java.util.Optional;

/**
 * The memory side of the shop assistant: the plugin's {@link AgentMemory} over the demo's engine
 * (chat memory, layered recall framed as data, memory tools), forgetting hard so that a forgotten
 * value leaves the stored log too.
 */
final class DemoMemory implements AutoCloseable {

    /** One memory item that entered the model's context, and why. */
    record Used(String id, String layer, String text, String trust, String why, @Nullable String version) {

        /** One readable line: layer, key = value (or the message), version, trust and why it was chosen. */
        String line() {
            return "[" + layer + "] " + DemoTrace.clip(text) + "  (" + (version == null ? "" : "v" + version + ", ")
                    + trust + ")  <- " + why;
        }
    }

    /** What entered the context on one turn. */
    record RecallView(List<Used> used) {
        RecallView {
            used = List.copyOf(used);
        }
    }

    private final MemoryEngine engine;
    private final AgentMemory memory;

    DemoMemory(MemoryEngine engine) {
        this.engine = requireNonNull(engine, "engine");
        this.memory = AgentMemory.builder()
                .engine(engine)
                .agent(ShopTools.AGENT)
                .embeddingModel(Embeddings.shared())
                .deleteMode(ForgetMode.HARD)
                .build();
    }

    /** The scope a turn works in: the session's active task, else the session. */
    static Scope workingScope(MemoryEngine engine, SessionRef ref) {
        Caller caller = ShopTools.caller(ref);
        return engine.tasks().active(caller, ref.session())
                .map(t -> caller.task(t))
                .orElse(caller.session(ref.session()));
    }

    MemoryEngine engine() {
        return engine;
    }

    /** The plugin's memory itself, for the inspector in the browser. */
    AgentMemory agentMemory() {
        return memory;
    }

    ChatMemoryProvider chatMemoryProvider() {
        return memory.chatMemoryProvider();
    }

    RetrievalAugmentor retrievalAugmentor() {
        return memory.retrievalAugmentor();
    }

    ContentRetriever contentRetriever() {
        return memory.contentRetriever();
    }

    List<Object> tools() {
        return List.of(memory.tools());
    }

    /** What entered the context on the session's latest turn. */
    Optional<RecallView> lastRecall(SessionRef ref) {
        return memory.lastRecall(ref).map(DemoMemory::view);
    }

    private static RecallView view(Recall r) {
        return new RecallView(r.used().stream().map(DemoMemory::used).toList());
    }

    private static Used used(Content c) {
        Metadata md = c.textSegment().metadata();
        String id = md.getString(MemoryContent.ID);
        Object version = md.toMap().get(MemoryContent.VERSION);
        return new Used(id == null ? "?" : id, md.getString(MemoryContent.LAYER), c.textSegment().text(),
                md.getString(MemoryContent.TRUST), String.valueOf(md.getString(MemoryContent.WHY)),
                version == null ? null : String.valueOf(version));
    }

    @Override
    public void close() {
        try {
            memory.close();
        } finally {
            engine.close();
        }
    }
}

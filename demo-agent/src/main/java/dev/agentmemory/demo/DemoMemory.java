package dev.agentmemory.demo;

import static java.util.Objects.requireNonNull;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ForgetMode;
import dev.agentmemory.core.KeyState;
import dev.agentmemory.core.MemoryEngine;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.Scope;
import dev.agentmemory.core.Trust;
import dev.agentmemory.langchain4j.SessionRef;
import dev.agentmemory.langchain4j.framing.FramedBlock;
import dev.agentmemory.langchain4j.framing.FramedItem;
import dev.agentmemory.langchain4j.framing.MemoryFramer;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.chat.ChatMemoryProvider;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.rag.AugmentationRequest;
import dev.langchain4j.rag.AugmentationResult;
import dev.langchain4j.rag.RetrievalAugmentor;
import dev.langchain4j.store.memory.chat.InMemoryChatMemoryStore;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The memory side of the shop assistant: chat memory, the recall that frames memory into each
 * prompt, and the memory tools, all over one {@link MemoryEngine}.
 */
final class DemoMemory implements AutoCloseable {

    /** One memory item that entered the model's context, and why. */
    record Used(String id, String layer, String text, String trust, String why) {
    }

    /** What entered the context on one turn: the framed block and its items. */
    record RecallView(String block, List<Used> used) {
        RecallView {
            requireNonNull(block, "block");
            used = List.copyOf(used);
        }
    }

    private final MemoryEngine engine;
    private final DemoTrace trace;
    private final MemoryFramer framer = MemoryFramer.builder().build();
    private final InMemoryChatMemoryStore chatStore = new InMemoryChatMemoryStore();
    private final Map<String, RecallView> last = new ConcurrentHashMap<>();
    private final DemoMemoryTools tools;

    DemoMemory(MemoryEngine engine, DemoTrace trace) {
        this.engine = requireNonNull(engine, "engine");
        this.trace = requireNonNull(trace, "trace");
        this.tools = new DemoMemoryTools(engine, trace, ForgetMode.HARD);
    }

    /** The scope a turn works in: the session's active task, else the session. */
    static Scope workingScope(MemoryEngine engine, SessionRef ref) {
        Caller caller = ShopTools.caller(ref);
        return engine.activeTask(caller, ref.session())
                .map(t -> caller.task(ref.session(), t.task()))
                .orElse(caller.session(ref.session()));
    }

    MemoryEngine engine() {
        return engine;
    }

    ChatMemoryProvider chatMemoryProvider() {
        return id -> MessageWindowChatMemory.builder().id(id).maxMessages(30).chatMemoryStore(chatStore).build();
    }

    RetrievalAugmentor retrievalAugmentor() {
        return this::augment;
    }

    List<Object> tools() {
        return List.of(tools);
    }

    /** What entered the context on the session's latest turn. */
    Optional<RecallView> lastRecall(SessionRef ref) {
        return Optional.ofNullable(last.get(ref.toString()));
    }

    private AugmentationResult augment(AugmentationRequest request) {
        ChatMessage message = request.chatMessage();
        SessionRef ref = SessionRef.of(request.metadata().chatMemoryId());
        Caller caller = ShopTools.caller(ref);
        List<FramedItem> items = new ArrayList<>();
        List<String> why = new ArrayList<>();
        Optional<String> task = engine.activeTask(caller, ref.session()).map(t -> t.task());
        if (task.isPresent()) {
            add(items, why, engine.view(caller, caller.task(ref.session(), task.get())).keys(), "task-state",
                    "active task " + task.get() + ": state snapshot (authoritative)");
        }
        add(items, why, engine.view(caller, caller.session(ref.session())).keys(), "session-state",
                "session state (authoritative)");
        add(items, why, engine.view(caller, caller.persistent()).keys(), "persistent",
                "persistent memory of the user (current versions)");
        FramedBlock block = framer.frame(items);
        List<Used> used = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            FramedItem it = items.get(i);
            if (block.included().contains(it)) {
                used.add(new Used(it.id(), it.extra().get("layer"), it.text(), it.trust().label(), why.get(i)));
            }
        }
        last.put(ref.toString(), new RecallView(block.text(), used));
        if (!(message instanceof UserMessage user) || block.isEmpty()) {
            return new AugmentationResult(message, List.of());
        }
        return new AugmentationResult(UserMessage.from(framer.attach(user.singleText(), block)), List.of());
    }

    private static void add(List<FramedItem> items, List<String> why, List<KeyState> keys, String layer, String reason) {
        for (KeyState k : keys) {
            MemoryRecord r = k.current() != null ? k.current() : k.needsReverification();
            if (r != null) {
                items.add(item(r, layer, k.current() != null ? "current" : "needs-reverification"));
                why.add(reason);
            }
            for (MemoryRecord c : k.conflicts()) {
                items.add(item(c, layer, "conflict"));
                why.add(reason + "; open conflict");
            }
        }
    }

    private static FramedItem item(MemoryRecord r, String layer, String status) {
        Map<String, String> extra = new LinkedHashMap<>();
        extra.put("layer", layer);
        if (r.validFrom() != null) {
            extra.put("valid-from", r.validFrom().toString());
        }
        if (r.validTo() != null) {
            extra.put("valid-to", r.validTo().toString());
        }
        return new FramedItem(r.key().path() + "@v" + r.version(), r.key().path() + " = " + r.text(),
                r.kind().name().toLowerCase().replace('_', '-'), r.source().name().toLowerCase(),
                r.trust() == Trust.TRUSTED ? FramedItem.Trust.TRUSTED : FramedItem.Trust.UNTRUSTED,
                r.observedAt(), status, extra);
    }

    @Override
    public void close() {
        engine.close();
    }
}

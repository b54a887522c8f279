package dev.agentmemory.langchain4j.tools;

import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.engine.MemoryEngine.Messages;
import dev.agentmemory.core.event.StoredMessage;
import dev.agentmemory.langchain4j.SessionRef;

import java.util.ArrayList;
import java.util.List;

/**
 * Puts messages into a session's window the way the module's ChatMemoryStore does (type name
 * and plain text), so tools and summaries have a real history to read.
 */
final class Conversation {

    private Conversation() {
    }

    /** Appends messages of the given type; returns the index of the first one. */
    static long append(MemoryEngine engine, SessionRef ref, String type, String... texts) {
        long[] first = {-1};
        engine.messages().change(ref.caller("assistant"), ref.session(), window -> {
            long next = engine.messages().history(ref.caller("assistant"), ref.session()).isEmpty() ? 0
                    : engine.messages().history(ref.caller("assistant"), ref.session()).lastKey() + 1;
            long order = window.isEmpty() ? 0 : window.get(window.size() - 1).order() + 1;
            first[0] = next;
            List<StoredMessage> added = new ArrayList<>();
            for (String t : texts) {
                added.add(new StoredMessage(next++, order++, type, "{\"text\":" + com.fasterxml.jackson.databind.node
                        .JsonNodeFactory.instance.textNode(t) + "}", t));
            }
            return new Messages.WindowChange(List.of(), added);
        });
        return first[0];
    }

    static long user(MemoryEngine engine, SessionRef ref, String text) {
        return append(engine, ref, "USER", text);
    }

    /** Evicts the given indices from the window (they stay in the history). */
    static void evict(MemoryEngine engine, SessionRef ref, List<Long> indices) {
        engine.messages().change(ref.caller("assistant"), ref.session(), window -> new Messages.WindowChange(indices, List.of()));
    }
}

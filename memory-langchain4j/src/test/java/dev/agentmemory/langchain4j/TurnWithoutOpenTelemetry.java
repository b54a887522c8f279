package dev.agentmemory.langchain4j;

import dev.agentmemory.core.store.InMemoryEventStore;
import dev.agentmemory.testing.langchain4j.ScriptedChatModel;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;

/**
 * A turn with memory, augmentor, tools and no tracing, for {@link MemoryTracingTest} to run in a
 * class loader that has no OpenTelemetry or Micrometer class: nothing here may name either.
 */
final class TurnWithoutOpenTelemetry {

    interface Assistant {
        String chat(@MemoryId SessionRef session, @dev.langchain4j.service.UserMessage String text);
    }

    private TurnWithoutOpenTelemetry() {
    }

    static String run() {
        // reflection over the builder (as a framework's binder does) must not need OpenTelemetry either
        if (AgentMemory.Builder.class.getMethods().length == 0) {
            throw new AssertionError("no builder methods");
        }
        SessionRef alice = new SessionRef("acme", "alice", "s1");
        String stated = "My favourite colour is green";
        try (AgentMemory memory = AgentMemory.builder().store(new InMemoryEventStore()).build()) {
            ScriptedChatModel model = new ScriptedChatModel("scripted", false,
                    ScriptedChatModel.call("remember", "{\"key\":\"favourite.colour\",\"value\":\"green\","
                            + "\"kind\":\"preference\",\"userQuote\":\"" + stated + "\"}"),
                    ScriptedChatModel.text("Noted."));
            Assistant assistant = AiServices.builder(Assistant.class).chatModel(model)
                    .chatMemoryProvider(memory.chatMemoryProvider())
                    .retrievalAugmentor(memory.retrievalAugmentor())
                    .tools(memory.tools()).build();
            String answer = assistant.chat(alice, stated);
            memory.chatMemoryStore().deleteMessages(alice);
            return answer;
        }
    }
}

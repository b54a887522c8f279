package dev.agentmemory.langchain4j;

import dev.agentmemory.testing.langchain4j.ScriptedChatModel;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.UserMessage;

/**
 * One process of an application, for tests that talk to a memory through AiServices and then
 * restart it: an {@link AgentMemory}, a scripted model that answers "Noted." to every request,
 * and an AiServices assistant with the memory's chat memory provider and retrieval augmentor.
 * Closing it closes the memory; its files stay for the next process opened on them. Public for
 * the tests of other packages (recall).
 */
public class AssistantProcess implements AutoCloseable {

    /** The AI service: the user's message in a session; the model's answer. */
    public interface Assistant {
        String chat(@MemoryId SessionRef session, @UserMessage String text);
    }

    public final AgentMemory memory;
    /** Every request the assistant sent, in order. */
    public final ScriptedChatModel model = new ScriptedChatModel(r -> AiMessage.from("Noted."));
    public final Assistant assistant;

    /** Talks to {@code memory}, which this process closes. */
    public AssistantProcess(AgentMemory memory) {
        this.memory = memory;
        this.assistant = AiServices.builder(Assistant.class).chatModel(model)
                .chatMemoryProvider(memory.chatMemoryProvider())
                .retrievalAugmentor(memory.retrievalAugmentor()).build();
    }

    /** Sends {@code text} as the user's message in {@code session}; returns the whole request the model received. */
    public ChatRequest turn(SessionRef session, String text) {
        int before = model.requests().size();
        assistant.chat(session, text);
        return model.requests().get(before);
    }

    @Override
    public void close() {
        memory.close();
    }
}

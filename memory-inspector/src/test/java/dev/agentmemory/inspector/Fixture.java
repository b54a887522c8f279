package dev.agentmemory.inspector;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.langchain4j.AgentMemory;
import dev.agentmemory.langchain4j.SessionRef;
import dev.agentmemory.testing.TestClock;
import dev.agentmemory.testing.langchain4j.ScriptedChatModel;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;

import java.time.Duration;
import java.time.Instant;

/**
 * A memory as a user meets it: an AiService with a scripted model over an {@link AgentMemory},
 * a clock the test moves, and an inspector over it. Alice (tenant acme) has a city that changed
 * from Lyon to Paris three days in, a drink, a stored markup value that must stay text, session
 * state and a task in conversation s1, and one turn of that conversation; Mallory belongs to
 * another tenant.
 */
final class Fixture implements AutoCloseable {

    interface Assistant {
        String chat(@MemoryId SessionRef session, @dev.langchain4j.service.UserMessage String text);
    }

    static final String TENANT = "acme";
    static final SessionRef S1 = new SessionRef(TENANT, "alice", "s1");
    static final Instant T0 = TestClock.DEFAULT_START;
    /** When the city changed from Lyon to Paris. */
    static final Instant MOVED = T0.plus(Duration.ofDays(3));
    /** A stored value that looks like markup and script; the page must show it as text. */
    static final String MARKUP = "<script>window.__pwned = true; alert('pwned')</script>"
            + "<img src=x onerror=\"window.__pwned = true\"><b>not bold</b>";

    final TestClock clock = new TestClock(T0);
    final AgentMemory memory;
    final MemoryEngine engine;
    final ScriptedChatModel model = new ScriptedChatModel(r -> AiMessage.from("Noted."));
    final Assistant assistant;
    final Caller alice = new Caller(TENANT, "alice", "assistant");
    final MemoryInspector inspector;

    Fixture(boolean forgetting) {
        memory = AgentMemory.builder().engineSettings(e -> e.clock(clock)).build();
        engine = memory.engine();
        assistant = AiServices.builder(Assistant.class).chatModel(model)
                .chatMemoryProvider(memory.chatMemoryProvider())
                .retrievalAugmentor(memory.retrievalAugmentor()).build();
        seed();
        inspector = MemoryInspector.start(memory, InspectorOptions.builder(TENANT).forgetting(forgetting).build());
    }

    private void seed() {
        write(alice, Proposal.set(alice.persistent(), "profile.city", "Lyon").kind(Kind.PREFERENCE).source(Source.USER));
        write(alice, Proposal.set(alice.persistent(), "profile.drink", "oat flat white").kind(Kind.PREFERENCE)
                .source(Source.USER));
        write(alice, Proposal.set(alice.persistent(), "note.markup", MARKUP).kind(Kind.OBSERVATION).source(Source.USER));
        write(alice, Proposal.set(alice.session("s1"), "order.color", "aubergine").kind(Kind.TASK_FACT).source(Source.USER));
        engine.tasks().start(alice, "s1", "refund-1", "refund");
        write(alice, Proposal.set(alice.task("s1", "refund-1"), "refund.amount", "42 EUR").kind(Kind.TASK_FACT)
                .source(Source.USER));
        write(alice, Proposal.set(alice.persistent(), "profile.language", "English").kind(Kind.PREFERENCE)
                .source(Source.USER));
        // a guess of the model against what the user said: held as an open conflict, not served as current
        engine.propose(alice, Proposal.set(alice.persistent(), "profile.language", "French").kind(Kind.INFERENCE)
                .source(Source.MODEL).build());
        clock.advance(Duration.ofDays(3));
        write(alice, Proposal.set(alice.persistent(), "profile.city", "Paris").kind(Kind.PREFERENCE).source(Source.USER));
        Caller mallory = new Caller("globex", "mallory", "assistant");
        write(mallory, Proposal.set(mallory.persistent(), "profile.secret", "globex-only").kind(Kind.PREFERENCE).source(Source.USER));
        clock.advance(Duration.ofHours(1));
        turn("Where do I live, and which drink do I like? profile city drink");
    }

    private void write(Caller caller, Proposal.Builder p) {
        engine.write(caller, p.build());
    }

    /** One turn of conversation s1; returns the first request the model received for it. */
    ChatRequest turn(String text) {
        int before = model.requests().size();
        assistant.chat(S1, text);
        clock.advance(Duration.ofMinutes(1));
        return model.requests().get(before);
    }

    static String lastUserText(ChatRequest r) {
        return ScriptedChatModel.lastUserText(r);
    }

    @Override
    public void close() {
        inspector.close();
        memory.close();
    }
}

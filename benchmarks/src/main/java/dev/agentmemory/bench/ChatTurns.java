package dev.agentmemory.bench;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.Proposal.Outcome;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.langchain4j.AgentMemory;
import dev.agentmemory.langchain4j.SessionRef;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.rag.query.Metadata;
import dev.langchain4j.rag.query.Query;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The chat workload of {@code perf-postgres} on one {@link AgentMemory}. A turn is what an
 * AiService turn asks of the memory apart from retrieval: the user message and the AI reply
 * added to the session's chat memory ({@code chatMemoryProvider()}, i.e. a
 * {@code MessageWindowChatMemory} over AgentMemory's {@code ChatMemoryStore}: each add is a window
 * read and a window change), one persistent record written through the engine (a user-stated
 * decision under a new key: a write that supersedes a version also removes it from the episodic index,
 * which would measure the index rather than the store), and the window read back. A recall is one call of AgentMemory's {@code ContentRetriever} for the
 * session, after the episodic index has caught up (a real model's latency hides the background
 * indexing; see {@link TurnOverheadBench}). One thread per object.
 */
final class ChatTurns {

    private final AgentMemory memory;
    private final String recordPrefix;
    private final Random random;
    private final String[] words;
    private final Map<SessionRef, ChatMemory> chats = new HashMap<>();
    private int n;
    private String step = "nothing yet";

    /**
     * @param recordPrefix the key prefix of the records this object writes (instances writing to one
     *                     shared user use their own prefixes, as two application instances would
     *                     write different facts)
     */
    ChatTurns(AgentMemory memory, String recordPrefix, long seed) {
        this.memory = memory;
        this.recordPrefix = recordPrefix;
        this.random = new Random(seed);
        this.words = Words.vocabulary(2_000, new Random(seed));
    }

    /** Writes {@code records} persistent records for the session's user, in batches, so that recall ranks something. */
    void preload(SessionRef session, int records) {
        Caller caller = memory.caller(session);
        for (int from = 0; from < records; from += 200) {
            List<Proposal> batch = new ArrayList<>();
            for (int i = from; i < Math.min(records, from + 200); i++) {
                batch.add(Proposal.set(caller.persistent(), "fact." + i, Words.sentence(words, random, 10))
                        .kind(i % 20 == 0 ? Kind.PREFERENCE : Kind.DECISION).source(Source.USER).build());
            }
            for (Outcome o : memory.engine().propose(caller, batch)) {
                if (!o.isApplied()) {
                    throw new IllegalStateException("benchmark write was not applied: " + o);
                }
            }
        }
        memory.awaitIndexed();
    }

    /** One turn of the session; returns its duration in nanoseconds. */
    long turn(SessionRef session) {
        ChatMemory chat = chats.computeIfAbsent(session, s -> memory.chatMemoryProvider().get(s));
        Caller caller = memory.caller(session);
        int i = n++;
        String about = Words.sentence(words, random, 4);
        long start = System.nanoTime();
        step = "adding the user message";
        chat.add(UserMessage.from("Turn " + i + ": please remember that we chose " + about));
        step = "adding the AI reply";
        chat.add(AiMessage.from("Noted: " + about + "."));
        step = "writing the record";
        memory.engine().write(caller, Proposal.set(caller.persistent(), recordPrefix + i, about)
                .kind(Kind.DECISION).source(Source.USER).build());
        step = "reading the window";
        if (chat.messages().isEmpty()) {
            throw new IllegalStateException("the window of " + session + " is empty after a turn");
        }
        return System.nanoTime() - start;
    }

    /** What the last {@link #turn} was doing when it ended (the step a failed turn failed in). */
    String step() {
        return step;
    }

    /** One recall for the session (after waiting for the episodic index); returns its duration in nanoseconds. */
    long recall(SessionRef session) {
        String question = "What did we choose about " + Words.sentence(words, random, 3) + "?";
        Metadata metadata = Metadata.builder().chatMessage(UserMessage.from(question))
                .invocationContext(InvocationContext.builder().chatMemoryId(session).build()).build();
        Query query = Query.from(question, metadata);
        memory.awaitIndexed();
        long start = System.nanoTime();
        memory.contentRetriever().retrieve(query);
        return System.nanoTime() - start;
    }
}

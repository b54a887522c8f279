package dev.agentmemory.bench;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.event.StoredMessage;
import dev.agentmemory.langchain4j.AgentMemory;
import dev.agentmemory.langchain4j.MemoryContent;
import dev.agentmemory.langchain4j.SessionRef;
import dev.agentmemory.langchain4j.recall.HybridIndex;
import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.output.Response;
import dev.langchain4j.rag.content.Content;
import dev.langchain4j.rag.query.Metadata;
import dev.langchain4j.rag.query.Query;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Our recall as an application meets it: each conversation is one user's chat sessions, written
 * turn by turn through {@link AgentMemory#chatMemoryStore()} with the engine's clock at the turn's
 * time (the session's date); each question is asked through {@link AgentMemory#contentRetriever()}
 * from a session of its own, and the episodic messages it returns are mapped back to turn ids.
 */
final class PublicPathRecall implements AutoCloseable {

    static final String TENANT = "locomo";

    /** The engine's clock, set by the benchmark. */
    static final class SettableClock extends Clock {
        private volatile Instant now = Instant.EPOCH;

        void set(Instant t) {
            now = t;
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }

    /** Embeds through the benchmark's cache, so every variant reuses the same vectors. */
    private static final class CachedModel implements EmbeddingModel {
        private final BenchContext context;

        CachedModel(BenchContext context) {
            this.context = context;
        }

        @Override
        public Response<List<Embedding>> embedAll(List<TextSegment> segments) {
            return Response.from(context.embedAll(segments.stream().map(TextSegment::text).toList()).stream()
                    .map(Embedding::from).toList());
        }

        @Override
        public int dimension() {
            return context.model().dimension();
        }
    }

    private final SettableClock clock = new SettableClock();
    private final AgentMemory memory;
    /** "message:session#index" to turn id, per user. */
    private final Map<String, Map<String, String>> turnIds = new HashMap<>();

    PublicPathRecall(BenchContext context, int maxResults, Consumer<HybridIndex.Builder> index) {
        this.memory = AgentMemory.builder()
                .engineSettings(e -> e.clock(clock))
                .embeddingModel(new CachedModel(context))
                .resultsPerLayer(20, 10, maxResults)
                .recallIndex(index)
                .build();
    }

    /** Writes one conversation as the sessions of user {@code user}. */
    void add(String user, List<LocomoSuite.Turn> turns) {
        Map<String, List<ChatMessage>> sessions = new HashMap<>();
        Map<String, List<String>> idsBySession = new HashMap<>();
        String firstSpeaker = turns.isEmpty() ? "" : turns.get(0).speaker();
        for (LocomoSuite.Turn t : turns) {
            String session = t.session();
            List<ChatMessage> window = sessions.computeIfAbsent(session, s -> new ArrayList<>());
            window.add(t.speaker().equals(firstSpeaker) ? UserMessage.from(t.text()) : AiMessage.from(t.text()));
            idsBySession.computeIfAbsent(session, s -> new ArrayList<>()).add(t.id());
            clock.set(t.time());
            memory.chatMemoryStore().updateMessages(new SessionRef(TENANT, user, session), List.copyOf(window));
        }
        Caller caller = memory.caller(new SessionRef(TENANT, user, "questions"));
        Map<String, String> ids = turnIds.computeIfAbsent(user, u -> new HashMap<>());
        idsBySession.forEach((session, list) -> {
            int i = 0;
            for (StoredMessage m : memory.engine().messages().history(caller, session).values()) {
                ids.put("message:" + session + "#" + m.index(), list.get(i++));
            }
        });
        memory.awaitIndexed();
    }

    /** The turn ids of the episodic messages the retriever returns for the question, in order. */
    List<String> ask(String user, String question, Instant now) {
        clock.set(now);
        SessionRef asking = new SessionRef(TENANT, user, "questions");
        List<Content> contents = memory.contentRetriever()
                .retrieve(Query.from(question, Metadata.from(UserMessage.from(question), asking, List.of())));
        Map<String, String> ids = turnIds.getOrDefault(user, Map.of());
        List<String> out = new ArrayList<>();
        for (Content c : contents) {
            String turn = ids.get(c.textSegment().metadata().getString(MemoryContent.ID));
            if (turn != null) {
                out.add(turn);
            }
        }
        return out;
    }

    @Override
    public void close() {
        memory.close();
    }
}

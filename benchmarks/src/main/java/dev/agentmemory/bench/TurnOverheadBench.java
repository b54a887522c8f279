package dev.agentmemory.bench;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.Proposal.Outcome;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.langchain4j.AgentMemory;
import dev.agentmemory.langchain4j.SessionRef;
import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.memory.chat.ChatMemoryProvider;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.output.Response;
import dev.langchain4j.rag.AugmentationRequest;
import dev.langchain4j.rag.AugmentationResult;
import dev.langchain4j.rag.RetrievalAugmentor;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.UserMessage;
import org.jspecify.annotations.Nullable;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Random;

/**
 * The plugin's whole overhead per AiService turn with 10,000 stored memories for one user: a
 * real {@link AiServices} assistant with our chat memory provider and retrieval augmentor on an
 * H2 file (episodic index on disk next to it), a session with state and history, and a model
 * that answers at once. Per turn the time spent in the model and in computing embeddings (query
 * embedding at recall, message embeddings at commit) is measured and subtracted; what remains is
 * retrieval (state, persistent, episodic search), framing, persisting both messages and indexing
 * them. Embeddings come from a deterministic hashing model (a bag of seeded random word vectors)
 * so that loading 10,000 memories takes seconds; the real model's cost per query is reported by
 * the recall part of the suite. For comparison the same turns run on the in-memory event store
 * and index, where nothing is fsynced: the difference is the price of durability.
 */
final class TurnOverheadBench {

    interface Assistant {
        String chat(@MemoryId Object session, @UserMessage String text);
    }

    private final Path dir;
    private final int turns;
    private final int slowTurns;
    private final long modelMillis;

    /**
     * {@code turns} with a model that answers at once, then {@code slowTurns} with a model that
     * takes {@code modelMillis} (its time is excluded too): an instant model makes each recall
     * wait for the previous reply's background indexing, a real model's latency hides it.
     */
    TurnOverheadBench(Path dir, int turns, int slowTurns, long modelMillis) {
        this.dir = dir;
        this.turns = turns;
        this.slowTurns = slowTurns;
        this.modelMillis = modelMillis;
    }

    /**
     * On the durable H2 file store: both phases. Then, for comparison, the same workload on the
     * in-memory event store and index (nothing fsynced), model latency phase only.
     */
    ObjectNode run(int memories, PrintStream out) throws Exception {
        Path where = Files.createDirectories(dir.resolve("turn-overhead"));
        HashingEmbeddingModel embeddings = new HashingEmbeddingModel(384);
        ObjectNode json = measure(AgentMemory.builder().h2File(where.resolve("memory")).embeddingModel(embeddings),
                embeddings, memories, turns, slowTurns, "H2 file", out);
        if (slowTurns > 0) {
            HashingEmbeddingModel inMemoryEmbeddings = new HashingEmbeddingModel(384);
            ObjectNode inMemory = measure(AgentMemory.builder().embeddingModel(inMemoryEmbeddings), inMemoryEmbeddings,
                    memories, 0, slowTurns, "in-memory store", out);
            json.set("in_memory_store", inMemory.get("with_model_latency"));
        }
        return json;
    }

    private ObjectNode measure(AgentMemory.Builder builder, HashingEmbeddingModel embeddings, int memories,
                               int instantTurns, int latencyTurns, String storeName, PrintStream out) throws Exception {
        Random random = new Random(5);
        String[] words = Words.vocabulary(4_000, random);
        SessionRef session = new SessionRef("bench", "user-1", "chat-1");
        ObjectNode json = JsonNodeFactory.instance.objectNode();
        try (AgentMemory memory = builder.build()) {
            MemoryEngine engine = memory.engine();
            Caller caller = memory.caller(session);
            long loadStart = System.nanoTime();
            for (int from = 0; from < memories; from += 500) {
                List<Proposal> batch = new ArrayList<>();
                for (int i = from; i < Math.min(memories, from + 500); i++) {
                    Kind kind = i % 100 == 0 ? Kind.PREFERENCE : Kind.DECISION;
                    batch.add(Proposal.set(caller.persistent(), "fact." + i, Words.sentence(words, random, 10))
                            .kind(kind).source(Source.USER).build());
                }
                for (Outcome o : engine.propose(caller, batch)) {
                    if (!o.isApplied()) {
                        throw new IllegalStateException("benchmark write was not applied: " + o);
                    }
                }
            }
            for (int i = 0; i < 5; i++) {
                engine.write(caller, Proposal.set(caller.session(session.session()), "state." + i,
                        Words.sentence(words, random, 4)).kind(Kind.DECISION).source(Source.USER).build());
            }
            double loadSeconds = (System.nanoTime() - loadStart) / 1e9;

            TimedModel model = new TimedModel();
            TimedChatMemoryStore store = new TimedChatMemoryStore(memory.chatMemoryStore(), true);
            TimedAugmentor augmentor = new TimedAugmentor(memory.retrievalAugmentor());
            ChatMemoryProvider provider = id -> MessageWindowChatMemory.builder().id(id).maxMessages(20)
                    .chatMemoryStore(store).build();
            Assistant assistant = AiServices.builder(Assistant.class).chatModel(model).chatMemoryProvider(provider)
                    .retrievalAugmentor(augmentor).build();
            embeddings.measured = Thread.currentThread();
            json.put("memories", memories);
            json.put("store", storeName);
            json.put("load_seconds", Stats.round(loadSeconds));
            json.put("embeddings", "hashing model (excluded); model call excluded");
            if (instantTurns > 0) {
                ObjectNode instant = phase(assistant, session, model, store, augmentor, embeddings, words, random,
                        instantTurns, 0);
                json.put("turns", instantTurns);
                json.setAll(instant);
                print(out, memories + " memories, " + storeName + ", model answers at once", instant);
            }
            if (latencyTurns > 0) {
                ObjectNode slow = phase(assistant, session, model, store, augmentor, embeddings, words, random,
                        latencyTurns, modelMillis);
                slow.put("turns", latencyTurns);
                slow.put("model_ms", modelMillis);
                json.set("with_model_latency", slow);
                print(out, memories + " memories, " + storeName + ", model takes " + modelMillis + " ms", slow);
            }
        }
        return json;
    }

    private static ObjectNode phase(Assistant assistant, SessionRef session, TimedModel model, TimedChatMemoryStore store,
                                    TimedAugmentor augmentor, HashingEmbeddingModel embeddings, String[] words,
                                    Random random, int turns, long modelMillis) {
        model.latencyMillis = modelMillis;
        int warmup = Math.max(10, turns / 5);
        double[] overhead = new double[turns];
        double[] retrieve = new double[turns];
        double[] persist = new double[turns];
        double[] embedding = new double[turns];
        for (int t = 0; t < warmup + turns; t++) {
            String question = "What did I decide about " + Words.sentence(words, random, 3) + " and "
                    + Words.sentence(words, random, 2) + "?";
            embeddings.nanos = 0;
            model.nanos = 0;
            store.nanos = 0;
            augmentor.nanos = 0;
            augmentor.embedNanos = 0;
            augmentor.embeddings = embeddings;
            long start = System.nanoTime();
            assistant.chat(session, question);
            long took = System.nanoTime() - start;
            if (t >= warmup) {
                int i = t - warmup;
                overhead[i] = (took - model.nanos - embeddings.nanos) / 1e6;
                retrieve[i] = (augmentor.nanos - augmentor.embedNanos) / 1e6;
                persist[i] = (store.nanos - (embeddings.nanos - augmentor.embedNanos)) / 1e6;
                embedding[i] = embeddings.nanos / 1e6;
            }
        }
        ObjectNode json = JsonNodeFactory.instance.objectNode();
        json.put("overhead_median", Stats.round(Stats.percentile(overhead, 50)));
        json.put("overhead_p99", Stats.round(Stats.percentile(overhead, 99)));
        json.put("retrieve_and_frame_median", Stats.round(Stats.percentile(retrieve, 50)));
        json.put("retrieve_and_frame_p99", Stats.round(Stats.percentile(retrieve, 99)));
        json.put("persist_median", Stats.round(Stats.percentile(persist, 50)));
        json.put("persist_p99", Stats.round(Stats.percentile(persist, 99)));
        json.put("excluded_embedding_median", Stats.round(Stats.percentile(embedding, 50)));
        return json;
    }

    private static void print(PrintStream out, String title, ObjectNode j) {
        out.printf("%nPlugin overhead per AiService turn, %s (model and embeddings excluded), ms%n", title);
        out.printf("%-28s %10s %10s%n", "part", "median", "p99");
        out.printf("%-28s %10s %10s%n", "whole turn overhead", Stats.f3(j.get("overhead_median").asDouble()),
                Stats.f3(j.get("overhead_p99").asDouble()));
        out.printf("%-28s %10s %10s%n", "  retrieve + frame", Stats.f3(j.get("retrieve_and_frame_median").asDouble()),
                Stats.f3(j.get("retrieve_and_frame_p99").asDouble()));
        out.printf("%-28s %10s %10s%n", "  persist (indexing queued)", Stats.f3(j.get("persist_median").asDouble()),
                Stats.f3(j.get("persist_p99").asDouble()));
    }

    /** Answers after {@code latencyMillis} and records how long it took. */
    private static final class TimedModel implements ChatModel {
        long nanos;
        long latencyMillis;
        private int n;

        @Override
        public ChatResponse doChat(ChatRequest request) {
            long t = System.nanoTime();
            if (latencyMillis > 0) {
                try {
                    Thread.sleep(latencyMillis);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted", e);
                }
            }
            ChatResponse r = ChatResponse.builder().aiMessage(AiMessage.from("Noted, answer " + (n++) + ".")).build();
            nanos += System.nanoTime() - t;
            return r;
        }
    }

    private static final class TimedAugmentor implements RetrievalAugmentor {
        private final RetrievalAugmentor delegate;
        /** Set before each measured turn. */
        @Nullable HashingEmbeddingModel embeddings;
        long nanos;
        long embedNanos;

        TimedAugmentor(RetrievalAugmentor delegate) {
            this.delegate = delegate;
        }

        @Override
        public AugmentationResult augment(AugmentationRequest request) {
            HashingEmbeddingModel m = Objects.requireNonNull(embeddings, "embeddings set before the turn");
            long e = m.nanos;
            long t = System.nanoTime();
            AugmentationResult r = delegate.augment(request);
            nanos += System.nanoTime() - t;
            embedNanos += m.nanos - e;
            return r;
        }
    }

    /**
     * A deterministic embedding: the normalised sum of one seeded random vector per lower-cased
     * word. Texts sharing words get similar vectors; cheap enough to embed 10,000 memories in
     * seconds. Records the time spent embedding.
     */
    static final class HashingEmbeddingModel implements EmbeddingModel {
        private final int dimensions;
        /** Time spent embedding on the {@link #measured} thread (all threads while it is null). */
        volatile long nanos;
        /** The turn's thread: embeddings on the background indexer are not part of a turn's time. */
        volatile @Nullable Thread measured;

        HashingEmbeddingModel(int dimensions) {
            this.dimensions = dimensions;
        }

        @Override
        public Response<List<Embedding>> embedAll(List<TextSegment> segments) {
            long t = System.nanoTime();
            List<Embedding> out = new ArrayList<>(segments.size());
            for (TextSegment s : segments) {
                out.add(Embedding.from(vector(s.text())));
            }
            if (measured == null || measured == Thread.currentThread()) {
                nanos += System.nanoTime() - t;
            }
            return Response.from(out);
        }

        @Override
        public Response<Embedding> embed(String text) {
            return Response.from(embedAll(List.of(TextSegment.from(text))).content().get(0));
        }

        @Override
        public Response<Embedding> embed(TextSegment segment) {
            return Response.from(embedAll(List.of(segment)).content().get(0));
        }

        @Override
        public int dimension() {
            return dimensions;
        }

        float[] vector(String text) {
            float[] v = new float[dimensions];
            boolean any = false;
            for (String w : text.toLowerCase(java.util.Locale.ROOT).split("[^\\p{L}\\p{N}]+")) {
                if (w.isEmpty()) {
                    continue;
                }
                any = true;
                Random r = new Random(w.hashCode() * 0x9E3779B97F4A7C15L);
                for (int i = 0; i < dimensions; i++) {
                    v[i] += (float) r.nextGaussian();
                }
            }
            if (!any) {
                v[0] = 1;
            }
            double norm = 0;
            for (float x : v) {
                norm += x * x;
            }
            float inv = (float) (1 / Math.sqrt(norm));
            for (int i = 0; i < dimensions; i++) {
                v[i] *= inv;
            }
            return v;
        }
    }
}

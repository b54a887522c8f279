package dev.agentmemory.bench;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentmemory.langchain4j.AgentMemory;
import dev.langchain4j.agent.tool.P;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
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
import dev.langchain4j.rag.DefaultRetrievalAugmentor;
import dev.langchain4j.rag.RetrievalAugmentor;
import dev.langchain4j.rag.content.Content;
import dev.langchain4j.rag.content.retriever.ContentRetriever;
import dev.langchain4j.rag.content.retriever.EmbeddingStoreContentRetriever;
import dev.langchain4j.rag.query.Query;
import dev.langchain4j.rag.query.router.DefaultQueryRouter;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.UserMessage;
import dev.langchain4j.store.embedding.inmemory.InMemoryEmbeddingStore;
import dev.langchain4j.store.memory.chat.InMemoryChatMemoryStore;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One AiService turn over our memory against one over LangChain4j's default memory and RAG, in
 * the same JVM, alternating turn by turn. Both assistants get the same instant scripted model
 * (a tool call on order questions, a short answer otherwise), the same tools, the same
 * all-MiniLM-L6-v2 embedding model and a retriever of the shop's own knowledge base
 * ({@code EmbeddingStoreContentRetriever} over an {@link InMemoryEmbeddingStore} of support
 * articles). Ours: {@link AgentMemory} on an H2 file (every append durable), its chat memory
 * provider and its retrieval augmentor with the knowledge base as documents. Theirs:
 * {@link InMemoryChatMemoryStore} + {@link MessageWindowChatMemory} of the same window, and a
 * {@link DefaultRetrievalAugmentor} routing to the knowledge base and to an
 * {@code EmbeddingStoreContentRetriever} over an {@link InMemoryEmbeddingStore} of the
 * conversation's messages, into which each turn's user message and reply are embedded (so both
 * sides embed the turns). A ~220-turn support conversation (orders, returns, addresses,
 * preferences, questions about earlier turns), the first turns of each side a warm-up.
 *
 * <p>Our turn is broken into parts: query embedding (on the turn's thread), recall and framing
 * (the augmentor's time without the query embedding and the knowledge base), the knowledge
 * base, persist (the chat memory store's reads and writes), and the background indexing
 * (embeddings made on the indexer thread per turn; not part of the turn's time).
 */
final class TurnVsDefaultBench {

    interface Support {
        String chat(@MemoryId String session, @UserMessage String text);
    }

    private final Path dir;
    private final EmbeddingModel model;
    private final int turns;
    private final int warmup;

    TurnVsDefaultBench(Path dir, EmbeddingModel model, int turns, int warmup) {
        this.dir = dir;
        this.model = model;
        this.turns = turns;
        this.warmup = warmup;
    }

    ObjectNode run(PrintStream out) throws Exception {
        Path where = Files.createDirectories(dir.resolve("turn-vs-default"));
        List<String> conversation = conversation(warmup + turns, new Random(27));
        InMemoryEmbeddingStore<TextSegment> articles = new InMemoryEmbeddingStore<>();
        List<TextSegment> kb = knowledgeBase();
        articles.addAll(model.embedAll(kb).content(), kb);

        // ours
        TimedEmbeddings ourEmbeddings = new TimedEmbeddings(model);
        TimedEmbeddings ourKbEmbeddings = new TimedEmbeddings(model);
        TimedRetriever ourKb = new TimedRetriever(kbRetriever(articles, ourKbEmbeddings));
        ObjectNode json = JsonNodeFactory.instance.objectNode();
        try (AgentMemory memory = AgentMemory.builder().h2File(where.resolve("memory")).embeddingModel(ourEmbeddings)
                .build()) {
            TimedChatMemoryStore ourStore = new TimedChatMemoryStore(memory.chatMemoryStore(), true);
            ChatMemoryProvider ourChats = id -> MessageWindowChatMemory.builder().id(id).maxMessages(WINDOW)
                    .chatMemoryStore(ourStore).build();
            TimedAugmentor ourAugmentor = new TimedAugmentor(memory.retrievalAugmentor(ourKb));
            Support ours = AiServices.builder(Support.class).chatModel(new SupportModel())
                    .chatMemoryProvider(ourChats).retrievalAugmentor(ourAugmentor).tools(new ShopTools()).build();

            // theirs
            TimedEmbeddings theirEmbeddings = new TimedEmbeddings(model);
            InMemoryEmbeddingStore<TextSegment> said = new InMemoryEmbeddingStore<>();
            ContentRetriever theirRecall = EmbeddingStoreContentRetriever.builder().embeddingStore(said)
                    .embeddingModel(theirEmbeddings).maxResults(5).build();
            TimedEmbeddings theirKbEmbeddings = new TimedEmbeddings(model);
            ContentRetriever theirKb = kbRetriever(articles, theirKbEmbeddings);
            InMemoryChatMemoryStore theirStore = new InMemoryChatMemoryStore();
            ChatMemoryProvider theirChats = id -> MessageWindowChatMemory.builder().id(id).maxMessages(WINDOW)
                    .chatMemoryStore(theirStore).build();
            Support theirs = AiServices.builder(Support.class).chatModel(new SupportModel()).chatMemoryProvider(theirChats)
                    .retrievalAugmentor(DefaultRetrievalAugmentor.builder()
                            .queryRouter(new DefaultQueryRouter(theirRecall, theirKb)).build())
                    .tools(new ShopTools()).build();

            String session = "support-1";
            double[] ourMs = new double[turns];
            double[] theirMs = new double[turns];
            double[] queryEmbedding = new double[turns];
            double[] recallAndFraming = new double[turns];
            double[] documents = new double[turns];
            double[] persist = new double[turns];
            double[] indexing = new double[turns];
            ourEmbeddings.turnThread = Thread.currentThread();
            long indexedBefore = ourEmbeddings.otherNanos.get();
            long turnCallsBefore = 0;
            long indexCallsBefore = 0;
            for (int t = 0; t < warmup + turns; t++) {
                String text = conversation.get(t);
                if (t == warmup) {
                    turnCallsBefore = ourEmbeddings.turnCalls.get();
                    indexCallsBefore = ourEmbeddings.otherCalls.get();
                }
                // ours
                ourEmbeddings.turnNanos = 0;
                ourKb.nanos = 0;
                ourStore.nanos = 0;
                ourAugmentor.nanos = 0;
                long indexedAtStart = ourEmbeddings.otherNanos.get();
                long start = System.nanoTime();
                ours.chat(session, text);
                long ourTook = System.nanoTime() - start;
                // theirs: the turn, then its two messages embedded into the conversation's store
                start = System.nanoTime();
                String reply = theirs.chat(session, text);
                List<TextSegment> turn = List.of(TextSegment.from(text), TextSegment.from(reply));
                said.addAll(theirEmbeddings.embedAll(turn).content(), turn);
                long theirTook = System.nanoTime() - start;
                if (t >= warmup) {
                    int i = t - warmup;
                    ourMs[i] = ourTook / 1e6;
                    theirMs[i] = theirTook / 1e6;
                    queryEmbedding[i] = ourEmbeddings.turnNanos / 1e6;
                    documents[i] = ourKb.nanos / 1e6;
                    recallAndFraming[i] = (ourAugmentor.nanos - ourKb.nanos - ourEmbeddings.turnNanos) / 1e6;
                    persist[i] = ourStore.nanos / 1e6;
                    // the indexer's embeddings made while this turn and the other side's ran
                    indexing[i] = (ourEmbeddings.otherNanos.get() - indexedAtStart) / 1e6;
                }
            }
            memory.awaitIndexed();
            double ourMedian = Stats.percentile(ourMs, 50);
            double theirMedian = Stats.percentile(theirMs, 50);
            double ourP99 = Stats.percentile(ourMs, 99);
            json.put("turns", turns);
            json.put("warmup_turns", warmup);
            json.put("window", WINDOW);
            json.put("embedding_model", "AllMiniLmL6V2 (both sides)");
            json.put("knowledge_base_articles", kb.size());
            json.set("agent-memory", Stats.latency(ourMs));
            json.set(DefaultRag.NAME, Stats.latency(theirMs));
            json.put("median_ratio", Stats.ratio(ourMedian, theirMedian));
            json.put("our_p99_over_median", Stats.ratio(ourP99, ourMedian));
            ObjectNode parts = json.putObject("our_parts_ms");
            parts.set("query_embedding", Stats.latency(queryEmbedding));
            parts.set("recall_and_framing", Stats.latency(recallAndFraming));
            parts.set("knowledge_base", Stats.latency(documents));
            parts.set("persist", Stats.latency(persist));
            parts.set("indexing_background", Stats.latency(indexing));
            ObjectNode calls = json.putObject("embedding_calls_per_turn");
            calls.put("agent-memory_in_turn", Stats.round((ourEmbeddings.turnCalls.get() - turnCallsBefore) / (double) turns));
            calls.put("agent-memory_indexer", Stats.round((ourEmbeddings.otherCalls.get() - indexCallsBefore) / (double) turns));
            calls.put("agent-memory_texts_indexed", Stats.round(ourEmbeddings.otherTexts.get() / (double) (warmup + turns)));
            calls.put("indexer_ms_total", Stats.round((ourEmbeddings.otherNanos.get() - indexedBefore) / 1e6));
            print(out, json);
        }
        return json;
    }

    private static final int WINDOW = 20;

    private static ContentRetriever kbRetriever(InMemoryEmbeddingStore<TextSegment> articles, EmbeddingModel model) {
        return EmbeddingStoreContentRetriever.builder().embeddingStore(articles).embeddingModel(model).maxResults(3)
                .build();
    }

    private static void print(PrintStream out, ObjectNode j) {
        out.printf("%nTurn vs LangChain4j default (AiServices, instant model, AllMiniLmL6V2, %d turns alternating), ms%n",
                j.get("turns").asInt());
        out.printf("%-40s %10s %10s%n", "system", "median", "p99");
        row(out, "agent-memory (H2 file, durable)", j.get("agent-memory"));
        row(out, DefaultRag.NAME + " (in-memory + RAG)", j.get(DefaultRag.NAME));
        ObjectNode parts = (ObjectNode) j.get("our_parts_ms");
        parts.fieldNames().forEachRemaining(name -> row(out, "  ours: " + name.replace('_', ' '), parts.get(name)));
        out.printf("our median / theirs: %s (target <= 1.5); our p99 / our median: %s (target <= 3)%n",
                Stats.f3(j.get("median_ratio").asDouble()), Stats.f3(j.get("our_p99_over_median").asDouble()));
        out.printf("embedding calls per turn: %s%n", j.get("embedding_calls_per_turn"));
    }

    private static void row(PrintStream out, String name, com.fasterxml.jackson.databind.JsonNode latency) {
        out.printf("%-40s %10s %10s%n", name, Stats.f3(latency.get("median").asDouble()),
                Stats.f3(latency.get("p99").asDouble()));
    }

    // ------------------------------------------------------------------ the conversation

    private static final String[] PRODUCTS = {"running shoes", "rain jacket", "coffee grinder", "desk lamp",
        "wool sweater", "bike helmet", "phone case", "travel backpack", "water bottle", "yoga mat"};
    private static final String[] COLORS = {"white", "black", "navy", "green", "red", "grey"};
    private static final String[] CITIES = {"Lyon", "Porto", "Ghent", "Leeds", "Graz", "Turin"};

    /**
     * A support conversation of {@code n} user turns: orders, returns, addresses, preferences,
     * look-backs. No text repeats (a repeated question would let a cache of query vectors skip an
     * embedding that LangChain4j's retriever makes).
     */
    static List<String> conversation(int n, Random random) {
        List<String> out = new ArrayList<>(n);
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (int i = 0; out.size() < n; i++) {
            String product = PRODUCTS[random.nextInt(PRODUCTS.length)];
            String color = COLORS[random.nextInt(COLORS.length)];
            String city = CITIES[random.nextInt(CITIES.length)];
            int order = 20_240_000 + random.nextInt(9_000);
            String text = switch (i % 8) {
                case 0 -> "Hi, what is the status of order #" + order + "? It was the " + color + " " + product + ".";
                case 1 -> "I would like to exchange the " + product + " for the " + color + " one, is that possible?";
                case 2 -> "Please ship everything to my new address in " + city + ", " + (10 + random.nextInt(90))
                        + " Harbour Street, from now on.";
                case 3 -> "How long does a refund take if I return the " + product + " at the " + city + " shop?";
                case 4 -> "Can you check order #" + order + " again, the tracking page has not moved for days.";
                case 5 -> "By the way I prefer " + (random.nextBoolean() ? "email over phone calls" : "chat over email")
                        + ", and answers in " + (random.nextBoolean() ? "short sentences" : "bullet points")
                        + " when you write to me in " + city + ".";
                case 6 -> "What colour did I say I wanted for the " + product + " I pick up in " + city + "?";
                default -> "Do you have the " + product + " in " + color + " in stock in the " + city + " shop?";
            };
            if (seen.add(text)) {
                out.add(text);
            }
        }
        return out;
    }

    private static List<TextSegment> knowledgeBase() {
        List<TextSegment> kb = new ArrayList<>();
        String[] topics = {"Returns are accepted within 30 days of delivery for unused items in their box.",
            "Refunds are paid to the original payment method within 5 to 7 working days after the return arrives.",
            "Exchanges for another colour or size are free; the new item ships when the old one is scanned.",
            "Standard delivery takes 2 to 4 working days; express delivery arrives the next working day.",
            "A tracking page that has not changed for 3 days usually means the parcel waits at a depot.",
            "Address changes apply to orders that have not shipped yet; shipped orders can be redirected by the carrier.",
            "Shops hold stock for 48 hours when a customer reserves an item online.",
            "Customers choose their contact channel (email, phone, chat) in their account settings.",
            "Damaged items are replaced at no cost; a photo of the damage speeds up the claim.",
            "Gift cards cannot be refunded but can be used on any order for two years."};
        for (int i = 0; i < 40; i++) {
            String product = PRODUCTS[i % PRODUCTS.length];
            kb.add(TextSegment.from(topics[i % topics.length] + " This applies to the " + product + " range (article "
                    + (i + 1) + ")."));
        }
        return kb;
    }

    // ------------------------------------------------------------------ the model and tools

    /** The shop's tools, the same on both sides. */
    static final class ShopTools {
        @Tool("Looks up the status of an order by its number")
        String orderStatus(@P("the order number, digits only") String orderId) {
            int h = Math.floorMod(orderId.hashCode(), 3);
            return "order " + orderId + ": " + (h == 0 ? "shipped, at the depot" : h == 1 ? "delivered" : "packed");
        }
    }

    /**
     * Answers at once: a call of {@code orderStatus} when the user's message names an order
     * number, then an answer quoting the tool's result; otherwise a short acknowledgement. Each
     * side has its own, so both see the same replies.
     */
    static final class SupportModel implements ChatModel {
        private final AtomicInteger n = new AtomicInteger();

        @Override
        public ChatResponse doChat(ChatRequest request) {
            List<ChatMessage> messages = request.messages();
            ChatMessage last = messages.get(messages.size() - 1);
            if (last instanceof ToolExecutionResultMessage r) {
                return answer("I checked it: " + r.text() + ".");
            }
            String user = last instanceof dev.langchain4j.data.message.UserMessage u && u.hasSingleText() ? u.singleText() : "";
            int hash = user.indexOf("order #");
            if (hash >= 0 && hash + 15 <= user.length()) {
                String id = user.substring(hash + 7, hash + 15);
                return ChatResponse.builder().aiMessage(AiMessage.from(ToolExecutionRequest.builder()
                        .id("call-" + n.incrementAndGet()).name("orderStatus")
                        .arguments("{\"orderId\":\"" + id + "\"}").build())).build();
            }
            return answer(String.format(Locale.ROOT, "Thanks, noted (reply %d). Anything else I can do?", n.incrementAndGet()));
        }

        private static ChatResponse answer(String text) {
            return ChatResponse.builder().aiMessage(AiMessage.from(text)).build();
        }
    }

    // ------------------------------------------------------------------ timing wrappers

    /** Times and counts embedding calls, apart for the turn's thread and the others (the indexer). */
    static final class TimedEmbeddings implements EmbeddingModel {
        private final EmbeddingModel delegate;
        volatile Thread turnThread;
        long turnNanos;
        final AtomicLong turnCalls = new AtomicLong();
        final AtomicLong otherNanos = new AtomicLong();
        final AtomicLong otherCalls = new AtomicLong();
        final AtomicLong otherTexts = new AtomicLong();

        TimedEmbeddings(EmbeddingModel delegate) {
            this.delegate = delegate;
            this.turnThread = Thread.currentThread();
        }

        @Override
        public Response<List<Embedding>> embedAll(List<TextSegment> segments) {
            long t = System.nanoTime();
            Response<List<Embedding>> r = delegate.embedAll(segments);
            long took = System.nanoTime() - t;
            if (Thread.currentThread() == turnThread) {
                turnNanos += took;
                turnCalls.incrementAndGet();
            } else {
                otherNanos.addAndGet(took);
                otherCalls.incrementAndGet();
                otherTexts.addAndGet(segments.size());
            }
            return r;
        }

        @Override
        public int dimension() {
            return delegate.dimension();
        }
    }

    private static final class TimedRetriever implements ContentRetriever {
        private final ContentRetriever delegate;
        long nanos;

        TimedRetriever(ContentRetriever delegate) {
            this.delegate = delegate;
        }

        @Override
        public List<Content> retrieve(Query query) {
            long t = System.nanoTime();
            List<Content> r = delegate.retrieve(query);
            nanos += System.nanoTime() - t;
            return r;
        }
    }

    private static final class TimedAugmentor implements RetrievalAugmentor {
        private final RetrievalAugmentor delegate;
        long nanos;

        TimedAugmentor(RetrievalAugmentor delegate) {
            this.delegate = delegate;
        }

        @Override
        public AugmentationResult augment(AugmentationRequest request) {
            long t = System.nanoTime();
            AugmentationResult r = delegate.augment(request);
            nanos += System.nanoTime() - t;
            return r;
        }
    }
}

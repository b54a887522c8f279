package dev.agentmemory.langchain4j;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.event.Change;
import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.core.spi.EventStore.ForwardingEventStore;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.core.spi.StoredEvent;
import dev.agentmemory.core.spi.StoredSnapshot;
import dev.agentmemory.store.jdbc.JdbcStores;
import dev.agentmemory.core.testing.CountingStore;
import dev.agentmemory.store.jdbc.testing.PostgresTestDatabase;
import dev.agentmemory.store.jdbc.testing.RequiresPostgres;
import dev.agentmemory.langchain4j.framing.FramedItem;
import dev.agentmemory.testing.langchain4j.ScriptedChatModel;
import dev.agentmemory.testing.langchain4j.SharedEmbeddingModel;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ChatMessageSerializer;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.rag.query.Metadata;
import dev.langchain4j.rag.query.Query;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue "PostgreSQL scale-out": application instances, each with its own {@link AgentMemory}
 * (and its own in-memory episodic index), over one PostgreSQL database behave as one memory, as
 * a user meets it through AiServices: what instance A saves, supersedes or forgets is what
 * instance B's model is shown at B's next turn, in every layer of the request (memory block,
 * chat window); a memory started cold on the database serves the user the same; and a new
 * instance loads a user only on first use. Skipped without a server.
 */
@ExtendWith(RequiresPostgres.class)
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class PostgresInstancesAgentMemoryTest {

    interface Assistant {
        String chat(@MemoryId SessionRef session, @dev.langchain4j.service.UserMessage String text);
    }

    private static final SessionRef ON_A = new SessionRef("shop", "erin", "on-a");
    private static final SessionRef ON_A_AGAIN = new SessionRef("shop", "erin", "on-a-again");
    private static final SessionRef ON_B = new SessionRef("shop", "erin", "on-b");
    private static final SessionRef ON_C = new SessionRef("shop", "erin", "on-c");
    private static final String PARIS = "I live in Paris";
    private static final String LYON = "I moved to Lyon";
    private static final String FORGET = "Forget where I live";

    private PostgresTestDatabase pg;
    private String schema;
    private final List<AgentMemory> opened = new ArrayList<>();

    @BeforeEach
    void freshDatabase() {
        pg = PostgresTestDatabase.require(getClass());
        schema = pg.createSchema("instances");
    }

    @AfterEach
    void dropDatabase() {
        opened.forEach(AgentMemory::close);
        pg.dropSchema(schema);
    }

    /** One application instance: its own memory over the shared database, and an assistant on it. */
    private final class Instance {
        final AgentMemory memory;
        final ScriptedChatModel model;
        final Assistant assistant;

        Instance() {
            this(null);
        }

        /** An instance over {@code store} (a wrapper of the shared database), or its own connection pool when null. */
        Instance(@org.jspecify.annotations.Nullable EventStore store) {
            AgentMemory.Builder builder = AgentMemory.builder();
            if (store != null) {
                builder.store(store);
            } else {
                builder.jdbc(pg.urlOf(schema), pg.user(), pg.password());
            }
            memory = builder
                    .embeddingModel(SharedEmbeddingModel.get()).resultsPerLayer(20, 10, 10)
                    .windowSize(6).summarizer(SUMMARIES, 2).build();
            opened.add(memory);
            model = new ScriptedChatModel(r -> agent(memory, r));
            assistant = AiServices.builder(Assistant.class).chatModel(model)
                    .chatMemoryProvider(memory.chatMemoryProvider())
                    .retrievalAugmentor(memory.retrievalAugmentor())
                    .tools(memory.tools()).build();
        }

        /** One turn; returns the first request the model received for it (the one with the memory block). */
        ChatRequest turn(SessionRef session, String text) {
            int before = model.requests().size();
            assistant.chat(session, text);
            return model.requests().get(before);
        }

        List<FramedItem> items(ChatRequest request) {
            return FramedRequests.items(memory, request);
        }

        /** The full serialized text of every message of the request except the memory block of the current one. */
        String outsideTheBlock(ChatRequest request) {
            StringBuilder out = new StringBuilder();
            for (ChatMessage m : request.messages()) {
                out.append(ChatMessageSerializer.messageToJson(m instanceof UserMessage u && u.hasSingleText()
                        ? UserMessage.from(memory.framer().stripFrames(u.singleText())) : m)).append('\n');
            }
            return out.toString();
        }
    }

    /** Summaries say where the excerpt says the user lives. */
    private static final ScriptedChatModel SUMMARIES = new ScriptedChatModel(r -> {
        String excerpt = ScriptedChatModel.lastUserText(r);
        return AiMessage.from(excerpt.contains("Lyon") ? "The user lives in Lyon." : excerpt.contains("Paris")
                ? "The user lives in Paris." : "Small talk.");
    });

    /** Saves the city the user states with the remember tool, forgets it when asked, else answers without values. */
    private static AiMessage agent(AgentMemory memory, ChatRequest r) {
        ChatMessage last = r.messages().get(r.messages().size() - 1);
        if (last instanceof ToolExecutionResultMessage) {
            return AiMessage.from("Noted.");
        }
        String text = memory.framer().stripFrames(ScriptedChatModel.lastUserText(r));
        if (text.contains(PARIS) || text.contains(LYON)) {
            String city = text.contains(PARIS) ? "Paris" : "Lyon";
            return tool("remember", "{\"key\":\"home.city\",\"value\":\"" + city + "\",\"kind\":\"fact\","
                    + "\"userQuote\":\"" + (city.equals("Paris") ? PARIS : LYON) + "\"}");
        }
        if (text.contains(FORGET)) {
            return tool("forget", "{\"key\":\"home.city\",\"scope\":\"persistent\",\"userQuote\":\"" + FORGET + "\"}");
        }
        return AiMessage.from("Sure.");
    }

    private static AiMessage tool(String name, String arguments) {
        return AiMessage.from(ToolExecutionRequest.builder().id("call-" + name).name(name).arguments(arguments).build());
    }

    /** What an instance recalls for the question in a session of its own: layer, status and text of each content. */
    private static List<String> probe(Instance i) {
        SessionRef probe = new SessionRef("shop", "erin", "probe");
        return i.memory.contentRetriever().retrieve(Query.from("Where do I live now?",
                        new Metadata(UserMessage.from("Where do I live now?"), probe, List.of())))
                .stream().map(c -> c.textSegment().metadata().getString(MemoryContent.LAYER) + " "
                        + c.textSegment().metadata().getString(MemoryContent.STATUS) + " " + c.textSegment().text())
                .toList();
    }

    private static String full(ChatRequest request) {
        StringBuilder out = new StringBuilder();
        request.messages().forEach(m -> out.append(ChatMessageSerializer.messageToJson(m)).append('\n'));
        return out.toString();
    }

    private static List<FramedItem> layer(List<FramedItem> items, String layer) {
        return items.stream().filter(i -> layer.equals(i.extra().get(FramedItem.LAYER))).toList();
    }

    /** Lyon is the current value in every layer; Paris appears only in items labelled superseded by it. */
    private static void showsOnlyLyon(Instance i, ChatRequest request) {
        List<FramedItem> items = i.items(request);
        assertThat(layer(items, "persistent")).as("persistent items of %s", items)
                .filteredOn(it -> it.text().startsWith("home.city"))
                .singleElement().satisfies(it -> {
                    assertThat(it.text()).isEqualTo("home.city = Lyon");
                    assertThat(it.status()).isEqualTo("current");
                });
        assertThat(items).as("items saying Paris").filteredOn(it -> it.text().contains("Paris"))
                .allSatisfy(it -> {
                    assertThat(it.status()).isEqualTo("superseded");
                    assertThat(it.extra().get(FramedItem.SUPERSEDED_BY)).startsWith("home.city@");
                });
        assertThat(i.outsideTheBlock(request)).as("the request outside its memory block").doesNotContain("Paris");
    }

    private static void showsNoCity(ChatRequest request) {
        assertThat(full(request)).as("every message of the request, memory block included")
                .doesNotContain("Paris").doesNotContain("Lyon");
    }

    @Test
    void should_show_what_another_instance_saved_superseded_and_forgot_at_the_next_turn_in_every_layer() {
        Instance a = new Instance();
        Instance b = new Instance();

        // A: the user states a fact, the model saves it
        a.turn(ON_A, PARIS + ", by the way.");

        // B, next turn of the same user in another session: the fact (records layer) and A's message (episodic)
        ChatRequest first = b.turn(ON_B, "Where do I live?");
        List<FramedItem> items = b.items(first);
        assertThat(layer(items, "persistent")).extracting(FramedItem::text, FramedItem::status)
                .contains(org.assertj.core.groups.Tuple.tuple("home.city = Paris", "current"));
        assertThat(layer(items, "episodic")).extracting(FramedItem::text).contains(PARIS + ", by the way.");

        // B continues A's session: its chat window holds A's turn (statement, tool call and result, answer)
        ChatRequest continued = b.turn(ON_A, "Do you know my job?");
        assertThat(continued.messages()).contains(UserMessage.from(PARIS + ", by the way."), AiMessage.from("Noted."));
        assertThat(continued.messages()).anySatisfy(m -> assertThat(m).isInstanceOf(ToolExecutionResultMessage.class));

        // A supersedes it, in the same session: A's window holds B's turn
        ChatRequest moving = a.turn(ON_A, LYON + " last month.");
        assertThat(moving.messages()).contains(UserMessage.from("Do you know my job?"), AiMessage.from("Sure."));

        // B's next request shows only the new value as current, in every layer
        ChatRequest afterMove = b.turn(ON_B, "Where do I live now?");
        showsOnlyLyon(b, afterMove);
        // including the summary A made of the messages that left the window (which said Paris)
        assertThat(layer(b.items(afterMove), "summary")).extracting(FramedItem::text, FramedItem::status)
                .contains(org.assertj.core.groups.Tuple.tuple("The user lives in Paris.", "superseded"));
        // and B, continuing A's session, is sent A's turn
        ChatRequest thanks = b.turn(ON_A, "Thanks.");
        assertThat(thanks.messages()).contains(UserMessage.from(LYON + " last month."));
        showsOnlyLyon(b, thanks);

        // a memory started cold on the database serves the user the same
        Instance c = new Instance();
        // what B's index learnt from A's followed events is what C's built from the log
        assertThat(probe(b)).as("B's recall").isNotEmpty().isEqualTo(probe(c));
        ChatRequest cold = c.turn(ON_C, "Where do I live now?");
        showsOnlyLyon(c, cold);

        // A forgets it, asked in another session of the user
        a.turn(ON_A_AGAIN, FORGET + ", please.");
        // the first thing B is asked for is the window of the session where the city was said:
        // it holds the messages as they are now, redacted
        assertThat(b.memory.chatMemoryStore().getMessages(ON_A)).extracting(ChatMessageSerializer::messageToJson)
                .isNotEmpty().noneMatch(j -> j.contains("Paris") || j.contains("Lyon"));
        // the first thing C is asked for is what it last showed the model in its session: nothing of it
        assertThat(c.memory.lastRecall(ON_C)).isEmpty();
        // and no layer of B's or C's next request says either city
        showsNoCity(b.turn(ON_B, "Where do I live?"));
        showsNoCity(c.turn(ON_C, "Where do I live?"));
        ChatRequest window = b.turn(ON_A, "Anything else?");
        showsNoCity(window);
        assertThat(window.messages()).contains(UserMessage.from("Thanks."));

        // nor does a memory started cold after the forget, which recalls just what B and C do
        Instance d = new Instance();
        assertThat(probe(b)).isNotEmpty().isEqualTo(probe(d)).isEqualTo(probe(c))
                .noneMatch(t -> t.contains("Paris") || t.contains("Lyon"));
        showsNoCity(d.turn(ON_C, "Where do I live?"));
    }

    /**
     * Another instance follows a forget while the forgetting instance is still dropping the
     * summaries built from the forgotten value: the forget still succeeds, once, and no summary
     * of it is left.
     */
    @Test
    void should_forget_through_the_summaries_when_another_instance_follows_the_forget_before_they_are_dropped() {
        Instance b = new Instance();
        Caller erin = Caller.of("shop", "erin");
        java.util.concurrent.atomic.AtomicBoolean armed = new java.util.concurrent.atomic.AtomicBoolean();
        // A's store: right after A appends the forget itself, B catches up (before A's summarizer runs)
        EventStore onA = new ReadsLog(JdbcStores.connect(pg.urlOf(schema), pg.user(), pg.password())) {
            @Override
            public void append(Partition partition, long expectedLastSeq, List<StoredEvent> events) {
                super.append(partition, expectedLastSeq, events);
                if (events.stream().anyMatch(e -> e.type().equals("records-forgotten")) && armed.compareAndSet(true, false)) {
                    b.memory.engine().admin().sync(erin);
                }
            }
        };
        Instance a = new Instance(onA);
        a.turn(ON_A, PARIS + ", by the way.");
        a.turn(ON_A, "Tell me a joke.");
        a.turn(ON_A, "Another one.");
        b.turn(ON_B, "Hello.");
        assertThat(a.memory.engine().servable(erin, dev.agentmemory.core.Scope.Layer.SESSION)).as("summaries")
                .anySatisfy(k -> assertThat(k.current().text()).contains("Paris"));

        armed.set(true);
        a.turn(ON_A_AGAIN, FORGET + ", please.");

        assertThat(armed).as("B followed the forget").isFalse();
        // one forget of the fact and one of the summary that stated it, whichever instance dropped it
        assertThat(a.memory.engine().admin().log(erin)).filteredOn(e -> e.change() instanceof Change.RecordsForgotten)
                .hasSize(2);
        assertThat(a.model.requests().get(a.model.requests().size() - 1).messages())
                .filteredOn(m -> m instanceof ToolExecutionResultMessage).last()
                .satisfies(m -> assertThat(((ToolExecutionResultMessage) m).text()).startsWith("Forgot home.city"));
        for (Instance i : List.of(a, b, new Instance())) {
            showsNoCity(i.turn(ON_C, "Where do I live?"));
        }
    }

    /**
     * A new instance replays no user when it starts, and the first call for a user reads that
     * user only, from the user's snapshot on.
     */
    @Test
    void should_read_no_user_when_built_and_only_the_user_of_the_first_call_from_its_snapshot() {
        int users = 30;
        int writesPerUser = 12;
        try (MemoryEngine writer = MemoryEngine.builder()
                .store(JdbcStores.connect(pg.urlOf(schema), pg.user(), pg.password())).snapshotEvery(10).build()) {
            for (int u = 0; u < users; u++) {
                Caller caller = Caller.of("shop", "user" + u);
                for (int w = 0; w < writesPerUser; w++) {
                    writer.write(caller, Proposal.set(caller.persistent(), "fact" + w, "value " + w + " of user " + u)
                            .kind(Kind.PREFERENCE).build());
                }
            }
        }
        ReadsLog reads = new ReadsLog(JdbcStores.connect(pg.urlOf(schema), pg.user(), pg.password()));
        CountingStore counting = new CountingStore(reads);
        AgentMemory memory = AgentMemory.builder().store(counting).embeddingModel(SharedEmbeddingModel.get()).build();
        opened.add(memory);
        assertThat(reads.reads).as("reads while building the memory").isEmpty();
        assertThat(counting.eventsRead()).isZero();

        ScriptedChatModel model = new ScriptedChatModel(r -> agent(memory, r));
        Assistant assistant = AiServices.builder(Assistant.class).chatModel(model)
                .chatMemoryProvider(memory.chatMemoryProvider())
                .retrievalAugmentor(memory.retrievalAugmentor())
                .tools(memory.tools()).build();
        assistant.chat(new SessionRef("shop", "user7", "s1"), "What is fact3?");

        Partition user7 = new Partition("shop", "user7");
        assertThat(reads.reads).as("reads of the first turn").isNotEmpty()
                .allSatisfy(r -> assertThat(r.partition()).isEqualTo(user7));
        Read first = reads.reads.get(0);
        assertThat(first.what()).isEqualTo("snapshot");
        assertThat(reads.reads.get(1)).as("the state loads from the snapshot on").isEqualTo(new Read(user7, "events", 10));
        // the episodic index's first catch-up reads the user's log once; nothing else reads events
        assertThat(counting.eventsRead()).isLessThanOrEqualTo(2L * writesPerUser);
        assertThat(model.lastRequest().messages().get(model.lastRequest().messages().size() - 1).toString())
                .contains("value 3 of user 7");
    }

    /** One read of the store: a snapshot, or the events after a sequence. */
    record Read(Partition partition, String what, long afterSeq) {
    }

    /** Passes every call on and records which partition each read was for. */
    private static class ReadsLog extends ForwardingEventStore {
        final List<Read> reads = new CopyOnWriteArrayList<>();

        ReadsLog(EventStore delegate) {
            super(delegate);
        }

        @Override
        public List<StoredEvent> read(Partition partition, long afterSeq) {
            reads.add(new Read(partition, "events", afterSeq));
            return super.read(partition, afterSeq);
        }

        @Override
        public List<Partition> partitions(String tenant) {
            reads.add(new Read(new Partition(tenant, "*"), "partitions", -1));
            return super.partitions(tenant);
        }

        @Override
        public Optional<StoredSnapshot> snapshot(Partition partition) {
            reads.add(new Read(partition, "snapshot", -1));
            return super.snapshot(partition);
        }
    }
}

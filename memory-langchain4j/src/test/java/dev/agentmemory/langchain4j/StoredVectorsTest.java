package dev.agentmemory.langchain4j;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ForgetMode;
import dev.agentmemory.core.ForgetTarget;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.core.spi.StoredVector;
import dev.agentmemory.core.spi.VectorModel;
import dev.agentmemory.store.jdbc.JdbcStores;
import dev.agentmemory.testing.langchain4j.ScriptedChatModel;
import dev.agentmemory.testing.langchain4j.SharedEmbeddingModel;
import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.output.Response;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Embeddings are computed once, where the text is written, and kept in the database next to the
 * events: another instance over the same database that follows the user's log loads them instead
 * of embedding the texts again, and a forget (soft, hard, of the whole user) leaves no vector of
 * the forgotten text in the database. Two {@link AgentMemory} instances on one H2 database, each
 * with its own episodic index, used through AiServices.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class StoredVectorsTest {

    interface Assistant {
        String chat(@MemoryId SessionRef session, @dev.langchain4j.service.UserMessage String text);
    }

    /** The real model; remembers every text it embedded. */
    static final class CountingModel implements EmbeddingModel {
        final List<String> embedded = new CopyOnWriteArrayList<>();

        @Override
        public Response<List<Embedding>> embedAll(List<TextSegment> segments) {
            segments.forEach(s -> embedded.add(s.text()));
            return SharedEmbeddingModel.get().embedAll(segments);
        }

        @Override
        public int dimension() {
            return SharedEmbeddingModel.get().dimension();
        }
    }

    private final JdbcDataSource database = new JdbcDataSource();
    private final List<AgentMemory> opened = new ArrayList<>();

    StoredVectorsTest() {
        database.setURL("jdbc:h2:mem:vectors-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
    }

    @AfterEach
    void closeInstances() {
        opened.forEach(AgentMemory::close);
    }

    /** One application instance over the shared database. */
    private final class Instance {
        final CountingModel embeddings = new CountingModel();
        final AgentMemory memory;
        final ScriptedChatModel model = new ScriptedChatModel(r -> AiMessage.from("Noted."));
        final Assistant assistant;

        Instance() {
            memory = AgentMemory.builder().dataSource(database).embeddingModel(embeddings).windowSize(2).build();
            opened.add(memory);
            assistant = AiServices.builder(Assistant.class).chatModel(model)
                    .chatMemoryProvider(memory.chatMemoryProvider())
                    .retrievalAugmentor(memory.retrievalAugmentor()).build();
        }

        ChatRequest turn(SessionRef session, String text) {
            int before = model.requests().size();
            assistant.chat(session, text);
            return model.requests().get(before);
        }
    }

    private static final SessionRef MORNING = new SessionRef("shop", "alice", "morning");
    private static final SessionRef EVENING = new SessionRef("shop", "alice", "evening");
    private static final List<String> SAID_ON_A = List.of("My dog is called Rex and he loves the beach",
            "I ordered the blue raincoat in size medium", "My sister lives in Lisbon", "Please call me before noon");

    @Test
    void should_load_the_vectors_another_instance_embedded_when_it_follows_the_user() {
        // given: instance A served the morning conversation and indexed it
        Instance a = new Instance();
        for (String text : SAID_ON_A) {
            a.turn(MORNING, text);
        }
        a.memory.awaitIndexed();
        assertThat(a.embeddings.embedded).containsAll(SAID_ON_A);

        // when: the user's next turn goes to instance B
        Instance b = new Instance();
        ChatRequest request = b.turn(EVENING, "What is my dog called?");
        b.memory.awaitIndexed();

        // then: B recalled A's message, and embedded only the question and its own turn's texts
        assertThat(lastUserText(request)).contains("My dog is called Rex");
        assertThat(b.embeddings.embedded).doesNotContainAnyElementsOf(SAID_ON_A);
        assertThat(b.embeddings.embedded).containsOnly("What is my dog called?", "Noted.");
    }

    @Test
    void should_load_the_vectors_after_a_restart_instead_of_embedding_the_log_again() {
        Instance before = new Instance();
        for (String text : SAID_ON_A) {
            before.turn(MORNING, text);
        }
        before.memory.awaitIndexed();
        before.memory.close();

        Instance after = new Instance();
        ChatRequest request = after.turn(EVENING, "Where does my sister live?");

        assertThat(lastUserText(request)).contains("My sister lives in Lisbon");
        assertThat(after.embeddings.embedded).doesNotContainAnyElementsOf(SAID_ON_A);
    }

    @Test
    void should_not_look_for_stored_vectors_when_indexing_its_own_writes() {
        // given: one instance over a store that counts the vector calls
        java.util.concurrent.atomic.AtomicInteger lookUps = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger saves = new java.util.concurrent.atomic.AtomicInteger();
        EventStore counting = new EventStore.ForwardingEventStore(JdbcStores.dataSource(database)) {
            @Override
            public java.util.Map<String, StoredVector> vectors(Partition p, VectorModel m, java.util.Collection<String> items) {
                lookUps.incrementAndGet();
                return super.vectors(p, m, items);
            }

            @Override
            public void saveVectors(Partition p, VectorModel m, List<StoredVector> vectors) {
                saves.incrementAndGet();
                super.saveVectors(p, m, vectors);
            }
        };
        AgentMemory memory = AgentMemory.builder().store(counting).embeddingModel(new CountingModel()).windowSize(2).build();
        opened.add(memory);
        Assistant assistant = AiServices.builder(Assistant.class).chatModel(new ScriptedChatModel(r -> AiMessage.from("Noted.")))
                .chatMemoryProvider(memory.chatMemoryProvider()).retrievalAugmentor(memory.retrievalAugmentor()).build();
        assistant.chat(MORNING, "hello"); // the first recall of the user catches up from the (empty) log
        memory.awaitIndexed();
        int before = lookUps.get();

        // when
        for (String text : SAID_ON_A) {
            assistant.chat(MORNING, text);
        }
        memory.awaitIndexed();

        // then: its own texts were kept, and nothing was looked for
        assertThat(saves.get()).isPositive();
        assertThat(lookUps.get()).isEqualTo(before);
    }

    @ParameterizedTest
    @EnumSource(ForgetMode.class)
    void should_leave_no_vector_of_a_forgotten_message_or_record_in_the_database(ForgetMode mode) throws SQLException {
        // given: a message and a record, embedded and kept in the database
        Instance a = new Instance();
        Caller alice = a.memory.caller(MORNING);
        String pin = "My card PIN is 4921, keep it safe";
        a.turn(MORNING, pin);
        a.turn(MORNING, "I ordered the blue raincoat in size medium");
        a.turn(MORNING, "Please call me before noon");
        a.memory.engine().write(alice, Proposal.set(alice.persistent(), "account.pin", "4921 for the visa card")
                .kind(Kind.DECISION).source(Source.USER).build());
        a.turn(MORNING, "Anything else?");
        a.memory.awaitIndexed();
        String record = "account.pin = 4921 for the visa card";
        assertThat(storedVectorOf(pin)).isTrue();
        assertThat(storedVectorOf(record)).isTrue();

        // when: both are forgotten, on instance A
        a.memory.engine().forget(alice, ForgetTarget.messages("morning", List.of(0L)), mode);
        a.memory.engine().forget(alice, ForgetTarget.key(alice.persistent(), MemoryKey.of("account.pin")), mode);

        // then: no vector of either text is left; the others stay
        assertThat(storedVectorOf(pin)).isFalse();
        assertThat(storedVectorOf(record)).isFalse();
        assertThat(storedVectorOf("Please call me before noon")).isTrue();
    }

    @Test
    void should_leave_no_vector_of_the_user_in_the_database_when_the_user_is_forgotten() throws SQLException {
        Instance a = new Instance();
        for (String text : SAID_ON_A) {
            a.turn(MORNING, text);
        }
        a.memory.awaitIndexed();
        assertThat(vectorRows("alice")).isPositive();
        Instance b = new Instance();
        b.turn(new SessionRef("shop", "bob", "chat"), "I prefer trains to planes");
        b.memory.awaitIndexed();

        a.memory.engine().forget(a.memory.caller(MORNING), ForgetTarget.user(), ForgetMode.HARD);

        assertThat(vectorRows("alice")).isZero();
        assertThat(vectorRows("bob")).isPositive();
    }

    private static String lastUserText(ChatRequest request) {
        return ScriptedChatModel.lastUserText(request);
    }

    /** Whether the database holds a vector equal to the model's embedding of {@code text}. */
    private boolean storedVectorOf(String text) throws SQLException {
        float[] wanted = SharedEmbeddingModel.embed(text);
        try (Connection c = database.getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT vec FROM memory_vectors")) {
            while (rs.next()) {
                float[] v = new float[wanted.length];
                ByteBuffer.wrap(rs.getBytes(1)).asFloatBuffer().get(v);
                if (Arrays.equals(v, wanted)) {
                    return true;
                }
            }
        }
        return false;
    }

    private int vectorRows(String user) throws SQLException {
        try (Connection c = database.getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM memory_vectors WHERE user_id = '" + user + "'")) {
            rs.next();
            return rs.getInt(1);
        }
    }
}

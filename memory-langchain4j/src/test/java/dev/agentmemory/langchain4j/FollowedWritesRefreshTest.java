package dev.agentmemory.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ForgetMode;
import dev.agentmemory.core.ForgetTarget;
import dev.agentmemory.testing.langchain4j.ScriptedChatModel;
import dev.agentmemory.testing.langchain4j.SharedEmbeddingModel;
import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.output.Response;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Writing into the episodic index does not refresh what its searches see after every item: the
 * indexing thread refreshes once for what it wrote in a pass. An instance that follows another's
 * writes (two {@link AgentMemory} instances on one database, through AiServices) indexes a batch
 * of them with one refresh and recalls them at its next turn; a forget made while a message may
 * still be on its way into the index reaches every later read.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class FollowedWritesRefreshTest {

    interface Assistant {
        String chat(@MemoryId SessionRef session, @dev.langchain4j.service.UserMessage String text);
    }

    private static final SessionRef MORNING = new SessionRef("shop", "alice", "morning");
    private static final SessionRef EVENING = new SessionRef("shop", "alice", "evening");
    private static final List<String> SAID_ON_A = List.of("My dog is called Rex and he loves the beach",
            "I ordered the blue raincoat in size medium", "My sister lives in Lisbon", "Please call me before noon");

    /**
     * Replies that differ from each other: an assistant repeating itself writes near-duplicates,
     * and checking the second against the first needs a refresh (write-time supersession).
     */
    private static final Map<String, String> REPLIES = Map.of(
            SAID_ON_A.get(0), "Rex sounds like a happy dog.",
            SAID_ON_A.get(1), "The raincoat ships on Tuesday.",
            SAID_ON_A.get(2), "Lisbon is a beautiful city.",
            SAID_ON_A.get(3), "We will phone in the morning.");

    private final JdbcDataSource database = new JdbcDataSource();
    private final List<AgentMemory> opened = new ArrayList<>();

    FollowedWritesRefreshTest() {
        database.setURL("jdbc:h2:mem:refresh-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
    }

    @AfterEach
    void closeInstances() {
        opened.forEach(AgentMemory::close);
    }

    /** One application instance over the shared database; remembers every request its model received. */
    private final class Instance {
        final List<String> embedded = new CopyOnWriteArrayList<>();
        final AgentMemory memory;
        final ScriptedChatModel model = new ScriptedChatModel(r -> AiMessage.from(reply(ScriptedChatModel.lastUserText(r))));
        final Assistant assistant;

        Instance() {
            EmbeddingModel counting = new EmbeddingModel() {
                @Override
                public Response<List<Embedding>> embedAll(List<TextSegment> segments) {
                    segments.forEach(s -> embedded.add(s.text()));
                    return SharedEmbeddingModel.get().embedAll(segments);
                }

                @Override
                public int dimension() {
                    return SharedEmbeddingModel.get().dimension();
                }
            };
            memory = AgentMemory.builder().dataSource(database).embeddingModel(counting).windowSize(2).build();
            opened.add(memory);
            assistant = AiServices.builder(Assistant.class).chatModel(model)
                    .chatMemoryProvider(memory.chatMemoryProvider())
                    .retrievalAugmentor(memory.retrievalAugmentor()).build();
        }

        String reply(String sent) {
            return REPLIES.getOrDefault(memory.framer().stripFrames(sent).strip(), "Noted.");
        }

        String turn(SessionRef session, String text) {
            int before = model.requests().size();
            assistant.chat(session, text);
            ChatRequest request = model.requests().get(before);
            return ScriptedChatModel.lastUserText(request);
        }
    }

    @Test
    void should_index_a_batch_of_another_instances_writes_with_one_refresh() {
        // given: instance B serves the user first, then instance A holds a conversation with them
        Instance b = new Instance();
        b.turn(EVENING, "Hello");
        b.memory.awaitIndexed();
        Instance a = new Instance();
        for (String text : SAID_ON_A) {
            a.turn(MORNING, text);
        }
        a.memory.awaitIndexed();
        long before = b.memory.recallIndexRefreshes();

        // when: B follows A's writes (eight messages, with the vectors A kept) and indexes them
        b.memory.engine().admin().sync(b.memory.caller(EVENING));
        b.memory.awaitIndexed();
        long afterFollowing = b.memory.recallIndexRefreshes();
        // and the user's next turn goes to B
        String sent = b.turn(EVENING, "What is my dog called?");
        b.memory.awaitIndexed();

        // then: following wrote all eight with one refresh; the turn's recall found them refreshed,
        // and indexing the turn's own two messages refreshed once more
        assertThat(afterFollowing).isEqualTo(before + 1);
        assertThat(b.memory.recallIndexRefreshes()).isEqualTo(before + 2);
        assertThat(sent).contains("My dog is called Rex");
        assertThat(b.embedded).doesNotContainAnyElementsOf(SAID_ON_A);
    }

    @Test
    void should_keep_a_message_forgotten_on_its_way_into_the_index_out_of_the_next_requests() {
        // given: the PIN is said, and the indexing thread may be writing it (nobody waits for it)
        Instance a = new Instance();
        a.turn(MORNING, "I ordered the blue raincoat in size medium");
        a.turn(MORNING, "My card PIN is 4921, keep it safe");

        // when: it is forgotten at once, then asked about once it has left the window
        Caller alice = a.memory.caller(MORNING);
        a.memory.engine().forget(alice, ForgetTarget.messages("morning", List.of(2L)), ForgetMode.HARD);
        a.turn(MORNING, "Please call me before noon");
        String sent = a.turn(MORNING, "What is my card PIN?");
        a.memory.awaitIndexed();
        String later = a.turn(EVENING, "What is my card PIN?");

        // then: no request showed it, before or after the indexing thread was done
        assertThat(sent).doesNotContain("4921");
        assertThat(later).doesNotContain("4921");
    }
}

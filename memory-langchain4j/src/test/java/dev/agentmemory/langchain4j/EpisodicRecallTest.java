package dev.agentmemory.langchain4j;

import dev.agentmemory.core.ForgetMode;
import dev.agentmemory.core.ForgetReceipt;
import dev.agentmemory.core.ForgetTarget;
import dev.agentmemory.testing.langchain4j.SharedEmbeddingModel;
import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.output.Response;
import dev.langchain4j.rag.content.Content;
import dev.langchain4j.rag.query.Metadata;
import dev.langchain4j.rag.query.Query;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** The episodic layer with the real embedding model. */
class EpisodicRecallTest {

    private static final SessionRef ALICE_1 = new SessionRef("acme", "alice", "s1");
    private static final SessionRef ALICE_2 = new SessionRef("acme", "alice", "s2");
    private static final SessionRef BOB_1 = new SessionRef("acme", "bob", "s1");

    @TempDir
    Path dir;

    /** Counts the texts it embeds. */
    static final class CountingModel implements EmbeddingModel {
        final AtomicInteger texts = new AtomicInteger();

        @Override
        public Response<List<Embedding>> embedAll(List<TextSegment> segments) {
            texts.addAndGet(segments.size());
            return SharedEmbeddingModel.get().embedAll(segments);
        }

        @Override
        public Response<Embedding> embed(String text) {
            texts.incrementAndGet();
            return SharedEmbeddingModel.get().embed(text);
        }

        @Override
        public Response<Embedding> embed(TextSegment segment) {
            return embed(segment.text());
        }

        @Override
        public int dimension() {
            return 384;
        }
    }

    private static List<Content> ask(AgentMemory memory, SessionRef session, String text) {
        return memory.contentRetriever().retrieve(Query.from(text, Metadata.from(UserMessage.from(text), session, List.of())));
    }

    private static List<String> episodicTexts(List<Content> contents) {
        return contents.stream().filter(c -> "episodic".equals(c.textSegment().metadata().getString(MemoryContent.LAYER)))
                .map(c -> c.textSegment().text()).toList();
    }

    private static void say(AgentMemory memory, SessionRef session, String user, String ai) {
        ChatMemory chat = memory.chatMemoryProvider().get(session);
        chat.add(UserMessage.from(user));
        chat.add(AiMessage.from(ai));
    }

    @Test
    void should_recall_a_past_session_and_embed_each_message_once() {
        CountingModel model = new CountingModel();
        try (AgentMemory memory = AgentMemory.builder().embeddingModel(model).build()) {
            // given
            say(memory, ALICE_1, "My dog is called Biscuit.", "What a lovely name!");
            say(memory, ALICE_1, "I ordered a blue kettle yesterday.", "Noted.");
            memory.awaitIndexed();
            int afterWrites = model.texts.get();

            // when
            List<Content> contents = ask(memory, ALICE_2, "What is the name of my dog?");

            // then
            assertThat(afterWrites).isEqualTo(4);
            assertThat(model.texts.get()).isEqualTo(afterWrites + 1);
            assertThat(episodicTexts(contents)).first().isEqualTo("My dog is called Biscuit.");
            Content hit = contents.stream().filter(c -> c.textSegment().text().equals("My dog is called Biscuit."))
                    .findFirst().orElseThrow();
            assertThat(hit.textSegment().metadata().toMap())
                    .containsEntry(MemoryContent.ID, "message:s1#0")
                    .containsEntry(MemoryContent.SOURCE, "user-message:s1")
                    .containsEntry(MemoryContent.TRUST, "trusted")
                    .containsKeys(MemoryContent.SCORE, MemoryContent.WHY, MemoryContent.OBSERVED_AT);
        }
    }

    @Test
    void should_not_recall_a_record_the_user_refuted() {
        try (AgentMemory memory = AgentMemory.builder().embeddingModel(SharedEmbeddingModel.get()).build()) {
            // given: a model-extracted fact, recalled
            dev.agentmemory.core.Caller caller = memory.caller(ALICE_1);
            dev.agentmemory.core.MemoryRecord rex = memory.engine().write(caller, dev.agentmemory.core.Proposal
                    .set(caller.persistent(), "pet.dog.name", "Rex").kind(dev.agentmemory.core.MemoryRecord.Kind.OBSERVATION)
                    .source(dev.agentmemory.core.MemoryRecord.Source.MODEL, "msg-1").build());
            memory.awaitIndexed();
            assertThat(ask(memory, ALICE_2, "What is my dog called?")).anySatisfy(c ->
                    assertThat(c.textSegment().text()).contains("Rex"));

            // when
            memory.engine().verification().refute(caller, rex.id(), "user: my dog is called Biscuit");

            // then: no layer serves it, the episodic index included
            assertThat(ask(memory, ALICE_2, "What is my dog called?"))
                    .allSatisfy(c -> assertThat(c.textSegment().text()).doesNotContain("Rex"));
        }
    }

    @Test
    void should_never_recall_another_users_messages() {
        try (AgentMemory memory = AgentMemory.builder().embeddingModel(SharedEmbeddingModel.get()).build()) {
            say(memory, ALICE_1, "My dog is called Biscuit.", "What a lovely name!");
            say(memory, BOB_1, "I like trains.", "Trains are great.");

            List<Content> contents = ask(memory, new SessionRef("acme", "bob", "s2"),
                    "What is the name of my dog?");

            assertThat(contents).allSatisfy(c -> assertThat(c.textSegment().text()).doesNotContain("Biscuit"));
            assertThat(episodicTexts(contents)).isNotEmpty().allSatisfy(t -> assertThat(t).containsAnyOf("trains", "Trains"));
        }
    }

    @Test
    void should_drop_the_embeddings_when_the_session_is_forgotten() {
        try (AgentMemory memory = AgentMemory.builder().embeddingModel(SharedEmbeddingModel.get()).build()) {
            say(memory, ALICE_1, "My dog is called Biscuit.", "What a lovely name!");
            assertThat(episodicTexts(ask(memory, ALICE_2, "What is my dog called?"))).contains("My dog is called Biscuit.");

            ForgetReceipt receipt = memory.engine().forget(memory.caller(ALICE_1), ForgetTarget.scope(ALICE_1.scope()),
                    ForgetMode.HARD);

            assertThat(receipt.derived()).containsEntry("embeddings", 2);
            assertThat(ask(memory, ALICE_2, "What is my dog called?"))
                    .allSatisfy(c -> assertThat(c.textSegment().text()).doesNotContain("Biscuit"));
        }
    }

    @Test
    void should_recall_after_a_restart_without_embedding_again() {
        Path db = dir.resolve("memory");
        try (AgentMemory memory = AgentMemory.builder().h2File(db).embeddingModel(SharedEmbeddingModel.get()).build()) {
            say(memory, ALICE_1, "My dog is called Biscuit.", "What a lovely name!");
        }
        CountingModel model = new CountingModel();
        try (AgentMemory memory = AgentMemory.builder().h2File(db).embeddingModel(model).build()) {
            List<Content> contents = ask(memory, ALICE_2, "What is my dog called?");

            assertThat(episodicTexts(contents)).first().isEqualTo("My dog is called Biscuit.");
            assertThat(model.texts.get()).isEqualTo(1);
        }
    }

    @Test
    void should_forget_embeddings_even_when_the_forget_happened_while_the_index_was_closed() {
        Path db = dir.resolve("memory");
        try (AgentMemory memory = AgentMemory.builder().h2File(db).embeddingModel(SharedEmbeddingModel.get()).build()) {
            say(memory, ALICE_1, "My dog is called Biscuit.", "What a lovely name!");
        }
        try (AgentMemory memory = AgentMemory.builder().h2File(db).build()) {
            memory.chatMemoryStore().deleteMessages(ALICE_1);
        }
        try (AgentMemory memory = AgentMemory.builder().h2File(db).embeddingModel(SharedEmbeddingModel.get()).build()) {
            assertThat(ask(memory, ALICE_2, "What is my dog called?"))
                    .allSatisfy(c -> assertThat(c.textSegment().text()).doesNotContain("Biscuit"));
        }
    }
}

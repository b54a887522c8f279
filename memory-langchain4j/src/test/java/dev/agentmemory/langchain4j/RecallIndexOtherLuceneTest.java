package dev.agentmemory.langchain4j;

import dev.agentmemory.store.jdbc.JdbcStores;
import dev.agentmemory.testing.langchain4j.ScriptedChatModel;
import dev.agentmemory.testing.langchain4j.SharedEmbeddingModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import org.apache.lucene.codecs.Codec;
import org.apache.lucene.codecs.FilterCodec;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application that moves between Lucene 9 and Lucene 10 (the library runs on either; see the
 * README) finds an episodic index on disk that the other version wrote, whose codec this Lucene
 * does not have. The memory opens anyway and the index is rebuilt from the log: a past message
 * still reaches the model, through the episodic index alone (the window holds two messages).
 * Through AgentMemory and AiServices with a scripted model, across a restart.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class RecallIndexOtherLuceneTest {

    private static final SessionRef MORNING = new SessionRef("shop", "alice", "morning");
    private static final SessionRef EVENING = new SessionRef("shop", "alice", "evening");
    private static final String DOG = "My dog is called Rex and he loves the beach";

    @TempDir
    Path dir;

    /** One process over the H2 file, with its episodic index in {@code index} and a window of two messages. */
    private AssistantProcess process(Path index) {
        return new AssistantProcess(AgentMemory.builder().store(JdbcStores.h2File(dir.resolve("memory")))
                .indexDirectory(index).embeddingModel(SharedEmbeddingModel.get()).windowSize(2).build());
    }

    /** The default codec's name of the Lucene version this one is not: 9.12's on Lucene 10, 10.3's on Lucene 9. */
    private static String otherLucenesCodec() {
        return Codec.getDefault().getName().equals("Lucene912") ? "Lucene103" : "Lucene912";
    }

    /** Replaces the index directory by a committed index whose segments name {@code codec}. */
    private static void writeIndexWithCodec(Path index, String codec) throws IOException {
        try (Stream<Path> files = Files.walk(index)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
        IndexWriterConfig config = new IndexWriterConfig().setCodec(new FilterCodec(codec, Codec.getDefault()) {
        });
        try (FSDirectory directory = FSDirectory.open(index); IndexWriter writer = new IndexWriter(directory, config)) {
            Document d = new Document();
            d.add(new StringField("id", "written-elsewhere", Field.Store.YES));
            writer.addDocument(d);
            writer.commit();
        }
    }

    @Test
    void should_rebuild_an_index_another_lucene_version_wrote_and_still_recall_from_it() throws IOException {
        Path index = dir.resolve("memory.recall");
        try (AssistantProcess first = process(index)) {
            first.turn(MORNING, DOG);
            first.turn(MORNING, "I ordered the blue raincoat in size medium");
            first.turn(MORNING, "Please deliver it on Friday");
            first.memory.awaitIndexed();
        }
        writeIndexWithCodec(index, otherLucenesCodec());

        try (AssistantProcess reopened = process(index)) {
            ChatRequest request = reopened.turn(EVENING, "What do you know about my dog?");

            assertThat(ScriptedChatModel.lastUserText(request)).contains(DOG);
            assertThat(request.messages().toString()).doesNotContain("written-elsewhere");
        }
    }
}

package dev.agentmemory.langchain4j.recall;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentmemory.langchain4j.AgentMemory;
import dev.agentmemory.langchain4j.AssistantProcess;
import dev.agentmemory.langchain4j.SessionRef;
import dev.agentmemory.store.jdbc.JdbcStores;
import dev.agentmemory.testing.langchain4j.ScriptedChatModel;
import dev.agentmemory.testing.langchain4j.SharedEmbeddingModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.Bits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * An episodic index written by the version before the code scan (each vector in a Lucene vector
 * field with an HNSW graph, no codes) is read as it is after an upgrade: the codes of its
 * documents are computed from their vectors when a search first needs them, and a past message
 * still reaches the model through the episodic index alone (the window holds two messages), with
 * every search past the exact-search size ({@code exactSearchBelow(0)}) going through the codes.
 * Through AgentMemory and AiServices with a scripted model, across a restart; the index is not
 * rebuilt from the log (its documents keep the earlier layout).
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class EarlierVectorLayoutTest {

    private static final SessionRef MORNING = new SessionRef("shop", "alice", "morning");
    private static final SessionRef EVENING = new SessionRef("shop", "alice", "evening");
    private static final String DOG = "My dog is called Rex and he loves the beach";

    @TempDir
    Path dir;

    /**
     * One process over the H2 file, with its episodic index in {@code index}, every search through
     * the codes, and a window of two messages.
     */
    private AssistantProcess process(Path index) {
        return new AssistantProcess(AgentMemory.builder().store(JdbcStores.h2File(dir.resolve("memory")))
                .indexDirectory(index).recallIndex(b -> b.exactSearchBelow(0))
                .embeddingModel(SharedEmbeddingModel.get()).windowSize(2).build());
    }

    /**
     * Rewrites the committed index in {@code index} as the earlier version wrote it: the same
     * documents and commit data, each vector in a Lucene vector field (the default codec's HNSW
     * format) instead of the vector and code doc values.
     */
    private static void rewriteInEarlierLayout(Path index) throws IOException {
        Path earlier = index.resolveSibling("earlier");
        try (FSDirectory from = FSDirectory.open(index); DirectoryReader reader = DirectoryReader.open(from);
             FSDirectory to = FSDirectory.open(earlier);
             IndexWriter writer = new IndexWriter(to, new IndexWriterConfig(new RecallAnalyzer()))) {
            IndexSearcher searcher = new IndexSearcher(reader);
            for (LeafReaderContext leaf : reader.leaves()) {
                Bits live = leaf.reader().getLiveDocs();
                for (int d = 0; d < leaf.reader().maxDoc(); d++) {
                    if (live != null && !live.get(d)) {
                        continue;
                    }
                    int doc = leaf.docBase + d;
                    float[] vector = IndexSchema.vectorOf(searcher, doc);
                    Document earlierDoc = IndexSchema.toDocument(IndexSchema.load(searcher.storedFields(), doc), vector);
                    earlierDoc.removeFields(IndexSchema.F_VECTOR_DATA);
                    earlierDoc.removeFields(IndexSchema.F_CODE);
                    earlierDoc.add(new KnnFloatVectorField(IndexSchema.F_VECTOR, vector, VectorSimilarityFunction.DOT_PRODUCT));
                    writer.addDocument(earlierDoc);
                }
            }
            Map<String, String> data = SegmentInfos.readLatestCommit(from).getUserData();
            writer.setLiveCommitData(data.entrySet());
            writer.commit();
        }
        try (Stream<Path> files = Files.walk(index)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
        Files.move(earlier, index);
    }

    /** How many live documents of the committed index hold their vector in the earlier layout. */
    private static int earlierLayoutDocuments(Path index) throws IOException {
        int count = 0;
        try (FSDirectory directory = FSDirectory.open(index); DirectoryReader reader = DirectoryReader.open(directory)) {
            for (LeafReaderContext leaf : reader.leaves()) {
                if (leaf.reader().getFieldInfos().fieldInfo(IndexSchema.F_VECTOR) != null
                        && leaf.reader().getFieldInfos().fieldInfo(IndexSchema.F_CODE) == null) {
                    count += leaf.reader().numDocs();
                }
            }
        }
        return count;
    }

    @Test
    void should_recall_from_an_index_written_with_vector_fields_and_no_codes() throws IOException {
        Path index = dir.resolve("memory.recall");
        try (AssistantProcess first = process(index)) {
            first.turn(MORNING, DOG);
            first.turn(MORNING, "I ordered the blue raincoat in size medium");
            first.turn(MORNING, "Please deliver it on Friday");
            first.memory.awaitIndexed();
        }
        rewriteInEarlierLayout(index);
        int earlier = earlierLayoutDocuments(index);
        assertThat(earlier).isGreaterThanOrEqualTo(3);

        try (AssistantProcess reopened = process(index)) {
            ChatRequest request = reopened.turn(EVENING, "Which pet do I have?");

            assertThat(ScriptedChatModel.lastUserText(request)).contains(DOG);
        }
        // read as it was, not emptied and rebuilt from the log
        assertThat(earlierLayoutDocuments(index)).isEqualTo(earlier);
    }
}

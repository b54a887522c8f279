package dev.agentmemory.langchain4j;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ForgetMode;
import dev.agentmemory.core.ForgetTarget;
import dev.agentmemory.core.event.StoredMessage;
import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.core.spi.StoredEvent;
import dev.agentmemory.store.jdbc.JdbcStores;
import dev.agentmemory.testing.langchain4j.ScriptedChatModel;
import dev.agentmemory.testing.langchain4j.SharedEmbeddingModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The episodic index kept next to an H2 file remembers the last event of each user's log it
 * reflects (in its commit), so that a new process applies only the events after it; what was
 * forgotten after that point, by another instance or before a crash that lost the index's last
 * changes, is removed on reopen and never comes back. Through AgentMemory and AiServices with a
 * scripted model: a past message reaches the model only through the episodic index (the window
 * holds two messages).
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class RecallIndexPositionTest {

    private static final SessionRef MORNING = new SessionRef("shop", "alice", "morning");
    private static final SessionRef NOON = new SessionRef("shop", "alice", "noon");
    private static final SessionRef EVENING = new SessionRef("shop", "alice", "evening");
    private static final String DOG = "My dog is called Rex and he loves the beach";
    private static final String PIN = "My card PIN is 4921 and my dog knows it";
    /** The PIN with its words: bare digits can turn up in a date's nanoseconds or a nonce. */
    private static final String PIN_DIGITS = "PIN is 4921";
    private static final String SISTER = "My sister lives in Lisbon with her dog";

    @TempDir
    Path dir;

    /** A store over the H2 file that notes where each read of the log starts. */
    private static final class ReadsFrom extends EventStore.ForwardingEventStore {
        final List<Long> afterSeqs = new CopyOnWriteArrayList<>();

        ReadsFrom(EventStore delegate) {
            super(delegate);
        }

        @Override
        public List<StoredEvent> read(Partition partition, long afterSeq) {
            afterSeqs.add(afterSeq);
            return super.read(partition, afterSeq);
        }
    }

    /** One process's memory over the H2 file, with its episodic index in {@code index}. */
    private final class Process extends AssistantProcess {
        final ReadsFrom store;

        Process(Path index) {
            this(new ReadsFrom(JdbcStores.h2File(dir.resolve("memory"))), index);
        }

        private Process(ReadsFrom store, Path index) {
            super(AgentMemory.builder().store(store).indexDirectory(index)
                    .embeddingModel(SharedEmbeddingModel.get()).windowSize(2).build());
            this.store = store;
        }

        Caller alice() {
            return memory.caller(MORNING);
        }

        long lastSeq() {
            return memory.engine().admin().log(alice()).size();
        }

        /** Forgets the user message of the morning that says {@code text}. */
        void forgetMorningMessage(String text) {
            long index = memory.engine().messages().history(alice(), MORNING.session()).values().stream()
                    .filter(m -> text.equals(m.text())).mapToLong(StoredMessage::index).findFirst().orElseThrow();
            memory.engine().forget(alice(), ForgetTarget.messages(MORNING.session(), List.of(index)), ForgetMode.SOFT);
        }
    }

    private static String everything(ChatRequest request) {
        return request.messages().toString();
    }

    @Test
    void should_apply_only_the_events_after_its_position_and_the_forget_another_instance_made_meanwhile() {
        Path index = dir.resolve("memory.recall");
        long position;
        // given: the morning, indexed in the index directory, closed
        try (Process first = new Process(index)) {
            first.turn(MORNING, DOG);
            first.turn(MORNING, PIN);
            first.turn(MORNING, "I ordered the blue raincoat in size medium");
            first.memory.awaitIndexed();
            position = first.lastSeq();
        }
        // and another instance, with an index of its own, adds the noon and forgets the PIN
        try (Process other = new Process(dir.resolve("other.recall"))) {
            other.turn(NOON, SISTER);
            other.turn(NOON, "Please call me before noon");
            other.forgetMorningMessage(PIN);
        }

        // when: a new process opens the first index directory, now behind the log
        try (Process reopened = new Process(index)) {
            ChatRequest request = reopened.turn(EVENING, "What do you know about my dog?");

            // then: it recalls the morning and the noon, never the forgotten PIN
            assertThat(ScriptedChatModel.lastUserText(request)).contains(DOG).contains(SISTER);
            assertThat(everything(request)).doesNotContain(PIN_DIGITS);
            // and the index caught up from its position: the log was read whole once (the
            // engine loading the user), and from the index's last event on once
            assertThat(reopened.store.afterSeqs).contains(position - 1);
            assertThat(reopened.store.afterSeqs.stream().filter(s -> s == 0)).hasSize(1);
        }
    }

    @Test
    void should_not_bring_back_what_was_forgotten_when_the_index_lost_its_last_commit() throws IOException {
        Path index = dir.resolve("memory.recall");
        Path early = dir.resolve("early.recall");
        try (Process first = new Process(index)) {
            first.turn(MORNING, DOG);
            first.turn(MORNING, PIN);
            first.turn(MORNING, "I ordered the blue raincoat in size medium");
        }
        copy(index, early);
        try (Process second = new Process(index)) {
            second.turn(NOON, "Hello again");
            second.forgetMorningMessage(PIN);
            second.turn(NOON, SISTER);
            second.turn(NOON, "Please call me before noon");
        }
        // a crash after the forget was stored and before the index committed it: the index is
        // as it was at its earlier commit
        delete(index);
        copy(early, index);

        try (Process reopened = new Process(index)) {
            ChatRequest request = reopened.turn(EVENING, "What do you know about my dog?");

            assertThat(ScriptedChatModel.lastUserText(request)).contains(DOG).contains(SISTER);
            assertThat(everything(request)).doesNotContain(PIN_DIGITS);
            // and it stays gone in the index itself, whatever the question
            assertThat(everything(reopened.turn(EVENING, "What is my card PIN?"))).doesNotContain(PIN_DIGITS);
        }
    }

    @Test
    void should_rebuild_the_users_items_when_the_index_is_ahead_of_the_log() throws IOException {
        Path index = dir.resolve("memory.recall");
        try (Process first = new Process(index)) {
            first.turn(MORNING, PIN);
            first.turn(MORNING, "I ordered the blue raincoat in size medium");
            first.turn(MORNING, "Please call me before noon");
        }
        // the database is replaced by one that never held those turns (a restore from an older
        // backup); the index directory stays
        Files.delete(dir.resolve("memory.mv.db"));
        try (Process restored = new Process(index)) {
            ChatRequest request = restored.turn(EVENING, "What is my card PIN?");

            assertThat(everything(request)).doesNotContain(PIN_DIGITS);
            restored.turn(EVENING, DOG);
            restored.turn(EVENING, "Anything else?");
            assertThat(ScriptedChatModel.lastUserText(restored.turn(EVENING, "What about my dog and my card?")))
                    .contains(DOG).doesNotContain(PIN_DIGITS);
        }
    }

    @Test
    void should_rebuild_the_users_items_when_another_log_of_as_many_events_replaced_the_one_it_followed()
            throws IOException {
        Path index = dir.resolve("memory.recall");
        long followed;
        try (Process first = new Process(index)) {
            first.turn(MORNING, PIN);
            first.turn(MORNING, "I ordered the blue raincoat in size medium");
            first.turn(MORNING, "Please call me before noon");
            followed = first.lastSeq();
        }
        // another database, whose log is as long, written later by another index: the event at the
        // index's position exists, with another time
        Files.delete(dir.resolve("memory.mv.db"));
        try (Process other = new Process(dir.resolve("other.recall"))) {
            other.turn(MORNING, SISTER);
            other.turn(MORNING, "I ordered the green umbrella in size large");
            other.turn(MORNING, "Please call me after lunch");
            assertThat(other.lastSeq()).isEqualTo(followed);
        }
        try (Process restored = new Process(index)) {
            ChatRequest request = restored.turn(EVENING, "What is my card PIN and where does my sister live?");

            assertThat(everything(request)).doesNotContain(PIN_DIGITS).contains(SISTER);
        }
    }

    private static void copy(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path f : files.toList()) {
                Path target = to.resolve(from.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(target);
                } else if (!f.getFileName().toString().equals("write.lock")) {
                    Files.copy(f, target);
                }
            }
        }
    }

    private static void delete(Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> {
                try {
                    Files.delete(f);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }
}

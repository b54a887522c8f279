package dev.agentmemory.langchain4j;

import dev.agentmemory.core.testing.RoundTripCounter.Kind;
import dev.agentmemory.store.jdbc.JdbcStores;
import dev.agentmemory.store.jdbc.testing.PostgresTestDatabase;
import dev.agentmemory.store.jdbc.testing.RequiresPostgres;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.UserMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static dev.agentmemory.langchain4j.CountedAssistant.only;
import static dev.agentmemory.langchain4j.TurnRoundTripsTest.texts;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 27, item 5, on PostgreSQL shared by instances: an AiServices turn with the memory's chat
 * memory provider, retrieval augmentor and tools checks the store's head once and appends once
 * (the user message with the reply); a turn that follows another instance's turn also reads that
 * turn's events, once. Another instance sees a turn's question together with its reply, and every
 * turn's model request holds the whole window, whichever instance served the turns before it.
 * Skipped without a server.
 */
@ExtendWith(RequiresPostgres.class)
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class PostgresTurnRoundTripsTest {

    private static final SessionRef ERIN = new SessionRef("shop", "erin", "chat-1");

    private PostgresTestDatabase pg;
    private String schema;
    private final List<CountedAssistant> opened = new ArrayList<>();

    @BeforeEach
    void freshDatabase() {
        pg = PostgresTestDatabase.require(getClass());
        schema = pg.createSchema("trips");
    }

    @AfterEach
    void dropDatabase() {
        opened.forEach(CountedAssistant::close);
        pg.dropSchema(schema);
    }

    private CountedAssistant instance(int windowSize) {
        CountedAssistant a = new CountedAssistant(JdbcStores.connect(pg.urlOf(schema), pg.user(), pg.password()), windowSize);
        opened.add(a);
        return a;
    }

    @Test
    void should_check_the_head_once_and_append_once_per_turn_on_postgresql() {
        CountedAssistant a = instance(6);
        a.assistant.chat(ERIN, "Hello, I am Erin.");
        List<Map<Kind, Long>> turns = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            turns.add(a.countTurn(ERIN, "Question " + i + "?"));
        }

        assertThat(turns).as("round trips of each turn").containsOnly(only(Kind.HEAD_CHECK, 1, Kind.APPEND, 1));
        assertThat(texts(a.memory.chatMemoryStore().getMessages(ERIN)))
                .containsExactly("Question 5?", "Noted.", "Question 6?", "Noted.", "Question 7?", "Noted.");
    }

    @Test
    void should_show_every_turn_to_the_next_one_whichever_instance_serves_it() {
        CountedAssistant[] instances = {instance(6), instance(6)};
        boolean[] served = new boolean[2];
        Random random = new Random(27);
        List<String> said = new ArrayList<>();
        int last = -1;
        for (int i = 0; i < 16; i++) {
            int which = random.nextInt(2);
            CountedAssistant a = instances[which];
            String question = "Question " + i + " to instance " + which + "?";
            a.answer.set(r -> AiMessage.from("Answer " + question));
            Map<Kind, Long> counts = a.countTurn(ERIN, question);

            List<ChatMessage> request = a.model.lastRequest().messages();
            List<String> window = said.subList(Math.max(0, said.size() - 6), said.size());
            assertThat(texts(request.subList(0, request.size() - 1))).as("turn %d on instance %d", i, which)
                    .containsExactlyElementsOf(window);
            // the other instance's turn before this one is read once, with the turn's one check (an
            // instance's first turn also loads the user and fills its episodic index)
            long catchUp = i > 0 && which != last ? 1 : 0;
            if (served[which]) {
                assertThat(counts).as("round trips of turn %d", i)
                        .isEqualTo(only(Kind.HEAD_CHECK, 1, Kind.APPEND, 1, Kind.READ, catchUp));
            }
            served[which] = true;
            said.add(question);
            said.add("Answer " + question);
            last = which;
        }
    }

    @Test
    void should_store_every_question_and_reply_once_when_two_instances_serve_one_session_at_once() throws Exception {
        CountedAssistant[] instances = {instance(6), instance(6)};
        int turns = 12;
        java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(instances.length);
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(instances.length);
        try {
            List<java.util.concurrent.Future<?>> done = new ArrayList<>();
            for (int k = 0; k < instances.length; k++) {
                CountedAssistant a = instances[k];
                int which = k;
                a.answer.set(r -> AiMessage.from("Answer to " + TurnRoundTripsTest.lastUser(a, r)));
                done.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < turns; i++) {
                        a.assistant.chat(ERIN, "Question " + i + " to instance " + which + "?");
                    }
                    return null;
                }));
            }
            for (java.util.concurrent.Future<?> f : done) {
                f.get(2, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }

        List<String> history = instances[0].memory.engine().messages()
                .history(instances[0].memory.caller(ERIN), ERIN.session()).values().stream()
                .map(m -> m.text()).toList();
        List<String> expected = new ArrayList<>();
        for (int k = 0; k < instances.length; k++) {
            for (int i = 0; i < turns; i++) {
                String question = "Question " + i + " to instance " + k + "?";
                expected.add(question);
                expected.add("Answer to " + question);
            }
        }
        assertThat(history).as("the stored history").containsExactlyInAnyOrderElementsOf(expected);
        for (int k = 0; k < instances.length; k++) {
            for (int i = 0; i < turns; i++) {
                String question = "Question " + i + " to instance " + k + "?";
                assertThat(history.indexOf(question)).as(question).isLessThan(history.indexOf("Answer to " + question));
            }
        }
        // both instances show the same window, read from the store
        assertThat(texts(instances[0].memory.chatMemoryStore().getMessages(ERIN)))
                .isEqualTo(texts(instances[1].memory.chatMemoryStore().getMessages(ERIN)));
    }

    @Test
    void should_show_another_instance_the_question_of_a_turn_with_its_reply() {
        CountedAssistant a = instance(20);
        CountedAssistant b = instance(20);
        a.assistant.chat(ERIN, "Hello, I am Erin.");
        AtomicReference<List<String>> seenByB = new AtomicReference<>();
        a.answer.set(r -> {
            seenByB.set(texts(b.memory.chatMemoryStore().getMessages(ERIN)));
            return AiMessage.from("It left on Monday.");
        });

        a.assistant.chat(ERIN, "Where is my order?");

        assertThat(seenByB.get()).as("B during A's model call").containsExactly("Hello, I am Erin.", "Noted.");
        assertThat(texts(b.memory.chatMemoryStore().getMessages(ERIN))).as("B once A answered")
                .containsExactly("Hello, I am Erin.", "Noted.", "Where is my order?", "It left on Monday.");
        b.answer.set(r -> AiMessage.from("You asked where your order is."));
        b.assistant.chat(ERIN, "What did I ask?");
        List<ChatMessage> request = b.model.lastRequest().messages();
        assertThat(request.get(request.size() - 1)).isInstanceOf(UserMessage.class);
        assertThat(texts(request.subList(0, request.size() - 1)))
                .containsExactly("Hello, I am Erin.", "Noted.", "Where is my order?", "It left on Monday.");
    }
}

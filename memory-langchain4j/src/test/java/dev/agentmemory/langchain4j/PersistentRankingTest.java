package dev.agentmemory.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ForgetMode;
import dev.agentmemory.core.ForgetReceipt;
import dev.agentmemory.core.ForgetTarget;
import dev.agentmemory.core.ScopeView.KeyState;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.Scope.Layer;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.testing.TestClock;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.rag.content.Content;
import dev.langchain4j.rag.query.Metadata;
import dev.langchain4j.rag.query.Query;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import java.time.Duration;

/** The persistent layer's bounded ranking gives what sorting every servable key would give. */
class PersistentRankingTest {

    private static final SessionRef ALICE = new SessionRef("acme", "alice", "s1");
    private static final String[] WORDS = {"red", "blue", "shoes", "order", "delivery", "tuesday", "refund", "size"};

    private static List<Content> retrieve(AgentMemory memory, String text) {
        Metadata md = Metadata.builder().chatMessage(UserMessage.from(text))
                .invocationContext(InvocationContext.builder().chatMemoryId(ALICE).build()).build();
        return memory.contentRetriever().retrieve(Query.from(text, md));
    }

    private static List<String> persistentKeys(List<Content> contents) {
        return contents.stream().filter(c -> "persistent".equals(c.textSegment().metadata().getString(MemoryContent.LAYER)))
                .map(c -> c.textSegment().metadata().getString(MemoryContent.KEY)).toList();
    }

    /** The ranking the retriever documents, applied by sorting every servable key (keys in key order). */
    private static List<String> bySortingEverything(AgentMemory memory, String text, int n) {
        Set<String> query = PersistentIndex.terms(text);
        List<KeyState> all = new ArrayList<>(memory.engine().servable(memory.caller(ALICE), Layer.PERSISTENT));
        Comparator<KeyState> ranking = Comparator.<KeyState, Boolean>comparing(k -> k.current().kind() == Kind.PREFERENCE)
                .reversed()
                .thenComparing(Comparator.<KeyState>comparingDouble(k -> overlap(query, k)).reversed())
                .thenComparing(Comparator.<KeyState, Instant>comparing(k -> k.current().recordedAt()).reversed());
        all.sort(ranking);
        return all.stream().limit(n).map(k -> k.key().path()).toList();
    }

    private static double overlap(Set<String> query, KeyState k) {
        MemoryRecord r = k.current();
        Set<String> item = PersistentIndex.terms(k.key().path().replace('.', ' ') + " " + r.text());
        return query.isEmpty() ? 0 : (double) query.stream().filter(item::contains).count() / query.size();
    }

    @Test
    void should_rank_like_a_full_sort_when_many_memories_tie_on_score_and_time() {
        // given: a fixed clock (every record has the same time), keys written in shuffled order
        Clock clock = Clock.fixed(Instant.parse("2026-03-01T10:00:00Z"), ZoneOffset.UTC);
        try (AgentMemory memory = AgentMemory.builder().engineSettings(e -> e.clock(clock)).build()) {
            Caller caller = memory.caller(ALICE);
            Random random = new Random(3);
            List<Integer> order = new ArrayList<>();
            for (int i = 0; i < 60; i++) {
                order.add(i);
            }
            Collections.shuffle(order, random);
            for (int i : order) {
                String value = WORDS[random.nextInt(WORDS.length)] + " " + WORDS[random.nextInt(WORDS.length)];
                memory.engine().write(caller, Proposal.set(caller.persistent(), MemoryKey.of("fact.k" + i),
                                dev.agentmemory.core.MemoryValue.of(value))
                        .kind(i % 17 == 0 ? Kind.PREFERENCE : Kind.DECISION).source(Source.USER).build());
            }

            for (String question : List.of("when is the delivery of my red shoes?", "refund", "nothing matches")) {
                // when
                List<String> got = persistentKeys(retrieve(memory, question));

                // then
                assertThat(got).as(question).isEqualTo(bySortingEverything(memory, question, 10));
            }
        }
    }

    @Test
    void should_drop_the_cached_terms_of_a_memory_when_it_is_forgotten() {
        // given: a memory the retriever has ranked once
        try (AgentMemory memory = AgentMemory.builder().build()) {
            Caller caller = memory.caller(ALICE);
            memory.engine().write(caller, Proposal.set(caller.persistent(), "account.pin.hint", "my dog's name")
                    .kind(Kind.DECISION).source(Source.USER).build());
            assertThat(persistentKeys(retrieve(memory, "what is my pin hint?"))).containsExactly("account.pin.hint");

            // when
            ForgetReceipt receipt = memory.engine().forget(caller,
                    ForgetTarget.key(caller.persistent(), MemoryKey.of("account.pin.hint")), ForgetMode.HARD);

            // then
            assertThat(receipt.derived()).containsEntry("persistent-terms", 1);
            assertThat(persistentKeys(retrieve(memory, "what is my pin hint?"))).isEmpty();
        }
    }

    @Test
    void should_rank_a_memory_written_after_an_earlier_query_when_asked_again() {
        // given: a first query builds the user's snapshot
        try (AgentMemory memory = AgentMemory.builder().build()) {
            Caller caller = memory.caller(ALICE);
            memory.engine().write(caller, Proposal.set(caller.persistent(), "shoe.size", "42")
                    .kind(Kind.DECISION).source(Source.USER).build());
            assertThat(persistentKeys(retrieve(memory, "which delivery day?"))).containsExactly("shoe.size");

            // when: a new memory arrives, and chat messages (which leave the revision alone) too
            memory.engine().write(caller, Proposal.set(caller.persistent(), "delivery.day", "tuesday delivery")
                    .kind(Kind.DECISION).source(Source.USER).build());
            long revision = memory.engine().recordsRevision(caller);
            memory.chatMemoryStore().updateMessages(ALICE, List.of(UserMessage.from("hello")));

            // then
            assertThat(memory.engine().recordsRevision(caller)).isEqualTo(revision);
            assertThat(persistentKeys(retrieve(memory, "which delivery day?"))).containsExactly("delivery.day", "shoe.size");
        }
    }

    @Test
    void should_mark_a_memory_to_reverify_when_its_ttl_passes_between_two_queries() {
        // given: a decision that lives one hour, already ranked once
        TestClock clock = new TestClock(Instant.parse("2026-03-01T10:00:00Z"));
        try (AgentMemory memory = AgentMemory.builder()
                .engineSettings(e -> e.clock(clock).ttl(Kind.DECISION, Duration.ofHours(1))).build()) {
            Caller caller = memory.caller(ALICE);
            memory.engine().write(caller, Proposal.set(caller.persistent(), "delivery.day", "tuesday")
                    .kind(Kind.DECISION).source(Source.USER).build());
            assertThat(statuses(retrieve(memory, "delivery day"))).containsExactly("current");

            // when: the clock passes the expiry, nothing else changes
            clock.advance(Duration.ofMinutes(61));

            // then: what servable() says now, not what the snapshot saw
            assertThat(statuses(retrieve(memory, "delivery day"))).containsExactly("needs-reverification");
        }
    }

    private static List<String> statuses(List<Content> contents) {
        return contents.stream().filter(c -> "persistent".equals(c.textSegment().metadata().getString(MemoryContent.LAYER)))
                .map(c -> c.textSegment().metadata().getString(MemoryContent.STATUS)).toList();
    }
}

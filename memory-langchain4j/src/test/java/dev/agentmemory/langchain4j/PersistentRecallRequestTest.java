package dev.agentmemory.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.langchain4j.framing.FramedItem;
import dev.agentmemory.testing.TestClock;
import dev.agentmemory.testing.langchain4j.ScriptedChatModel;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A user with many persistent memories, through {@code AiServices}: a fact changed in plain
 * words between two turns reaches the next request as the new value, with the old one nowhere in
 * it, and a memory whose validity window ends stops being served as current at the next turn
 * after the clock passes its end, though nothing was written (the persistent index updates the
 * changed key and the key whose window closed, without a rebuild).
 */
class PersistentRecallRequestTest {

    interface Assistant {
        String chat(@MemoryId SessionRef session, @dev.langchain4j.service.UserMessage String text);
    }

    private static final Instant DAY_1 = Instant.parse("2025-01-06T09:00:00Z");
    private static final SessionRef CHAT = new SessionRef("acme", "carla", "chat");
    private static final String QUESTION = "Which employer do I have, and which hotel is booked for me?";

    @Test
    void should_show_the_changed_value_and_stop_serving_an_ended_window_as_current() {
        TestClock clock = new TestClock(DAY_1);
        ScriptedChatModel model = new ScriptedChatModel(r -> AiMessage.from("Noted."));
        try (AgentMemory memory = AgentMemory.builder().engineSettings(e -> e.clock(clock)).windowSize(2)
                .resultsPerLayer(5, 5, 5).build()) {
            Assistant assistant = AiServices.builder(Assistant.class).chatModel(model)
                    .chatMemoryProvider(memory.chatMemoryProvider())
                    .retrievalAugmentor(memory.retrievalAugmentor()).build();
            // given: many memories of the user, a hotel booked until the evening, and an employer said in plain words
            Caller caller = memory.caller(CHAT);
            for (int i = 0; i < 400; i++) {
                memory.engine().write(caller, Proposal.set(caller.persistent(), "note.n" + i, "filler note number " + i)
                        .kind(Kind.DECISION).source(Source.USER).build());
            }
            memory.engine().write(caller, Proposal.set(caller.persistent(), "trip.hotel", "Hotel Lisboa")
                    .kind(Kind.OBSERVATION).source(Source.USER).validity(DAY_1, DAY_1.plus(Duration.ofHours(10))).build());
            assistant.chat(CHAT, "I work at Acme.");
            clock.advance(Duration.ofHours(1));
            ChatRequest first = ask(assistant, model);
            assertThat(persistent(memory, first, "user.employer")).extracting(FramedItem::text, FramedItem::status)
                    .containsExactly(tuple("user.employer = Acme", "current"));

            // when: the change, in plain words, a turn later
            clock.advance(Duration.ofHours(1));
            assistant.chat(CHAT, "I started at Globex in March.");
            ChatRequest changed = ask(assistant, model);

            // then: the whole request has the new value, current, and not the old one
            assertThat(persistent(memory, changed, "user.employer")).extracting(FramedItem::text, FramedItem::status)
                    .containsExactly(tuple("user.employer = Globex", "current"));
            assertThat(wholeText(changed)).contains("Globex").doesNotContain("Acme");
            assertThat(persistent(memory, changed, "trip.hotel")).extracting(FramedItem::status).containsExactly("current");

            // when: a minute before and a minute after the hotel's window ends, nothing written
            clock.advance(Duration.between(clock.instant(), DAY_1.plus(Duration.ofHours(10)).minusSeconds(60)));
            ChatRequest before = ask(assistant, model);
            clock.advance(Duration.ofSeconds(120));
            ChatRequest after = ask(assistant, model);

            // then: current until its end, no longer valid after it
            assertThat(persistent(memory, before, "trip.hotel")).extracting(FramedItem::status).containsExactly("current");
            assertThat(persistent(memory, after, "trip.hotel")).extracting(FramedItem::status)
                    .containsExactly("no-longer-valid");
            assertThat(FramedRequests.items(memory, after)).filteredOn(i -> i.text().contains("Lisboa"))
                    .extracting(FramedItem::status).doesNotContain("current");
            FramedRequests.assertLastRecallMatches(memory, CHAT, FramedRequests.items(memory, after));
        }
    }

    private static ChatRequest ask(Assistant assistant, ScriptedChatModel model) {
        assistant.chat(CHAT, QUESTION);
        return model.lastRequest();
    }

    private static List<FramedItem> persistent(AgentMemory memory, ChatRequest request, String key) {
        return FramedRequests.items(memory, request).stream()
                .filter(i -> "persistent".equals(i.extra().get(FramedItem.LAYER)) && i.text().startsWith(key + " ="))
                .toList();
    }

    private static String wholeText(ChatRequest request) {
        return request.messages().toString();
    }
}

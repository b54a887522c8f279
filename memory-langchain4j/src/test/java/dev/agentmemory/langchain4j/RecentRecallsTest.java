package dev.agentmemory.langchain4j;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ForgetMode;
import dev.agentmemory.core.ForgetTarget;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.testing.TestClock;
import dev.agentmemory.testing.langchain4j.ScriptedChatModel;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link AgentMemory#recentRecalls}: each recent turn of a session as the model received it, the
 * last {@value LastRecalls#TURNS_PER_SESSION} kept, dropped by a forget of the user's memory.
 */
class RecentRecallsTest {

    interface Assistant {
        String chat(@MemoryId SessionRef session, @dev.langchain4j.service.UserMessage String text);
    }

    private static final SessionRef S1 = new SessionRef("acme", "ana", "s1");
    private static final SessionRef S2 = new SessionRef("acme", "ana", "s2");

    @Test
    void should_keep_each_recent_turn_as_sent_and_drop_them_when_the_user_forgets() {
        TestClock clock = TestClock.start();
        try (AgentMemory memory = AgentMemory.builder().engineSettings(e -> e.clock(clock)).build()) {
            Caller ana = new Caller("acme", "ana", memory.agent());
            memory.engine().write(ana, Proposal.set(ana.persistent(), "profile.city", "Lisbon")
                    .kind(Kind.PREFERENCE).source(Source.USER).build());
            ScriptedChatModel model = new ScriptedChatModel(r -> AiMessage.from("ok"));
            Assistant assistant = AiServices.builder(Assistant.class).chatModel(model)
                    .chatMemoryProvider(memory.chatMemoryProvider())
                    .retrievalAugmentor(memory.retrievalAugmentor()).build();

            int turns = LastRecalls.TURNS_PER_SESSION + 2;
            for (int i = 1; i <= turns; i++) {
                assistant.chat(S1, "turn " + i + ": which city? profile city");
                clock.advance(Duration.ofSeconds(1));
            }
            assistant.chat(S2, "other conversation");

            List<Recall> recent = memory.recentRecalls(S1);
            assertThat(recent).hasSize(LastRecalls.TURNS_PER_SESSION);
            assertThat(recent.get(0).query()).isEqualTo("turn 3: which city? profile city");
            assertThat(recent.get(recent.size() - 1)).isEqualTo(memory.lastRecall(S1).orElseThrow());
            Recall last = recent.get(recent.size() - 1);
            String received = ScriptedChatModel.lastUserText(model.requests().get(turns - 1));
            assertThat(last.sent()).isEqualTo(received);
            assertThat(last.block()).isNotEmpty().contains("profile.city", "Lisbon");
            assertThat(received).contains(last.block()).contains("turn " + turns + ": which city?");
            assertThat(last.blockTokens()).isPositive().isLessThan(last.block().length());
            assertThat(memory.recentRecalls(S2)).extracting(Recall::query).containsExactly("other conversation");

            memory.engine().forget(ana, ForgetTarget.key(ana.persistent(), MemoryKey.of("profile.city")), ForgetMode.SOFT);

            assertThat(memory.recentRecalls(S1)).as("a forget drops the turns that showed the value").isEmpty();
            assertThat(memory.recentRecalls(S2)).isEmpty();
        }
    }

    @Test
    void should_refuse_a_recall_whose_block_size_is_negative() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new Recall(S1, "q", List.of(), List.of(), List.of(),
                        TestClock.DEFAULT_START, "q", "", -1))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("blockTokens must be >= 0: -1");
    }
}

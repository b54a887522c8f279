package dev.agentmemory.core;

import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.engine.MemoryEngine.Messages;
import dev.agentmemory.core.event.StoredMessage;
import dev.agentmemory.core.TaskInfo;
import dev.agentmemory.core.spi.DerivedData;
import dev.agentmemory.core.spi.DerivedData.ForgetRequest;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.testing.TestClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import dev.agentmemory.core.MemoryRecord.Status;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.Scope.Layer;

/** Forgetting a key, a scope or a user, and the cascade to derived data. */
class ForgetTest {

    static final Caller ALICE = Caller.of("shop", "alice");

    final TestClock clock = TestClock.start();
    final List<ForgetRequest> told = new ArrayList<>();
    final MemoryEngine engine = MemoryEngine.builder().clock(clock).derived(new DerivedData() {
        @Override
        public String name() {
            return "summaries";
        }

        @Override
        public int forget(ForgetRequest request) {
            told.add(request);
            return request.recordIds().size() + request.messages().values().stream().mapToInt(List::size).sum();
        }
    }).build();

    private void say(String session, long index, String text) {
        engine.messages().change(ALICE, session, w -> new Messages.WindowChange(List.of(),
                List.of(new StoredMessage(index, index, "USER", "{\"text\":\"" + text + "\"}", text))));
    }

    @Test
    void should_forget_a_session_with_its_tasks_and_messages_and_leave_the_rest() {
        // given
        engine.write(ALICE, Proposal.set(ALICE.session("s1"), "color", "white").build());
        engine.tasks().start(ALICE, "s1", "refund", null);
        engine.write(ALICE, Proposal.set(ALICE.task("s1", "refund"), "order", "20241015").build());
        say("s1", 0, "hello");
        engine.write(ALICE, Proposal.set(ALICE.session("s2"), "color", "black").build());
        engine.write(ALICE, Proposal.set(ALICE.persistent(), "lang", "zh").kind(Kind.PREFERENCE).build());

        // when
        ForgetReceipt receipt = engine.forget(ALICE, ForgetTarget.scope(ALICE.session("s1")), ForgetMode.SOFT);

        // then
        assertThat(receipt.keys()).containsExactly("shop/alice/session/s1 color", "shop/alice/task/s1/refund order");
        assertThat(receipt.messages()).isEqualTo(1);
        assertThat(receipt.derived()).isEqualTo(Map.of("summaries", 3));
        assertThat(told).singleElement().satisfies(r -> {
            assertThat(r.partition()).isEqualTo(new Partition("shop", "alice"));
            assertThat(r.recordIds()).isEqualTo(Set.copyOf(receipt.recordIds()));
            assertThat(r.messages()).isEqualTo(Map.of("s1", List.of(0L)));
            assertThat(r.hard()).isFalse();
        });
        assertThat(engine.view(ALICE, ALICE.session("s1")).keys()).isEmpty();
        assertThat(engine.messages().window(ALICE, "s1")).isEmpty();
        assertThat(engine.messages().history(ALICE, "s1").get(0L).forgotten()).isTrue();
        assertThat(engine.tasks().list(ALICE, "s1")).extracting(TaskInfo::status).containsExactly(TaskInfo.Status.ENDED);
        assertThat(engine.view(ALICE, ALICE.session("s2")).text("color")).contains("black");
        assertThat(engine.view(ALICE, ALICE.persistent()).text("lang")).contains("zh");
    }

    @Test
    void should_tombstone_everything_of_the_user_when_user_is_soft_forgotten() {
        engine.write(ALICE, Proposal.set(ALICE.persistent(), "lang", "zh").kind(Kind.PREFERENCE).build());
        engine.write(ALICE, Proposal.set(ALICE.session("s1"), "color", "white").build());
        engine.aliases().register(ALICE, "order:20241015", "my earbuds");
        say("s1", 0, "hello");

        ForgetReceipt receipt = engine.forget(ALICE, ForgetTarget.user(), ForgetMode.SOFT);

        assertThat(receipt.recordIds()).hasSize(2);
        assertThat(receipt.removedAnything()).isTrue();
        assertThat(told.get(0).wholeUser()).isTrue();
        assertThat(engine.servable(ALICE, Layer.PERSISTENT)).isEmpty();
        assertThat(engine.servable(ALICE, Layer.SESSION)).isEmpty();
        assertThat(engine.history(ALICE, ALICE.persistent(), MemoryKey.of("lang")))
                .extracting(MemoryRecord::status, MemoryRecord::value).containsExactly(
                        org.assertj.core.groups.Tuple.tuple(Status.FORGOTTEN, null));
        assertThat(engine.aliases().resolve(ALICE, "my earbuds")).isEmpty();
        assertThat(engine.messages().window(ALICE, "s1")).isEmpty();
        assertThat(engine.admin().audit(ALICE, Duration.ofDays(1)).replayMatches()).isTrue();
    }

    @Test
    void should_forget_chosen_messages_only() {
        say("s1", 0, "my address is Hailan street 5");
        say("s1", 1, "thanks");

        ForgetReceipt receipt = engine.forget(ALICE, ForgetTarget.messages("s1", List.of(0L)), ForgetMode.SOFT);

        assertThat(receipt.messages()).isEqualTo(1);
        assertThat(engine.messages().window(ALICE, "s1")).extracting(StoredMessage::text).containsExactly("thanks");
        assertThat(engine.messages().history(ALICE, "s1")).hasSize(2);
        assertThat(engine.messages().history(ALICE, "s1").get(0L).text()).isNull();
    }

    @Test
    void should_remove_nothing_when_forgotten_twice_softly() {
        engine.write(ALICE, Proposal.set(ALICE.session("s1"), "color", "white").build());
        ForgetTarget color = ForgetTarget.key(ALICE.session("s1"), MemoryKey.of("color"));
        engine.forget(ALICE, color, ForgetMode.SOFT);

        ForgetReceipt again = engine.forget(ALICE, color, ForgetMode.SOFT);

        assertThat(again.removedAnything()).isFalse();
        assertThat(again.derived()).isEqualTo(Map.of("summaries", 0));
    }

    @Test
    void should_scrub_log_when_a_soft_forgotten_key_is_later_hard_forgotten() {
        engine.write(ALICE, Proposal.set(ALICE.session("s1"), "color", "white-secret").build());
        ForgetTarget color = ForgetTarget.key(ALICE.session("s1"), MemoryKey.of("color"));
        engine.forget(ALICE, color, ForgetMode.SOFT);

        ForgetReceipt hard = engine.forget(ALICE, color, ForgetMode.HARD);

        assertThat(hard.eventsScrubbed()).isEqualTo(1);
        assertThat(engine.admin().readableLog(ALICE)).noneMatch(l -> l.contains("white-secret"));
        assertThat(engine.admin().log(ALICE).toString()).doesNotContain("white-secret");
    }
}

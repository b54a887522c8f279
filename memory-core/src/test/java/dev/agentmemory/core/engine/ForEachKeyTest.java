package dev.agentmemory.core.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ForgetMode;
import dev.agentmemory.core.ForgetTarget;
import dev.agentmemory.core.MemoryException;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.MemoryRecord.Access;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.ReadOptions;
import dev.agentmemory.core.Scope;
import dev.agentmemory.core.ScopeView.KeyState;
import dev.agentmemory.testing.TestClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link MemoryEngine.Admin#forEachKey} gives, in one pass, each key of a scope as
 * {@link MemoryEngine#keyState} reads it and every version of the key, at each time of a moving
 * clock: keys of one version and of many (more than a short history holds), windows that begin
 * and end, a deadline that passes, another agent's private version, a forgotten key.
 */
class ForEachKeyTest {

    private final TestClock clock = TestClock.start();
    private final MemoryEngine engine = MemoryEngine.builder().clock(clock).build();
    private final Caller alice = Caller.of("acme", "alice");
    private final Scope scope = alice.persistent();

    private record Seen(KeyState state, List<MemoryRecord> versions) {
    }

    private Proposal.Builder fact(String key, String value) {
        return Proposal.set(scope, key, value).kind(Kind.DECISION).source(Source.USER);
    }

    private List<Seen> forEachKey(Caller caller) {
        List<Seen> out = new ArrayList<>();
        engine.admin().forEachKey(caller, scope, (k, versions) -> out.add(new Seen(k, List.copyOf(versions))));
        return out;
    }

    @Test
    void should_give_each_key_as_keyState_reads_it_with_all_its_versions_at_every_time() {
        // given
        Instant start = clock.instant();
        engine.write(alice, fact("one", "a single version").build());
        for (int i = 0; i < 12; i++) {
            // a long history, the newest versions in windows that begin and end later
            Instant from = i >= 10 ? start.plus(Duration.ofHours(i - 8)) : null;
            Instant to = i == 9 ? start.plus(Duration.ofHours(5)) : null;
            engine.write(alice, fact("many", "version " + i).validity(from, to).build());
        }
        engine.write(alice, fact("deadline", "checked until noon").ttl(Duration.ofHours(3)).build());
        engine.write(alice, fact("window", "next week only")
                .validity(start.plus(Duration.ofHours(2)), start.plus(Duration.ofHours(4))).build());
        engine.write(alice.as("planner"), fact("private", "the planner's own").access(Access.PRIVATE)
                .build());
        engine.write(alice, fact("forgotten", "gone soon").build());
        engine.forget(alice, ForgetTarget.key(scope, MemoryKey.of("forgotten")), ForgetMode.SOFT);
        List<String> written = List.of("one", "many", "deadline", "window", "private", "forgotten");

        for (int hour = 0; hour <= 6; hour++) {
            // when
            List<Seen> seen = forEachKey(alice);

            // then
            assertThat(seen).extracting(s -> s.state().key().path()).as("hour %d", hour).isEqualTo(written);
            for (Seen s : seen) {
                MemoryKey key = s.state().key();
                assertThat(s.state()).as("%s at hour %d", key, hour)
                        .isEqualTo(engine.keyState(alice, scope, key, ReadOptions.DEFAULT));
                assertThat(s.versions()).as("%s at hour %d", key, hour)
                        .isEqualTo(engine.admin().holding(alice, state -> state.versions(scope, key)));
            }
            clock.advance(Duration.ofHours(1));
        }
        assertThat(forEachKey(alice).get(1).versions()).hasSize(12);
        assertThat(forEachKey(alice).get(4).state().isEmpty()).isTrue();
        assertThat(forEachKey(alice.as("planner")).get(4).state().current().text()).isEqualTo("the planner's own");
    }

    @Test
    void should_refuse_a_scope_of_another_user() {
        assertThatThrownBy(() -> engine.admin().forEachKey(alice, Caller.of("acme", "bob").persistent(), (k, v) -> {
        }))
                .isInstanceOf(MemoryException.AccessDenied.class)
                .hasMessage("caller acme/alice cannot touch scope " + Caller.of("acme", "bob").persistent()
                        + " of another tenant or user");
    }
}

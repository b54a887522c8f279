package dev.agentmemory.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ForgetMode;
import dev.agentmemory.core.ForgetTarget;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.langchain4j.PersistentIndex.Ranked;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/**
 * A forget reaches the persistent index at once, without a rebuild: the forgotten value's terms
 * leave every posting list before the next query, whether the forget was made by this instance
 * or by another one on the same database and followed from the log; a forget of the whole user
 * empties the index.
 */
class PersistentIndexForgetTest {

    private static final Set<String> QUERY = PersistentIndex.terms("what is my pin hint?");

    @Test
    void should_drop_a_forgotten_values_terms_at_once_here_and_on_another_instance() {
        JdbcDataSource database = new JdbcDataSource();
        database.setURL("jdbc:h2:mem:pidx-forget-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        try (AgentMemory here = AgentMemory.builder().dataSource(database).build();
             AgentMemory there = AgentMemory.builder().dataSource(database).build()) {
            Caller caller = new Caller("acme", "alice", "assistant");
            for (int i = 0; i < 50; i++) {
                here.engine().write(caller, Proposal.set(caller.persistent(), "note.n" + i, "filler note " + i)
                        .kind(Kind.DECISION).source(Source.USER).build());
            }
            PersistentIndex local = new PersistentIndex(here.engine());
            PersistentIndex remote = new PersistentIndex(there.engine());
            local.attach();
            remote.attach();
            local.top(caller, QUERY, 5);
            remote.top(caller, QUERY, 5);
            // given: a secret written after both indexes were built, ranked by both
            here.engine().write(caller, Proposal.set(caller.persistent(), "account.pin.hint", "zebrafish marmalade")
                    .kind(Kind.DECISION).source(Source.USER).build());
            assertThat(keys(local.top(caller, QUERY, 1))).containsExactly("account.pin.hint");
            assertThat(keys(remote.top(caller, QUERY, 1))).containsExactly("account.pin.hint");
            assertThat(local.holdsTerm(caller, "zebrafish")).isTrue();
            assertThat(remote.holdsTerm(caller, "zebrafish")).isTrue();

            // when: forgotten here
            here.engine().forget(caller, ForgetTarget.key(caller.persistent(), MemoryKey.of("account.pin.hint")),
                    ForgetMode.HARD);

            // then: gone from this index before any query, and from the other once it follows the log
            assertThat(local.holdsTerm(caller, "zebrafish")).isFalse();
            assertThat(local.holdsTerm(caller, "marmalade")).isFalse();
            there.engine().admin().sync(caller);
            assertThat(remote.holdsTerm(caller, "zebrafish")).isFalse();
            assertThat(keys(local.top(caller, QUERY, 100))).hasSize(50).doesNotContain("account.pin.hint");
            assertThat(keys(remote.top(caller, QUERY, 100))).hasSize(50).doesNotContain("account.pin.hint");
            assertThat(local.builds()).as("no rebuild after the write and the forget").isEqualTo(1);
            assertThat(remote.builds()).isEqualTo(1);

            // when: the whole user is forgotten on the other instance
            there.engine().forget(caller, ForgetTarget.user(), ForgetMode.HARD);

            // then: nothing of the user's values is left in either index
            assertThat(remote.holdsTerm(caller, "filler")).isFalse();
            here.engine().admin().sync(caller);
            assertThat(local.holdsTerm(caller, "filler")).isFalse();
            assertThat(local.top(caller, QUERY, 100)).isEmpty();
            assertThat(remote.top(caller, QUERY, 100)).isEmpty();
            local.detach();
            remote.detach();
        }
    }

    private static List<String> keys(List<Ranked> ranked) {
        return ranked.stream().map(r -> r.key().key().path()).toList();
    }
}

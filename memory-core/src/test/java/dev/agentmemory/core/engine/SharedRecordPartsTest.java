package dev.agentmemory.core.engine;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.store.InMemoryEventStore;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A user's records loaded in a new engine (from the log, or from a snapshot and the log after it)
 * share one instance of their scope and of their agents' names: each record decoded from the
 * store brought its own copies, about 240 bytes of heap per record of what every record repeats.
 */
class SharedRecordPartsTest {

    private static final Caller ALICE = Caller.of("shop", "alice");

    @ParameterizedTest(name = "snapshot every {0} events")
    @ValueSource(ints = {0, 10})
    void should_share_the_scope_and_agent_names_of_records_loaded_from_the_store(int snapshotEvery) {
        InMemoryEventStore store = new InMemoryEventStore();
        try (MemoryEngine writer = MemoryEngine.builder().store(store).snapshotEvery(snapshotEvery).build()) {
            for (int i = 0; i < 25; i++) {
                writer.write(ALICE, Proposal.set(ALICE.persistent(), "fact." + i, "value " + i)
                        .kind(Kind.DECISION).source(Source.USER).build());
            }
        }
        try (MemoryEngine reader = MemoryEngine.builder().store(store).snapshotEvery(snapshotEvery).build()) {
            List<MemoryRecord> loaded = new ArrayList<>();
            for (int i = 0; i < 25; i++) {
                loaded.add(reader.current(ALICE, ALICE.persistent(), MemoryKey.of("fact." + i)).orElseThrow());
            }

            MemoryRecord first = loaded.get(0);
            assertThat(loaded).allSatisfy(r -> {
                assertThat(r.scope()).isSameAs(first.scope());
                assertThat(r.ownerAgent()).isSameAs(first.ownerAgent());
                assertThat(r.writerAgent()).isSameAs(first.ownerAgent());
            });
            // and the values are what was written
            assertThat(loaded.get(24).text()).isEqualTo("value 24");
            assertThat(first.scope()).isEqualTo(ALICE.persistent());
        }
    }
}

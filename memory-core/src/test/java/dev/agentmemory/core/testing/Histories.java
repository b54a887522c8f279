package dev.agentmemory.core.testing;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.MemoryValue;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.Scope;
import dev.agentmemory.core.event.StoredMessage;
import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.core.spi.Partition;

import java.util.List;

/** Histories written through the public API, for tests of snapshots and stores. Tests only. */
public final class Histories {

    private Histories() {
    }

    /** Writes about {@code events} events of every kind (records, supersedes, messages, tasks, aliases, actions). */
    public static void mixed(MemoryEngine engine, EventStore store, Caller caller, int events) {
        Scope persistent = caller.persistent();
        Partition p = new Partition(caller.tenant(), caller.user());
        long start = store.lastSequence(p);
        for (int i = (int) start * 6; store.lastSequence(p) - start < events; i++) {
            switch (i % 6) {
                case 0 -> engine.write(caller, Proposal.set(persistent, "pref." + (i % 40), "value " + i).kind(Kind.DECISION).build());
                case 1 -> {
                    long next = i;
                    engine.messages().change(caller, "s" + (i % 3), w -> new MemoryEngine.Messages.WindowChange(
                            w.size() > 4 ? List.of(w.get(0).index()) : List.of(),
                            List.of(new StoredMessage(engine.messages().history(caller, "s" + (next % 3)).size(), next,
                                    "USER", "{\"text\":\"m" + next + "\"}", "m" + next))));
                }
                case 2 -> engine.tasks().start(caller, "s" + (i % 3), "t" + i, "task " + i);
                case 3 -> engine.aliases().register(caller, "order:e" + (i % 7), "alias" + i);
                case 4 -> engine.ledger().begin(caller, "op" + i, "send", MemoryValue.of(i));
                default -> engine.ledger().complete(caller, "op" + (i - 1), true, MemoryValue.of("ok"));
            }
        }
    }
}

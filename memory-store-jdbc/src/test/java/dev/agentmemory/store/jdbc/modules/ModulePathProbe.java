package dev.agentmemory.store.jdbc.modules;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.MemoryException;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.store.jdbc.JdbcStores;

import java.nio.file.Path;

/**
 * Run by {@link ModulePathTest} in a child JVM whose only modules are the store's and what its
 * descriptor requires: writes through an engine on an H2 file, reads it back after a reopen, opens
 * an in-memory H2 database, and opens a pool on a server that is not there (which must fail as a
 * {@link MemoryException}, not as a class missing from the module graph). Prints one line per step.
 */
public final class ModulePathProbe {

    private ModulePathProbe() {
    }

    public static void main(String[] args) {
        Path file = Path.of(args[0]);
        Caller alice = Caller.of("shop", "alice");
        try (MemoryEngine engine = MemoryEngine.builder().store(JdbcStores.h2File(file)).build()) {
            engine.write(alice, Proposal.set(alice.persistent(), "city", "Berlin").kind(Kind.PREFERENCE).build());
        }
        try (MemoryEngine engine = MemoryEngine.builder().store(JdbcStores.h2File(file)).build()) {
            System.out.println("h2File: " + engine.view(alice, alice.persistent()).text("city").orElse("missing"));
            System.out.println("history: " + engine.history(alice, alice.persistent(), MemoryKey.of("city")).size());
        }
        try (EventStore memory = JdbcStores.h2InMemory("modules")) {
            System.out.println("h2InMemory: " + memory.partitions("shop").size());
        }
        try {
            JdbcStores.connect(args[1], "nobody", "nothing").close();
            System.out.println("connect: opened");
        } catch (MemoryException e) {
            System.out.println("connect: refused");
        }
    }
}

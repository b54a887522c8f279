package dev.agentmemory.demo;

import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.store.jdbc.JdbcStores;
import java.nio.file.Path;

/** A child JVM that keeps a memory store open (as a running chat does) until its input ends. */
final class HoldStore {

    private HoldStore() {
    }

    public static void main(String[] args) throws Exception {
        try (MemoryEngine engine = MemoryEngine.builder().store(JdbcStores.h2File(Path.of(args[0]))).build()) {
            System.out.println("open");
            System.out.flush();
            while (System.in.read() >= 0) {
                // wait for the parent to close our input
            }
        }
    }
}

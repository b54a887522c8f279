package dev.agentmemory.core;

import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.core.spi.StoredEvent;
import dev.agentmemory.core.store.InMemoryEventStore;

import dev.agentmemory.core.testing.MemoryEngineStorageContract;
import java.util.List;

class InMemoryEngineStorageTest extends MemoryEngineStorageContract {

    private InMemoryEventStore memory;

    @Override
    protected EventStore newStore() {
        memory = new InMemoryEventStore();
        return memory;
    }

    @Override
    protected EventStore reopen() {
        return memory;
    }

    @Override
    protected List<String> rawPayloads(Partition partition) {
        return memory.read(partition, 0).stream().map(StoredEvent::payload).toList();
    }
}

package dev.agentmemory.core;

import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.core.spi.StoredEvent;
import dev.agentmemory.core.store.InMemoryEventStore;

import java.util.List;

class InMemoryEngineStorageTest extends MemoryEngineStorageContract {

    private InMemoryEventStore memory;

    @Override
    EventStore openStore() {
        memory = new InMemoryEventStore();
        return memory;
    }

    @Override
    EventStore reopenStore() {
        return memory;
    }

    @Override
    List<String> rawPayloads(Partition partition) {
        return memory.read(partition, 0).stream().map(StoredEvent::payload).toList();
    }
}

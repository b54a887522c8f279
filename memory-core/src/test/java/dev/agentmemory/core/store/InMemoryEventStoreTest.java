package dev.agentmemory.core.store;

import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.core.spi.EventStoreContract;

class InMemoryEventStoreTest extends EventStoreContract {

    @Override
    protected EventStore openEmptyStore() {
        return new InMemoryEventStore();
    }
}

package dev.agentmemory.core.store;

import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.core.testing.EventStoreContract;

class InMemoryEventStoreTest extends EventStoreContract {

    @Override
    protected EventStore newStore() {
        return new InMemoryEventStore();
    }
}

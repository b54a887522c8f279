package dev.agentmemory.bench;

import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.core.spi.EventStore.ForwardingEventStore;

/**
 * A store that delegates everything but claims that no other writer appends to it, so an engine
 * over it skips the cross-instance visibility check (the head read before each call). For
 * measuring that check only: over a database other instances write to, such an engine serves
 * stale state.
 */
final class UnsharedEventStore extends ForwardingEventStore {

    UnsharedEventStore(EventStore delegate) {
        super(delegate);
    }

    /** Says no other writer appends here (untrue over a shared database: for the measurement only). */
    @Override
    public boolean sharedWithOtherWriters() {
        return false;
    }
}

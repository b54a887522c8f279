package dev.agentmemory.core;

/**
 * The log moved on between reading and appending (another writer appended first). The one
 * failure of {@link MemoryException}'s family that a store throws itself (the
 * {@link dev.agentmemory.core.spi.EventStore#append} contract), so store implementors find it
 * here rather than nested in the engine's exceptions.
 */
public class StaleVersionException extends MemoryException {
    public StaleVersionException(String message) {
        super(message);
    }
}

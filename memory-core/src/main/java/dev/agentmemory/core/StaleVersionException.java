package dev.agentmemory.core;

/** The log moved on between reading and appending (another writer appended first). */
public class StaleVersionException extends MemoryException {
    public StaleVersionException(String message) {
        super(message);
    }
}

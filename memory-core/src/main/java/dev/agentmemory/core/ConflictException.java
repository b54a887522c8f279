package dev.agentmemory.core;

/** In strict mode, a write disagreed with the current value and was rejected. */
public class ConflictException extends MemoryException {
    public ConflictException(String message) {
        super(message);
    }
}

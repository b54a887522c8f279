package dev.agentmemory.core;

/** Root of the engine's runtime failures. Misuse is reported with the JDK's argument and state exceptions. */
public class MemoryException extends RuntimeException {
    public MemoryException(String message) {
        super(message);
    }

    public MemoryException(String message, Throwable cause) {
        super(message, cause);
    }
}

package dev.agentmemory.core;

/** A caller named a scope or record outside its tenant and user, or one its agent may not touch. */
public class AccessDeniedException extends MemoryException {
    public AccessDeniedException(String message) {
        super(message);
    }
}

package dev.agentmemory.core;

/** A proposed operation broke a rule (schema, kind rule, permission) and was not applied. */
public class InvalidProposalException extends MemoryException {
    public InvalidProposalException(String message) {
        super(message);
    }
}

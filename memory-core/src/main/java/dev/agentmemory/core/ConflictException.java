package dev.agentmemory.core;

/**
 * A write disagreed with the current value. Thrown by {@link dev.agentmemory.core.engine.MemoryEngine#write} in the default
 * lenient mode, where the conflicting version is nevertheless logged and held as an open
 * conflict next to the current value (reads report it; {@link dev.agentmemory.core.engine.Verifications#confirm} resolves
 * it). In strict mode ({@link dev.agentmemory.core.engine.MemoryEngine.Builder#strictConflicts}) nothing is logged and
 * {@code write} throws {@link InvalidProposalException} instead, with a reason that starts
 * with "conflict (strict mode)". {@link dev.agentmemory.core.engine.MemoryEngine#propose} never throws it: it returns the
 * outcome.
 */
public class ConflictException extends MemoryException {
    public ConflictException(String message) {
        super(message);
    }
}

package dev.agentmemory.core;

import org.jspecify.annotations.Nullable;
import java.util.List;

/**
 * Root of the engine's runtime failures. One rule decides which exception a call throws:
 * <ul>
 *   <li><b>Misuse</b>: the call is wrong whatever the stored data says (a null, malformed or
 *       out-of-range argument, an oversized value or message, a builder setting out of range), or
 *       it asks for a transition the caller's own earlier calls rule out (starting a task twice,
 *       ending a task the session does not hold, resuming an ended task, completing an action
 *       whose intent was never logged, verifying a record that is forgotten). These throw the
 *       JDK's {@link IllegalArgumentException} or {@link IllegalStateException}, and the message
 *       names the offending value.</li>
 *   <li><b>Runtime failures</b>: a well-formed call that the engine refuses because of its
 *       rules or the stored data, or cannot carry out because of the environment. These throw
 *       this family: {@link InvalidProposal} (a write rule rejected a proposal),
 *       {@link Conflict} (a write disagrees with the current value),
 *       {@link AccessDenied} (another tenant's or user's scope),
 *       {@link AmbiguousAlias} (an alias names several entities),
 *       {@link StaleVersionException} (another writer appended first) and plain
 *       {@code MemoryException} for storage, I/O and decoding failures.</li>
 * </ul>
 */
public class MemoryException extends RuntimeException {
    public MemoryException(String message) {
        super(message);
    }

    public MemoryException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }

    /** A caller named a scope or record outside its tenant and user, or one its agent may not touch. */
    public static class AccessDenied extends MemoryException {
        public AccessDenied(String message) {
            super(message);
        }
    }

    /** An alias names more than one entity; the engine reports it instead of guessing. */
    public static class AmbiguousAlias extends MemoryException {
        private final List<String> entities;

        public AmbiguousAlias(String alias, List<String> entities) {
            super("alias \"" + alias + "\" is ambiguous: it names " + entities);
            this.entities = List.copyOf(entities);
        }

        /** The entities the alias names. */
        public List<String> entities() {
            return entities;
        }
    }

    /**
     * A write disagreed with the current value. Thrown by {@link dev.agentmemory.core.engine.MemoryEngine#write} in the default
     * lenient mode, where the conflicting version is nevertheless logged and held as an open
     * conflict next to the current value (reads report it; {@link dev.agentmemory.core.engine.MemoryEngine.Verifications#confirm} resolves
     * it). In strict mode ({@link dev.agentmemory.core.engine.MemoryEngine.Builder#strictConflicts}) nothing is logged and
     * {@code write} throws {@link InvalidProposal} instead, with a reason that starts
     * with "conflict (strict mode)". {@link dev.agentmemory.core.engine.MemoryEngine#propose} never throws it: it returns the
     * outcome.
     */
    public static class Conflict extends MemoryException {
        public Conflict(String message) {
            super(message);
        }
    }

    /** A proposed operation broke a rule (schema, kind rule, permission) and was not applied. */
    public static class InvalidProposal extends MemoryException {
        public InvalidProposal(String message) {
            super(message);
        }
    }
}

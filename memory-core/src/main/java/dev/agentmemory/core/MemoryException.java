package dev.agentmemory.core;

import org.jspecify.annotations.Nullable;

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
 *       this family: {@link InvalidProposalException} (a write rule rejected a proposal),
 *       {@link ConflictException} (a write disagrees with the current value),
 *       {@link AccessDeniedException} (another tenant's or user's scope),
 *       {@link AmbiguousAliasException} (an alias names several entities),
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
}

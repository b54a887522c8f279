package dev.agentmemory.core.internal.hooks;

import dev.agentmemory.core.event.StoredMessage;

import java.util.Optional;
import java.util.function.Predicate;

/**
 * Rewrites a stored chat message so that it no longer states a forgotten value, keeping what
 * makes the message list valid (its index, order and type; tool-call ids and names). The engine
 * decides which messages state a forgotten value and which fields do (see
 * {@code MemoryEngine.forget}); a redactor knows the message format: where the content fields
 * are (texts, tool-call arguments, tool results) in {@link StoredMessage#json()}.
 *
 * <p>Registered on the engine builder or with {@code MemoryEngine.addRedactor}; tried in order,
 * the first that knows the format wins, and the engine's own generic JSON redaction is the last
 * resort. Called under the user's lock during a forget: must be quick, must not call the engine,
 * and must be thread-safe and deterministic.
 */
@FunctionalInterface
public interface MessageRedactor {

    /** What replaces a redacted field. */
    String REDACTED = "[forgotten]";

    /**
     * The message with each content field that states a forgotten value replaced by
     * {@link #REDACTED} (inside structured fields such as tool-call arguments, only the stating
     * parts, so that they stay well-formed), and its {@link StoredMessage#text()} made to match.
     *
     * @param message a message that is not forgotten
     * @param source  whether a forgotten record names this message as its source: then every
     *                content field goes, whatever it says
     * @param states  whether a field's text states a forgotten value
     * @return the redacted message with the same index, order and type; a message with the same
     * JSON when nothing in it states a value; empty when this redactor does not know the format
     */
    Optional<StoredMessage> redact(StoredMessage message, boolean source, Predicate<String> states);
}

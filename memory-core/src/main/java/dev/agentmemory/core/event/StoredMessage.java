package dev.agentmemory.core.event;

import org.jspecify.annotations.Nullable;

import java.util.Objects;

/**
 * A chat message as the engine keeps it: opaque serialized form plus plain text for indexing.
 *
 * @param index   position in the session's full history, 0-based, never reused
 * @param order   sort key within the window (messages placed in front get a smaller order)
 * @param type    the message type (e.g. USER, AI, SYSTEM, TOOL_EXECUTION_RESULT)
 * @param json    the serialized message, null once forgotten
 * @param text    plain text of the message, null once forgotten
 */
public record StoredMessage(long index, long order, String type, @Nullable String json, @Nullable String text) {
    public StoredMessage {
        if (index < 0) {
            throw new IllegalArgumentException("index must be >= 0: " + index);
        }
        Objects.requireNonNull(type, "type");
    }

    /** Whether the content is gone. */
    public boolean forgotten() {
        return json == null;
    }

    /** This message without its content. */
    public StoredMessage tombstone() {
        return new StoredMessage(index, order, type, null, null);
    }
}

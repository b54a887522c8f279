package dev.agentmemory.langchain4j.tools;

import dev.agentmemory.langchain4j.internal.EnumText;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryValue;
import org.jspecify.annotations.Nullable;

import java.util.Objects;

/**
 * One operation a model proposed, as parsed by {@link OperationParser}; not yet validated by the
 * engine.
 *
 * @param op         set, append or invalidate
 * @param layer      where: the user's persistent memory, the session, or the session's active task
 * @param key        which value
 * @param value      the value for set and append; null for invalidate
 * @param kind       what sort of statement the model says it is
 * @param confidence the model's confidence, 0..1
 * @param evidence   the user's words the model cites, if any
 * @param reason     why, for invalidate
 */
public record ExtractedOperation(Op op, Target layer, MemoryKey key, @Nullable MemoryValue value, Kind kind,
                                 double confidence, @Nullable String evidence, @Nullable String reason) {

    /** What the operation does. */
    public enum Op {
        SET, APPEND, INVALIDATE
    }

    /** Which scope the operation names. */
    public enum Target {
        PERSISTENT, SESSION, TASK
    }

    public ExtractedOperation {
        Objects.requireNonNull(op, "op");
        Objects.requireNonNull(layer, "layer");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(kind, "kind");
        if ((op == Op.INVALIDATE) != (value == null)) {
            throw new IllegalArgumentException(op == Op.INVALIDATE
                    ? "invalidate takes no value" : EnumText.label(op) + " needs a value");
        }
        if (!(confidence >= 0.0 && confidence <= 1.0)) {
            throw new IllegalArgumentException("confidence must be within 0..1: " + confidence);
        }
    }
}

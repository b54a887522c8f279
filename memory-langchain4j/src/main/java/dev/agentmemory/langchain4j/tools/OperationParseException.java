package dev.agentmemory.langchain4j.tools;

/**
 * A model's operations output that cannot be used. The message says exactly what is wrong (and
 * where: {@code operations[2].key}) so that it can be sent back to the model for a retry.
 */
public final class OperationParseException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    OperationParseException(String message) {
        super(message);
    }
}

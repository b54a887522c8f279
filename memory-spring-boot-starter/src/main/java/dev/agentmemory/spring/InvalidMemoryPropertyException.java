package dev.agentmemory.spring;

/**
 * An {@code agentmemory.*} property with a bad value or an unknown name; the message names the key.
 * Spring Boot reports it at startup through {@link InvalidMemoryPropertyFailureAnalyzer}.
 */
public final class InvalidMemoryPropertyException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    InvalidMemoryPropertyException(String message) {
        super(message);
    }

    InvalidMemoryPropertyException(IllegalArgumentException cause) {
        super(cause.getMessage(), cause);
    }
}

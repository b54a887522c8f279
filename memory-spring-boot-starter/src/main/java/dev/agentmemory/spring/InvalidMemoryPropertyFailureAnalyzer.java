package dev.agentmemory.spring;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns a failed start caused by a bad {@code agentmemory.*} property into Spring Boot's
 * "APPLICATION FAILED TO START" report: the key and what is wrong with it, and what to do,
 * instead of a bare stack trace.
 */
final class InvalidMemoryPropertyFailureAnalyzer extends AbstractFailureAnalyzer<InvalidMemoryPropertyException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidMemoryPropertyException cause) {
        return new FailureAnalysis("Invalid agent memory property: " + cause.getMessage(),
                "Correct the agentmemory.* property named above in the application's configuration"
                        + " (application.properties, application.yaml, environment or command line).",
                cause);
    }
}

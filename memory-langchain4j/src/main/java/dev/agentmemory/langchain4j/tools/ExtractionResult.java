package dev.agentmemory.langchain4j.tools;

import dev.agentmemory.core.Proposal.Outcome;

import java.util.List;
import java.util.Objects;

/**
 * What one extraction did.
 *
 * @param succeeded whether a usable answer came back (its operations may still have been rejected one by one)
 * @param outcomes  the engine's verdict on each proposed operation, in order; empty when it failed
 * @param attempts  model calls made
 * @param errors    why each failed attempt was refused, in order
 * @param modelName the model that answered (as recorded in the extracted records)
 */
public record ExtractionResult(boolean succeeded, List<Outcome> outcomes, int attempts, List<String> errors,
                               String modelName) {
    public ExtractionResult {
        outcomes = List.copyOf(outcomes);
        errors = List.copyOf(errors);
        Objects.requireNonNull(modelName, "modelName");
        if (attempts < 0) {
            throw new IllegalArgumentException("attempts must be >= 0: " + attempts);
        }
        if (!succeeded && !outcomes.isEmpty()) {
            throw new IllegalArgumentException("a failed extraction has no outcomes");
        }
    }
}

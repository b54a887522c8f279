package dev.agentmemory.core.spi;

import dev.agentmemory.core.MemoryRecord;

import java.util.Objects;
import java.util.Optional;

/**
 * A deterministic check of a candidate record (e.g. an order lookup). Returns empty when it has
 * nothing to say about the record. Thread-safe.
 */
@FunctionalInterface
public interface Verifier {

    /** Checks the record. */
    Optional<Verdict> check(MemoryRecord record);

    /** A verifier's answer and its evidence. */
    record Verdict(boolean holds, String evidence) {
        public Verdict {
            Objects.requireNonNull(evidence, "evidence");
        }
    }
}

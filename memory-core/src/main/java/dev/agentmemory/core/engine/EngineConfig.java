package dev.agentmemory.core.engine;

import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.policy.InstructionDetector;
import dev.agentmemory.core.spi.Verifier;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The engine's write rules and limits as the builder validated them (the builder is the one
 * place that checks settings). Immutable; read by the decider and the parts.
 */
record EngineConfig(boolean strictConflicts, int maxValueBytes, int maxMessageChars, int maxRecordsPerUser,
                    boolean forgetOldestAtLimit, Map<Kind, Duration> ttlByKind, Set<Kind> sensitiveKinds,
                    @Nullable Pattern sensitiveKeys, List<Verifier> verifiers,
                    InstructionDetector instructionDetector) {

    EngineConfig {
        ttlByKind = Map.copyOf(ttlByKind);
        sensitiveKinds = Set.copyOf(sensitiveKinds);
        verifiers = List.copyOf(verifiers);
    }
}

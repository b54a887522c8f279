package dev.agentmemory.core;

import dev.agentmemory.core.policy.InstructionDetector;

import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.core.MemoryRecord.Trust;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.Scope.Layer;

/**
 * The write rules that depend on a record's kind, source and trust. They hold whoever writes:
 * <ul>
 *   <li>an untrusted source never writes a preference or a decision, nor a record tagged as a
 *       rule or instruction;</li>
 *   <li>untrusted text that reads like a standing instruction may only be kept as an observation
 *       or a reference (data, never a rule);</li>
 *   <li>a model's output is never trusted by its own say-so;</li>
 *   <li>a task fact is never written to persistent memory (it is not promoted by itself).</li>
 * </ul>
 * An inference never overwriting a user-stated value is a conflict rule, see {@link dev.agentmemory.core.engine.ConflictPolicy}.
 */
final class KindRules {

    private static final Set<String> RULE_TAGS = Set.of("rule", "instruction", "policy", "system", "preference");

    private KindRules() {
    }

    /**
     * The reason {@code p} breaks a kind rule, or empty when it keeps them all; instruction-like
     * text is recognized by {@link InstructionDetector#standard()}.
     */
    static Optional<String> violation(Proposal p) {
        return violation(p, InstructionDetector.standard());
    }

    /** The reason {@code p} breaks a kind rule, instruction-like text recognized by {@code detector}. */
    static Optional<String> violation(Proposal p, InstructionDetector detector) {
        Objects.requireNonNull(detector, "detector");
        if (p.op() == Proposal.Op.INVALIDATE) {
            if (p.trust() == Trust.UNTRUSTED) {
                return Optional.of("an untrusted source cannot invalidate memory");
            }
            return Optional.empty();
        }
        if (p.source() == Source.MODEL && p.trust() == Trust.TRUSTED) {
            return Optional.of("a model's output cannot be trusted by its own say-so; write it untrusted and verify it");
        }
        if (p.trust() == Trust.UNTRUSTED) {
            if (p.kind() == Kind.PREFERENCE || p.kind() == Kind.DECISION) {
                return Optional.of("an untrusted source (" + name(p.source()) + ") cannot write a " + name(p.kind()));
            }
            for (String tag : p.tags()) {
                if (RULE_TAGS.contains(tag.toLowerCase(Locale.ROOT))) {
                    return Optional.of("an untrusted source cannot write a record tagged '" + tag + "'");
                }
            }
            boolean dataKind = p.kind() == Kind.OBSERVATION || p.kind() == Kind.REFERENCE;
            if (!dataKind && p.value() != null && detector.isInstructionLike(p.value().text())) {
                return Optional.of("untrusted text that reads like a standing instruction can only be kept as an observation");
            }
        }
        if (p.kind() == Kind.TASK_FACT && p.scope().layer() == Layer.PERSISTENT) {
            return Optional.of("a task fact is never promoted to persistent memory; write it to a session or task scope");
        }
        return Optional.empty();
    }

    private static String name(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT).replace('_', ' ');
    }
}

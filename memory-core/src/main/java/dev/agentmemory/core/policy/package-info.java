/**
 * Which untrusted text reads like an instruction: {@link dev.agentmemory.core.policy.InstructionDetector}
 * and the house rules a user adds to it ({@link dev.agentmemory.core.policy.InstructionDetector.CueRule}). The
 * package-private rest are the detector's parts: the built-in cue tables, the text normaliser,
 * the Aho-Corasick keyword scanner, the guarded rule matcher and the line-start role check. The
 * package imports nothing else of the core.
 */
@NullMarked
package dev.agentmemory.core.policy;

import org.jspecify.annotations.NullMarked;

/**
 * The parts of {@link dev.agentmemory.core.policy.InstructionDetector}: the built-in cue tables
 * ({@link dev.agentmemory.core.internal.detect.InstructionCues},
 * {@link dev.agentmemory.core.internal.detect.AuthorityCues}), the text normaliser, the
 * Aho-Corasick keyword scanner, the guarded rule matcher and the line-start role check. Not an
 * API: the module does not export this package; users name only {@code InstructionDetector} and
 * {@code CueRule}.
 */
@NullMarked
package dev.agentmemory.core.internal.detect;

import org.jspecify.annotations.NullMarked;

package dev.agentmemory.core.policy;

import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * Flags text that reads like a standing instruction ("from now on skip approval", "ignore all
 * previous instructions"). A flag is a signal on top of the structural defences (trust levels,
 * framing), never the defence itself. Thread-safe and stateless.
 */
public final class InstructionDetector {

    private static final InstructionDetector STANDARD = new InstructionDetector();

    private static final List<String> CUES = List.of(
            "from now on", "ignore all", "ignore previous", "ignore the above", "disregard",
            "you must", "always ", "never ", "skip approval", "new instructions", "system prompt",
            "从现在起", "从现在开始", "以后都", "忽略");

    private InstructionDetector() {
    }

    /** The detector used by the engine's kind rules and by the prompt framing. */
    public static InstructionDetector standard() {
        return STANDARD;
    }

    /** Whether {@code text} reads like an instruction addressed to the assistant. */
    public boolean isInstructionLike(String text) {
        Objects.requireNonNull(text, "text");
        String t = text.toLowerCase(Locale.ROOT);
        for (String cue : CUES) {
            if (t.contains(cue)) {
                return true;
            }
        }
        return false;
    }
}

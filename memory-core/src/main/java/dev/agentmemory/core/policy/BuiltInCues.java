package dev.agentmemory.core.policy;

import java.util.List;
import java.util.stream.Stream;

/**
 * Every built-in rule, in the order the matcher tries them: the instruction cues of
 * {@link InstructionCues}, then the borrowed-authority cues of {@link AuthorityCues}.
 *
 * <p>The tables are Java code rather than resource files: the expressions share fragments (the
 * start of a text, the words for "instructions", the role words), Java's string escaping is the
 * only escaping layer a reader has to undo, and a table that does not compile or has a bad guard
 * fails when this class is loaded, naming the expression.
 */
final class BuiltInCues {

    /** The built-in rules. */
    public static final List<GuardedRule> ALL = Stream.of(InstructionCues.ALL, AuthorityCues.ALL)
            .flatMap(List::stream).toList();

    private BuiltInCues() {
    }
}

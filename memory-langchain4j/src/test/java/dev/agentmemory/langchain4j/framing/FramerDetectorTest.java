package dev.agentmemory.langchain4j.framing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentmemory.core.policy.InstructionDetector.CueRule;
import dev.agentmemory.core.policy.InstructionDetector;
import dev.agentmemory.core.policy.InstructionDetector.Cue;
import dev.agentmemory.core.MemoryRecord.Trust;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The framer flags untrusted items with the detector it was built with. */
class FramerDetectorTest {

    private static final Instant DAY1 = Instant.parse("2024-11-01T10:00:00Z");

    @Test
    void should_flag_untrusted_items_with_the_given_detector() {
        InstructionDetector detector = InstructionDetector.builder()
                .addRule(CueRule.leading(Cue.SECRET_EXFILTRATION, "quux-\\d+", "quux-")).build();
        FramedItem item = new FramedItem("t1", "the vault code is quux-1234", "observation", "tool:vault",
                Trust.UNTRUSTED, DAY1, "current");
        MemoryFramer standard = MemoryFramer.builder().build();
        MemoryFramer custom = MemoryFramer.builder().instructionDetector(detector).build();

        List<List<String>> byStandard = standard.parse(standard.attach("q", FrameInvariants.frameAndCheck(standard,
                List.of(item), "q"))).get(0).flags();
        List<List<String>> byCustom = custom.parse(custom.attach("q", FrameInvariants.frameAndCheck(custom,
                List.of(item), "q"))).get(0).flags();

        assertThat(byStandard).containsExactly(List.of());
        assertThat(byCustom).containsExactly(List.of("secret-exfiltration"));
    }

    @Test
    void should_refuse_a_null_detector() {
        assertThatThrownBy(() -> MemoryFramer.builder().instructionDetector(null))
                .isInstanceOf(NullPointerException.class).hasMessage("detector");
    }
}

package dev.agentmemory.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ScenarioTest {

    @TempDir
    Path dir;

    @Test
    void should_pass_every_check_when_the_nine_step_scenario_runs_with_a_real_crash_in_a_child_jvm() {
        // given
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        Scenario scenario = new Scenario(dir.resolve("agent-memory"), "alice", new PrintStream(buf, true, StandardCharsets.UTF_8), true);

        // when
        boolean ok = scenario.run();

        // then
        String transcript = buf.toString(StandardCharsets.UTF_8);
        assertThat(scenario.checks()).as(transcript).isNotEmpty().allMatch(Scenario.Check::pass);
        assertThat(ok).isTrue();
        assertThat(scenario.checks()).extracting(c -> c.name().substring(0, 1)).contains("1", "2", "3", "4", "5", "6", "7", "8", "9");
        assertThat(transcript).contains("halting before the local checkpoint", "ALREADY_DONE", "REFUSED", "All 27 checks passed.");
    }

    @Test
    void should_fail_the_crash_checks_when_no_child_jvm_crashes() {
        // given: the drill is skipped, so nothing reaches the shop before the restart
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        Scenario scenario = new Scenario(dir.resolve("agent-memory"), "bob", new PrintStream(buf, true, StandardCharsets.UTF_8), false);

        // when
        boolean ok = scenario.run();

        // then
        assertThat(ok).isFalse();
        assertThat(scenario.checks()).filteredOn(c -> !c.pass()).extracting(Scenario.Check::name)
                .contains("7 a second JVM made the remote call and halted before its checkpoint",
                        "7 on restart the pending action was found and reconciled against the shop");
        assertThat(buf.toString(StandardCharsets.UTF_8)).contains("FAIL  7 a second JVM");
    }
}

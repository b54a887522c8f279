package dev.agentmemory.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChatTest {

    @TempDir
    Path dir;

    private String chat(String session, String... lines) {
        String input = String.join("\n", lines) + "\n/quit\n";
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        // the scenario's day one (the chat runs on the real clock, these tests on a fixed day)
        PrintStream out = new PrintStream(buf, true, StandardCharsets.UTF_8);
        int code = DemoMain.run(new String[] {"chat", "--db", dir.resolve("mem").toString(), "--user", "carol", "--session", session},
                new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)), out, out, Map.of(),
                java.time.Clock.fixed(java.time.Instant.parse("2024-10-19T09:00:00Z"), java.time.ZoneOffset.UTC));
        assertThat(code).isZero();
        return buf.toString(StandardCharsets.UTF_8);
    }

    @Test
    void should_answer_in_domain_and_say_plainly_when_it_does_not_understand() {
        // when
        String out = chat("s1",
                "I want to return my earbuds, the right ear is silent",
                "What is the weather in Paris tomorrow?",
                "以后请用中文回答",
                "我想换货，换成白色",
                "请提交换货");

        // then
        assertThat(out).contains("offline scripted model");
        assertThat(out).contains("I found order 20241015: Bluetooth earbuds (black), bought 2024-10-12");
        assertThat(out).contains("Sorry, I don't understand \"What is the weather in Paris tomorrow?\"");
        assertThat(out).contains("好的，从现在起我会用中文回答。");
        assertThat(out).contains("已记录：订单 20241015 改为换货而不是退款。新的一副是白色，您手上的原件是黑色");
        assertThat(out).contains("[memory] write [task return-earbuds] exchange.color = 白色 (task_fact, user, trusted) -> v1");
        assertThat(out).contains("换货已提交：订单 20241015-X1（原订单 20241015 的白色替换品）。");
        assertThat(out).contains("[memory] write [persistent] preference.language = 中文 (preference, user, trusted) -> v1");
        assertThat(out).endsWith("bye" + System.lineSeparator());
    }

    @Test
    void should_keep_memory_across_runs_when_the_same_db_is_reopened() {
        // given
        chat("s1", "I want to return my earbuds", "I'd rather exchange them, in white please");

        // when: a new process run, a new session
        String out = chat("s2", "Please change the delivery address to 5 Quay Lane, Hailan");

        // then
        assertThat(out).contains("the replacement for order 20241015 (the exchange, not the original order) will ship to 5 Quay Lane, Hailan");
        assertThat(out).contains("write [persistent] order:20241015.exchangeAddress = 5 Quay Lane, Hailan (decision, user, trusted) -> v1");
    }

    @Test
    void should_print_state_and_audit_when_inspect_and_audit_run_on_the_chat_store() {
        // given
        chat("s1", "I want to return my earbuds");
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(buf, true, StandardCharsets.UTF_8);
        String[] db = {"--db", dir.resolve("mem").toString(), "--user", "carol"};

        // when
        int inspect = DemoMain.run(concat("inspect", db), new ByteArrayInputStream(new byte[0]), out, Map.of());
        int audit = DemoMain.run(concat("audit", db), new ByteArrayInputStream(new byte[0]), out, Map.of());

        // then
        String text = buf.toString(StandardCharsets.UTF_8);
        assertThat(inspect).isZero();
        assertThat(audit).isZero();
        assertThat(text).contains("task return-earbuds (Return or exchange of the earbuds): active");
        assertThat(text).contains("order:20241015.color v1 = black  [active, observation, tool, trusted]");
        assertThat(text).contains("state == replay(log) at seq", "consistent: yes");
    }

    @Test
    void should_reject_an_unknown_argument_with_its_name() {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        int code = DemoMain.run(new String[] {"--colour", "red"}, new ByteArrayInputStream(new byte[0]),
                new PrintStream(buf, true, StandardCharsets.UTF_8), Map.of());
        assertThat(code).isEqualTo(2);
        assertThat(buf.toString(StandardCharsets.UTF_8)).isEqualTo("error: unknown option \"--colour\" (try --help)" + System.lineSeparator());
    }

    private static String[] concat(String first, String[] rest) {
        String[] out = new String[rest.length + 1];
        out[0] = first;
        System.arraycopy(rest, 0, out, 1, rest.length);
        return out;
    }
}

package dev.agentmemory.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The in-chat commands, each through a piped conversation with the offline model. */
class ChatCommandsTest {

    private static final Clock DAY1 = Clock.fixed(Instant.parse("2024-10-19T09:00:00Z"), ZoneOffset.UTC);

    @TempDir
    Path dir;

    private DemoRun chat(Clock clock, String session, String... lines) {
        return DemoRun.of(clock, Map.of(), String.join("\n", lines) + "\n", "chat", "--db", dir.resolve("mem").toString(),
                "--user", "dora", "--session", session);
    }

    @Test
    void should_list_the_commands_and_never_send_a_command_to_the_model() {
        DemoRun run = chat(DAY1, "s1", "/help", "/nonsense", "/history", "/quit", "never read");

        assertThat(run.code()).isZero();
        assertThat(run.out()).contains(Chat.COMMANDS).doesNotContain("assistant>", "never read");
        assertThat(run.errLines()).containsExactly("error: unknown command /nonsense (try /help)",
                "error: /history needs a key, e.g. /history preference.language (/memory lists the keys)");
    }

    @Test
    void should_show_memory_by_layer_why_history_tasks_and_audit_then_forget_in_plain_words() {
        DemoRun run = chat(DAY1, "s1",
                "/memory", "/why", "/tasks",
                "I want to return my earbuds, the right ear is silent",
                "/why",
                "I'd rather exchange them, in white please",
                "From now on answer in Chinese.",
                "/memory", "/tasks", "/history exchange.color",
                "/forget preference.language", "/forget preference.language", "/memory", "/audit", "/quit");

        String out = run.out();
        assertThat(run.code()).as(run.err()).isZero();
        assertThat(run.err()).isEmpty();
        // before anything was said
        assertThat(out).contains("you> nothing remembered yet", "you> no answer yet in this session", "you> no tasks in this session");
        // /why: readable lines, no record ids
        assertThat(out).contains("the last answer used no memory");
        assertThat(out).contains("  [memory used] none");
        // /memory by layer, after the exchange and the preference
        assertThat(out).contains("persistent memory (all your sessions):\n  order:20241015.exchangeColor = white  (v1, observation, from user, trusted)"
                .replace("\n", System.lineSeparator()));
        assertThat(out).contains("  preference.language = Chinese  (v1, preference, from user, trusted)");
        assertThat(out).contains("task return-earbuds:", "  exchange.color = white  (v1, task_fact, from user, trusted)");
        // /tasks
        assertThat(out).contains("  return-earbuds (Return or exchange of the earbuds): active  <- current");
        // /history
        assertThat(out).contains("exchange.color in task return-earbuds:",
                "  v1 = white  [active, task_fact, from user, trusted, 2024-10-19T09:00:00Z]");
        // /forget in plain words, then nothing left to forget
        assertThat(out).contains("forgot preference.language in persistent memory (all your sessions): its value is gone",
                "nothing to forget: preference.language is not remembered (/memory lists the keys)");
        assertThat(out.substring(out.lastIndexOf("forgot preference.language"))).doesNotContain("preference.language = Chinese");
        assertThat(out).doesNotContain("derived", "chat-cache", "embeddings=");
        // /audit after the forget
        assertThat(out).contains("consistent: yes");
    }

    @Test
    void should_show_what_the_answer_used_as_readable_lines_with_layer_value_version_trust_and_why() {
        DemoRun run = chat(DAY1, "s1", "I want to return my earbuds, the right ear is silent", "I'd rather exchange them, in white please", "/why");

        assertThat(run.out()).contains("the last answer used ",
                "  [task-state] order.current = 20241015  (v1, trusted)  <- state of the active task return-earbuds");
        assertThat(run.out()).doesNotContainPattern("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}");
    }

    @Test
    void should_run_the_chat_on_the_real_clock() {
        LocalDate before = LocalDate.now(ZoneOffset.UTC);
        DemoRun run = chat(Clock.systemUTC(), "s1", "I want to return my earbuds, the right ear is silent", "/history issue");
        LocalDate after = LocalDate.now(ZoneOffset.UTC);

        assertThat(run.out()).containsAnyOf("task_fact, from user, trusted, " + before, "task_fact, from user, trusted, " + after);
        // the shop's orders are as recent as the chat's day, so the return window is open
        assertThat(run.out()).contains("It is within the return window");
    }
}

package dev.agentmemory.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code chat} as a user runs it: its own JVM through {@link DemoMain#main}, the conversation piped
 * into its standard input, standard output and error read separately.
 */
class ChatTerminalTest {

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void should_hold_a_whole_conversation_with_memory_and_why_on_piped_input_with_clean_output() throws Exception {
        Path db = dir.resolve("store.mv.db");
        List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), DemoMain.class.getName(), "chat", "--db", db.toString(),
                "--session", "tty-1");
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().remove("OPENAI_API_KEY");
        Process p = pb.start();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Thread o = new Thread(() -> copy(p.getInputStream(), out));
        Thread e = new Thread(() -> copy(p.getErrorStream(), err));
        o.start();
        e.start();
        try (OutputStream in = p.getOutputStream()) {
            in.write(String.join("\n",
                    "hello",
                    "I want to return my earbuds, the right ear is silent",
                    "I'd rather exchange them, in white please",
                    "/why",
                    "I prefer email over phone calls.",
                    "/memory",
                    "/tasks",
                    "/quit", "").getBytes(StandardCharsets.UTF_8));
        }
        assertThat(p.waitFor(150, TimeUnit.SECONDS)).isTrue();
        o.join(5_000);
        e.join(5_000);
        String stdout = out.toString(StandardCharsets.UTF_8);
        String stderr = err.toString(StandardCharsets.UTF_8);

        assertThat(p.exitValue()).as(stderr).isZero();
        assertThat(stdout).startsWith("loading the embedding model (all-MiniLM-L6-v2, runs locally; a few seconds)... ready in ");
        // the --db given as the file name is the same store, printed resolved
        assertThat(stdout).contains("Shop assistant: offline scripted model", "memory in " + db.toAbsolutePath() + System.lineSeparator());
        assertThat(stdout).contains("you> assistant> Hello!", "assistant> I found order ", "assistant> Noted: an exchange instead of a refund");
        assertThat(stdout).contains("you> the last answer used ", "  [task-state] exchange.color = white  (v1, trusted)");
        assertThat(stdout).contains("persistent memory (all your sessions):", "  preference.contact = email  (v1, preference, from user, trusted)");
        assertThat(stdout).contains("  return-earbuds (Return or exchange of the earbuds): active  <- current");
        assertThat(stdout).endsWith("bye" + System.lineSeparator());
        // nothing but the conversation: no log lines, no escape codes, no stack traces, on either stream
        assertThat(stdout).doesNotContain("SLF4J", "\u001b", "WARN", "Exception");
        assertThat(stderr).doesNotContain("SLF4J", "\u001b", "Exception");
        assertThat(db.resolveSibling("store-shop.mv.db")).exists();
    }

    private static void copy(java.io.InputStream in, ByteArrayOutputStream to) {
        try {
            in.transferTo(to);
        } catch (java.io.IOException ex) {
            // the process is gone
        }
    }
}

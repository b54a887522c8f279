package dev.agentmemory.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.core.spi.StoredEvent;
import dev.agentmemory.store.jdbc.JdbcStores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every user mistake the demo meets, run through {@link DemoMain}: one {@code error: ...} line on
 * the error stream naming what was wrong, its own exit code, no stack trace (unless --debug).
 */
class DemoErrorsTest {

    @TempDir
    Path dir;

    private static void assertOneLine(DemoRun run, int code, String message) {
        assertThat(run.code()).as(run.err()).isEqualTo(code);
        assertThat(run.errLines()).as(run.err()).containsExactly("error: " + message);
        assertThat(run.out()).doesNotContain("Exception", "\tat ");
    }

    @Test
    void should_name_an_unknown_option_or_command_or_a_missing_value_with_exit_code_2() {
        assertOneLine(DemoRun.of("--colour", "red"), 2, "unknown option \"--colour\" (try --help)");
        assertOneLine(DemoRun.of("chta"), 2, "unknown command \"chta\" (try --help)");
        assertOneLine(DemoRun.of("inspect", "--db"), 2, "--db needs a value (try --help)");
        assertOneLine(DemoRun.of("inspect", "--user", "a b"), 2, "--user must be 1-64 letters, digits or . _ @ -: \"a b\"");
        assertOneLine(DemoRun.of("inspect", "audit"), 2, "two commands given: inspect and audit (try --help)");
    }

    @Test
    void should_name_a_bad_openai_variable_with_exit_code_2() {
        Map<String, String> env = Map.of("OPENAI_API_KEY", "k", "OPENAI_TIMEOUT", "soon");
        assertOneLine(DemoRun.of(env, "", "chat", "--db", dir.resolve("m").toString()), 2,
                "OPENAI_TIMEOUT must be seconds or an ISO-8601 duration such as PT30S: \"soon\"");
        assertOneLine(DemoRun.of(Map.of("OPENAI_API_KEY", "k", "OPENAI_MAX_RETRIES", "-1"), "", "chat"), 2,
                "OPENAI_MAX_RETRIES must be a whole number from 0 to 10: \"-1\"");
        assertOneLine(DemoRun.of(Map.of("OPENAI_API_KEY", "k", "OPENAI_BASE_URL", "localhost:8080"), "", "chat"), 2,
                "OPENAI_BASE_URL must start with http:// or https://: \"localhost:8080\"");
    }

    @Test
    void should_say_where_it_looked_when_inspect_or_audit_finds_no_store_with_exit_code_4() {
        Path db = dir.resolve("nothing-here");
        String message = "no memory store at " + db.toAbsolutePath() + ".mv.db (run chat or scenario --keep first, or pass the right --db)";
        assertOneLine(DemoRun.of("inspect", "--db", db.toString()), 4, message);
        assertOneLine(DemoRun.of("audit", "--db", db + ".mv.db"), 4, message);
    }

    @Test
    void should_refuse_a_db_whose_parent_is_a_file_with_exit_code_5() throws Exception {
        Path file = Files.writeString(dir.resolve("plain-file"), "x");
        Path db = file.resolve("agent-memory");
        String message = "cannot use --db " + db.toAbsolutePath() + ": " + file.toAbsolutePath()
                + " is a file, not a folder; choose another --db";
        assertOneLine(DemoRun.of(Map.of(), "/quit\n", "chat", "--db", db.toString()), 5, message);
        assertOneLine(DemoRun.of("inspect", "--db", db.toString()), 5, message);
        assertOneLine(DemoRun.of("scenario", "--db", db.toString()), 5, message);
    }

    @Test
    void should_refuse_a_read_only_folder_with_exit_code_5() throws Exception {
        // root may write anywhere, so a read-only folder only exists for other users
        assumeFalse("root".equals(System.getProperty("user.name")), "runs as root: permissions do not stop writes");
        Path ro = Files.createDirectory(dir.resolve("ro"));
        Files.setPosixFilePermissions(ro, PosixFilePermissions.fromString("r-xr-xr-x"));
        try {
            assertOneLine(DemoRun.of(Map.of(), "/quit\n", "chat", "--db", ro.resolve("m").toString()), 5,
                    "cannot write the memory store in " + ro.toAbsolutePath() + " (read-only); choose a writable --db");
        } finally {
            Files.setPosixFilePermissions(ro, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void should_say_the_store_is_in_use_when_another_process_holds_it_with_exit_code_6() throws Exception {
        Path db = dir.resolve("held");
        Process holder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), HoldStore.class.getName(), db.toString())
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try {
            BufferedReader r = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
            assertThat(r.readLine()).isEqualTo("open");
            String message = "the memory store " + db.toAbsolutePath() + ".mv.db is in use by another process (a running chat?);"
                    + " quit it first, or use /memory, /history, /tasks and /audit inside that chat";
            assertOneLine(DemoRun.of("inspect", "--db", db.toString()), 6, message);
            assertOneLine(DemoRun.of("inspect-web", "--db", db.toString()), 6, message);
            assertOneLine(DemoRun.of(Map.of(), "/quit\n", "chat", "--db", db.toString()), 6, message);

            // --debug adds the trace after the same line
            DemoRun debug = DemoRun.of("audit", "--db", db.toString(), "--debug");
            assertThat(debug.code()).isEqualTo(6);
            assertThat(debug.errLines().get(0)).isEqualTo("error: " + message);
            assertThat(debug.err()).contains("\tat ");
        } finally {
            holder.getOutputStream().close();
            if (!holder.waitFor(20, TimeUnit.SECONDS)) {
                holder.destroyForcibly();
            }
        }
    }

    @Test
    void should_refuse_a_store_restored_without_its_high_water_mark_with_exit_code_5() throws Exception {
        // given: a store with data, and a copy of its .mv.db alone (a backup of the database file only)
        Path original = dir.resolve("original");
        try (EventStore store = JdbcStores.h2File(original)) {
            store.append(new Partition("shop", "alice"), 0,
                    List.of(new StoredEvent(1, Instant.parse("2024-10-15T10:00:00Z"), "t", "a", "tr", "{}")));
        }
        Path restored = Files.createDirectory(dir.resolve("restored")).resolve("agent-memory");
        Files.copy(dir.resolve("original.mv.db"), dir.resolve("restored").resolve("agent-memory.mv.db"));

        // then
        String message = "the memory store " + restored.toAbsolutePath() + ".mv.db has data but no agent-memory.hwm"
                + " beside it (copied or restored without it?), so whether it lost writes cannot be checked;"
                + " restore it together with its .hwm, or choose another --db";
        assertOneLine(DemoRun.of("inspect", "--db", restored.toString()), 5, message);
        assertOneLine(DemoRun.of("audit", "--db", restored.toString()), 5, message);
    }

    @Test
    void should_print_the_version_and_each_commands_help() {
        DemoRun version = DemoRun.of("--version");
        assertThat(version.code()).isZero();
        assertThat(version.out()).startsWith("demo-agent ").contains("Java ");
        for (String command : List.of("chat", "scenario", "inspect", "audit")) {
            DemoRun help = DemoRun.of(command, "--help");
            assertThat(help.code()).isZero();
            assertThat(help.out()).startsWith(command + ": ");
        }
        assertThat(DemoRun.of("chat", "--help").out()).contains("OPENAI_TIMEOUT", "OPENAI_MAX_RETRIES", "--session", "--db PATH");
        assertThat(DemoRun.of("--help").out()).contains("exit codes: 0 ok, 1 a check failed, 2 wrong arguments");
    }
}

package dev.agentmemory.demo;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Map;

/** One run of {@link DemoMain#run} with its output, its error stream and its exit code. */
record DemoRun(int code, String out, String err) {

    static DemoRun of(Map<String, String> env, String input, String... args) {
        return of(Clock.systemUTC(), env, input, args);
    }

    static DemoRun of(Clock clock, Map<String, String> env, String input, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = DemoMain.run(args, new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8), env, clock);
        return new DemoRun(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    static DemoRun of(String... args) {
        return of(Map.of(), "", args);
    }

    /** The error stream's lines. */
    java.util.List<String> errLines() {
        return err.lines().toList();
    }
}

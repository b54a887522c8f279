package dev.agentmemory.demo;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** The inspector in the browser from the demo: the inspect-web command and the chat's /inspect. */
class InspectWebTest {

    private static final Clock DAY1 = Clock.fixed(Instant.parse("2024-10-19T09:00:00Z"), ZoneOffset.UTC);
    private static final Pattern ADDRESS = Pattern.compile("open (http://127\\.0\\.0\\.1:(\\d+)/\\?token=([A-Za-z0-9_-]+))");

    @TempDir
    Path dir;

    @Test
    void should_serve_the_stores_memory_behind_the_printed_address_until_enter() throws Exception {
        String db = dir.resolve("mem").toString();
        DemoRun chat = DemoRun.of(DAY1, Map.of(), "I prefer email over phone calls.\n/quit\n", "chat", "--db", db,
                "--user", "dora", "--session", "s1");
        assertThat(chat.code()).as(chat.err()).isZero();

        PipedOutputStream enter = new PipedOutputStream();
        PipedInputStream in = new PipedInputStream(enter);
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8);
        CompletableFuture<Integer> command = CompletableFuture.supplyAsync(
                () -> DemoMain.run(new String[] {"inspect-web", "--db", db}, in, out, out, Map.of(), DAY1));
        Matcher m = ADDRESS.matcher("");
        for (int i = 0; i < 2400 && !m.reset(printed.toString(StandardCharsets.UTF_8)).find(); i++) {
            assertThat(command).as(printed.toString(StandardCharsets.UTF_8)).isNotDone();
            Thread.sleep(25);
        }
        assertThat(m.find(0)).as(printed.toString(StandardCharsets.UTF_8)).isTrue();
        String cookie = "agentmemory_inspector_" + m.group(2) + "=" + m.group(3);

        HttpClient http = HttpClient.newHttpClient();
        HttpResponse<String> signIn = http.send(HttpRequest.newBuilder(URI.create(m.group(1))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(signIn.statusCode()).isEqualTo(303);
        assertThat(signIn.headers().firstValue("Set-Cookie").orElseThrow()).startsWith(cookie + ";");
        HttpResponse<String> memory = http.send(HttpRequest.newBuilder(URI.create(
                "http://127.0.0.1:" + m.group(2) + "/api/memory?user=dora&section=persistent"))
                .header("Cookie", cookie).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(memory.statusCode()).isEqualTo(200);
        assertThat(memory.body()).contains("\"value\":\"email\"");

        enter.write('\n');
        enter.flush();
        assertThat(command.get(30, TimeUnit.SECONDS)).isZero();
        assertThat(printed.toString(StandardCharsets.UTF_8)).contains("(tenant shop, forgetting enabled)",
                "press Enter (or end the input) to stop");
    }

    @Test
    void should_print_the_inspectors_address_in_the_chat() {
        DemoRun run = DemoRun.of(DAY1, Map.of(), "/inspect\n/inspect\n/quit\n", "chat", "--db",
                dir.resolve("mem").toString(), "--user", "dora", "--session", "s1");

        assertThat(run.code()).as(run.err()).isZero();
        Matcher m = Pattern.compile("memory inspector \\(read-only, until the chat ends\\): (http://127\\.0\\.0\\.1:\\d+/\\?token=\\S+)")
                .matcher(run.out());
        assertThat(m.find()).as(run.out()).isTrue();
        String first = m.group(1);
        assertThat(m.find()).isTrue();
        assertThat(m.group(1)).as("the second /inspect prints the same inspector").isEqualTo(first);
    }
}

package dev.agentmemory.demo;

import static dev.agentmemory.demo.StrictOpenAiServer.error;
import static dev.agentmemory.demo.StrictOpenAiServer.hang;
import static dev.agentmemory.demo.StrictOpenAiServer.lastUserText;
import static dev.agentmemory.demo.StrictOpenAiServer.raw;
import static dev.agentmemory.demo.StrictOpenAiServer.text;
import static dev.agentmemory.demo.StrictOpenAiServer.toolCall;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.core.audit.AuditReport;
import dev.agentmemory.langchain4j.SessionRef;
import dev.agentmemory.langchain4j.framing.MemoryFrameParser;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo's OpenAI path (langchain4j-open-ai) against a local server that rejects requests as
 * OpenAI does: whatever the model sends or however the call fails, the next request is accepted
 * and memory stays consistent.
 */
class StrictServerTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void should_reject_an_unanswered_tool_call_and_a_tool_message_without_a_call_and_an_unknown_role() throws Exception {
        try (StrictOpenAiServer server = new StrictOpenAiServer()) {
            HttpClient client = HttpClient.newHttpClient();
            List<String> bodies = List.of(
                    "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\",\"content\":null,"
                            + "\"tool_calls\":[{\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]},"
                            + "{\"role\":\"user\",\"content\":\"again\"}]}",
                    "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"tool\",\"tool_call_id\":\"c9\",\"content\":\"x\"}]}",
                    "{\"messages\":[{\"role\":\"robot\",\"content\":\"hi\"}]}");
            for (String body : bodies) {
                HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create(server.baseUrl() + "/chat/completions"))
                        .POST(HttpRequest.BodyPublishers.ofString(body)).header("Content-Type", "application/json").build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(response.statusCode()).as(body).isEqualTo(400);
            }
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void should_go_on_with_a_valid_request_after_malformed_calls_unknown_tools_errors_hangs_and_echoed_frames()
            throws Exception {
        try (StrictOpenAiServer server = new StrictOpenAiServer()) {
            Map<String, String> env = Map.of("OPENAI_API_KEY", "test-key", "OPENAI_BASE_URL", server.baseUrl(),
                    "OPENAI_TIMEOUT", "PT2S", "OPENAI_MAX_RETRIES", "0");
            try (ShopAgent agent = ShopAgent.open(dir.resolve("mem"), new DemoClock(Instant.parse("2024-10-19T09:00:00Z")),
                    ShopAgent.defaultModel(env))) {
                SessionRef ref = ShopAgent.session("alice", "s1");
                Caller caller = ShopTools.caller(ref);
                agent.engine().write(caller, Proposal.set(caller.persistent(), "preference.language", "English")
                        .kind(Kind.PREFERENCE).source(Source.USER, "msg-0").build());

                // a malformed tool call goes back to the model as a tool error, in the same turn
                server.then(toolCall("call_1", "lookupOrder", r -> "{\"query\": 1042"))
                        .then(text(r -> "Which order do you mean?"));
                assertThat(agent.say(ref, "where is my order?")).isEqualTo("Which order do you mean?");
                assertThat(lastToolMessage(server)).startsWith("Error: invalid arguments for lookupOrder");
                checkAccepted(server, agent, caller);

                // so does a call of a tool that does not exist
                server.then(toolCall("call_2", "cancelEverything", r -> "{}")).then(text(r -> "I cannot cancel orders."));
                assertThat(agent.say(ref, "cancel everything")).isEqualTo("I cannot cancel orders.");
                assertThat(lastToolMessage(server)).isEqualTo(
                        "Error: there is no tool named cancelEverything. Use one of the tools you were given.");
                checkAccepted(server, agent, caller);

                // an HTTP 500 fails the turn; the next one is accepted
                server.then(error(500));
                assertThatThrownBy(() -> agent.say(ref, "hello?")).isInstanceOf(RuntimeException.class);
                server.then(text(r -> "Hello!"));
                assertThat(agent.say(ref, "are you there?")).isEqualTo("Hello!");
                checkAccepted(server, agent, caller);

                // a hang ends at the client's timeout; the next turn is accepted
                server.then(hang());
                assertThatThrownBy(() -> agent.say(ref, "still there?")).isInstanceOf(RuntimeException.class);
                server.then(text(r -> "Yes."));
                assertThat(agent.say(ref, "hello again")).isEqualTo("Yes.");
                checkAccepted(server, agent, caller);

                // a model that echoes the framed block into its tool arguments and its answer
                int before = agent.engine().messages().history(caller, "s1").size();
                server.then(toolCall("call_3", "lookupOrder",
                                r -> JSON.createObjectNode().put("query", lastUserText(r)).toString()))
                        .then(text(r -> "You said: " + lastUserText(r)));
                assertThat(agent.say(ref, "my order is 20241015")).startsWith("You said: <<<AGENT-MEMORY-DATA");
                assertThat(agent.engine().messages().history(caller, "s1").size() - before).isEqualTo(4);
                server.then(text(r -> "Noted."));
                assertThat(agent.say(ref, "thanks")).isEqualTo("Noted.");
                assertThat(agent.engine().messages().history(caller, "s1").size() - before).isEqualTo(6);
                checkAccepted(server, agent, caller);

                // the last request: earlier user messages as typed, the block only in the current one
                var messages = server.received().get(server.received().size() - 1).body().path("messages");
                int users = 0;
                for (var m : messages) {
                    if (m.path("role").asText().equals("user")) {
                        users++;
                    }
                }
                int seen = 0;
                for (var m : messages) {
                    if (m.path("role").asText().equals("user") && ++seen < users) {
                        assertThat(MemoryFrameParser.parse(m.path("content").asText())).as(m.toString()).isEmpty();
                    }
                }
                assertThat(server.remaining()).isZero();
            }
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void should_print_one_line_naming_the_server_for_500_hang_invalid_json_and_refused_connection_and_go_on() throws Exception {
        try (StrictOpenAiServer server = new StrictOpenAiServer()) {
            String url = server.baseUrl();
            Map<String, String> env = Map.of("OPENAI_API_KEY", "test-key", "OPENAI_BASE_URL", url, "OPENAI_MODEL", "test-model",
                    "OPENAI_TIMEOUT", "1", "OPENAI_MAX_RETRIES", "1");
            server.then(error(500)).then(error(500))                                  // turn 1: both attempts fail
                    .then(error(500)).then(text(r -> "Back again."))                   // turn 2: the retry succeeds
                    .then(hang()).then(hang())                                         // turn 3: two timeouts of 1 s
                    .then(raw(200, "<html>not json</html>"))                           // turn 4: not retried
                    .then(toolCall("call_1", "lookupOrder", r -> "{\"query\": 10"))   // turn 5: malformed arguments
                    .then(text(r -> "Which order do you mean?"));
            DemoRun run = DemoRun.of(java.time.Clock.systemUTC(), env, "one\ntwo\nthree\nfour\nfive\n/quit\n", "chat",
                    "--db", dir.resolve("mem").toString());

            assertThat(run.code()).as(run.err()).isZero();
            assertThat(run.out()).contains("Shop assistant: model test-model at " + url + " (timeout 1 s per attempt, 2 attempt(s))");
            String http500 = "the model server at " + url + " answered HTTP 500 (a server error): The server had an error while"
                    + " processing your request.";
            String timeout = "the model server at " + url + " did not answer within 1 s (raise OPENAI_TIMEOUT if it is just slow)";
            assertThat(run.errLines()).containsExactly(
                    "  waiting for the model (attempt 2 of 2): " + http500,
                    "error: " + http500,
                    "  waiting for the model (attempt 2 of 2): " + http500,
                    "  waiting for the model (attempt 2 of 2): " + timeout,
                    "error: " + timeout,
                    "error: the model server at " + url + " sent a reply that is not valid JSON (is OPENAI_BASE_URL an"
                            + " OpenAI-compatible endpoint?)");
            assertThat(run.out()).contains("assistant> Back again.", "assistant> Which order do you mean?");
            assertThat(lastToolMessage(server)).startsWith("Error: invalid arguments for lookupOrder");
            assertThat(server.received()).allSatisfy(r -> assertThat(r.rejection()).as(r.body().toString()).isEmpty());
            assertThat(server.remaining()).isZero();
        }

        // nothing listens on the port any more
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            String url = "http://127.0.0.1:" + s.getLocalPort() + "/v1";
            s.close();
            DemoRun run = DemoRun.of(java.time.Clock.systemUTC(), Map.of("OPENAI_API_KEY", "k", "OPENAI_BASE_URL", url,
                    "OPENAI_MAX_RETRIES", "0"), "hello\n", "chat", "--db", dir.resolve("mem2").toString());
            // the last line sent was not answered: exit code 7
            assertThat(run.code()).isEqualTo(7);
            assertThat(run.errLines()).containsExactly("error: cannot connect to the model server at " + url
                    + " (connection refused); is it running? check OPENAI_BASE_URL");
        }
    }

    private static String lastToolMessage(StrictOpenAiServer server) {
        var messages = server.received().get(server.received().size() - 1).body().path("messages");
        String text = null;
        for (var m : messages) {
            if (m.path("role").asText().equals("tool")) {
                text = m.path("content").asText();
            }
        }
        return text;
    }

    /** Every request so far was accepted, and memory is consistent. */
    private static void checkAccepted(StrictOpenAiServer server, ShopAgent agent, Caller caller) {
        assertThat(server.received()).allSatisfy(r -> assertThat(r.rejection()).as(r.body().toString()).isEmpty());
        AuditReport audit = agent.engine().admin().audit(caller, Duration.ofDays(30));
        assertThat(audit.consistent()).as(String.join("\n", audit.lines())).isTrue();
    }
}

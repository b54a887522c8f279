package dev.agentmemory.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * A local stand-in for the OpenAI chat completions endpoint on 127.0.0.1: answers from a script
 * (text, tool calls, an HTTP error, a hang) and rejects requests the way OpenAI does, with HTTP
 * 400, when an assistant message's tool calls are not all answered by the tool messages right
 * after it, when a tool message answers no preceding call, or when a role is unknown.
 */
final class StrictOpenAiServer implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> ROLES = Set.of("system", "developer", "user", "assistant", "tool");

    /** One scripted answer. */
    record Reply(int status, String body, boolean hang) {
    }

    /** A request as received, with the server's verdict on it. */
    record Received(JsonNode body, Optional<String> rejection) {
    }

    private final HttpServer server;
    private final ExecutorService executor = Executors.newFixedThreadPool(4);
    private final Deque<Function<JsonNode, Reply>> script = new ArrayDeque<>();
    private final List<Received> received = new ArrayList<>();
    private final CountDownLatch release = new CountDownLatch(1);

    StrictOpenAiServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::handle);
        server.setExecutor(executor);
        server.start();
    }

    /** The base URL to give the OpenAI client. */
    String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1";
    }

    synchronized StrictOpenAiServer then(Function<JsonNode, Reply> step) {
        script.add(step);
        return this;
    }

    synchronized List<Received> received() {
        return List.copyOf(received);
    }

    synchronized int remaining() {
        return script.size();
    }

    static Function<JsonNode, Reply> text(Function<JsonNode, String> text) {
        return request -> {
            ObjectNode message = JSON.createObjectNode().put("role", "assistant").put("content", text.apply(request));
            return new Reply(200, completion(message, "stop"), false);
        };
    }

    static Function<JsonNode, Reply> toolCall(String id, String name, Function<JsonNode, String> arguments) {
        return request -> {
            ObjectNode message = JSON.createObjectNode().put("role", "assistant").putNull("content");
            ObjectNode call = message.putArray("tool_calls").addObject().put("id", id).put("type", "function");
            call.putObject("function").put("name", name).put("arguments", arguments.apply(request));
            return new Reply(200, completion(message, "tool_calls"), false);
        };
    }

    static Function<JsonNode, Reply> error(int status) {
        return request -> new Reply(status, "{\"error\":{\"message\":\"The server had an error while processing your request.\","
                + "\"type\":\"server_error\"}}", false);
    }

    /** A reply with this status and body as is (e.g. a body that is not JSON). */
    static Function<JsonNode, Reply> raw(int status, String body) {
        return request -> new Reply(status, body, false);
    }

    static Function<JsonNode, Reply> hang() {
        return request -> new Reply(200, "", true);
    }

    /** The text of the last user message of a request. */
    static String lastUserText(JsonNode request) {
        String text = "";
        for (JsonNode m : request.path("messages")) {
            if ("user".equals(m.path("role").asText())) {
                JsonNode content = m.path("content");
                text = content.isTextual() ? content.asText() : content.path(0).path("text").asText();
            }
        }
        return text;
    }

    private static String completion(ObjectNode message, String finishReason) {
        ObjectNode root = JSON.createObjectNode().put("id", "chatcmpl-test").put("object", "chat.completion")
                .put("created", 1_700_000_000L).put("model", "gpt-4o-mini");
        ArrayNode choices = root.putArray("choices");
        choices.addObject().put("index", 0).put("finish_reason", finishReason).set("message", message);
        root.putObject("usage").put("prompt_tokens", 10).put("completion_tokens", 5).put("total_tokens", 15);
        return root.toString();
    }

    /** Why OpenAI would reject these messages, if it would. */
    static Optional<String> rejection(JsonNode request) {
        JsonNode messages = request.path("messages");
        if (!messages.isArray() || messages.isEmpty()) {
            return Optional.of("'messages' must be a non-empty array");
        }
        Set<String> open = new LinkedHashSet<>();
        for (int i = 0; i < messages.size(); i++) {
            JsonNode m = messages.get(i);
            String role = m.path("role").asText();
            if (!ROLES.contains(role)) {
                return Optional.of("Invalid value: '" + role + "'. Supported values are: 'system', 'assistant', 'user',"
                        + " 'tool' and 'developer'. (messages[" + i + "].role)");
            }
            if (role.equals("tool")) {
                String id = m.path("tool_call_id").asText();
                if (!open.remove(id)) {
                    return Optional.of("Invalid parameter: messages with role 'tool' must be a response to a preceeding"
                            + " message with 'tool_calls'. (messages[" + i + "], tool_call_id " + id + ")");
                }
                continue;
            }
            if (!open.isEmpty()) {
                return Optional.of("An assistant message with 'tool_calls' must be followed by tool messages responding"
                        + " to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
                        + String.join(", ", open) + " (before messages[" + i + "])");
            }
            if (role.equals("assistant")) {
                for (JsonNode call : m.path("tool_calls")) {
                    open.add(call.path("id").asText());
                }
            }
        }
        if (!open.isEmpty()) {
            return Optional.of("An assistant message with 'tool_calls' must be followed by tool messages responding"
                    + " to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
                    + String.join(", ", open));
        }
        return Optional.empty();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            JsonNode body = JSON.readTree(exchange.getRequestBody().readAllBytes());
            Optional<String> rejected = rejection(body);
            Function<JsonNode, Reply> step;
            synchronized (this) {
                received.add(new Received(body, rejected));
                step = rejected.isPresent() ? null : script.poll();
            }
            Reply reply;
            if (rejected.isPresent()) {
                ObjectNode error = JSON.createObjectNode();
                error.putObject("error").put("message", rejected.get()).put("type", "invalid_request_error");
                reply = new Reply(400, error.toString(), false);
            } else if (step == null) {
                reply = new Reply(500, "{\"error\":{\"message\":\"script exhausted\"}}", false);
            } else {
                reply = step.apply(body);
            }
            if (reply.hang()) {
                // answer nothing until the test ends (the client gives up long before)
                release.await(30, TimeUnit.SECONDS);
                return;
            }
            byte[] bytes = reply.body().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(reply.status(), bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            // the client went away (a timeout): nothing to answer
        }
    }

    @Override
    public void close() {
        release.countDown();
        server.stop(0);
        executor.shutdownNow();
    }
}

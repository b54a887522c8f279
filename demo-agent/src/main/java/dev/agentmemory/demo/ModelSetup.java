package dev.agentmemory.demo;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.exception.HttpException;
import dev.langchain4j.exception.UnresolvedModelServerException;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.openai.OpenAiChatModel;
import org.jspecify.annotations.Nullable;
import java.io.PrintStream;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The chat model the demo talks to: the offline scripted model, or an OpenAI-compatible server
 * when {@code OPENAI_API_KEY} is set, configured by {@code OPENAI_BASE_URL}, {@code OPENAI_MODEL},
 * {@code OPENAI_TIMEOUT} (seconds or ISO-8601, default 30 s per attempt) and
 * {@code OPENAI_MAX_RETRIES} (default 2: three attempts). Retries happen here, not in the client,
 * so that each one is announced ("waiting for the model ... (attempt 2 of 3)"), and a failure
 * becomes a {@link DemoError} whose one line names the server and what happened.
 */
record ModelSetup(ChatModel model, boolean offline, @Nullable String baseUrl, String modelName, @Nullable Duration timeout,
                  int attempts) {

    static final String DEFAULT_BASE_URL = "https://api.openai.com/v1";
    static final String DEFAULT_MODEL = "gpt-4o-mini";
    static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);
    static final int DEFAULT_RETRIES = 2;

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The model {@code env} asks for; a bad value fails with a usage DemoError naming the variable. */
    static ModelSetup from(Map<String, String> env, Consumer<String> progress) {
        requireNonNull(progress, "progress");
        String key = env.get("OPENAI_API_KEY");
        if (key == null || key.isBlank()) {
            return new ModelSetup(new ScriptedShopModel(), true, null, ScriptedShopModel.NAME, null, 1);
        }
        String url = blankToNull(env.get("OPENAI_BASE_URL"));
        url = url == null ? DEFAULT_BASE_URL : url.strip();
        if (!url.startsWith("http://") && !url.startsWith("https://")) {
            throw DemoError.usage("OPENAI_BASE_URL must start with http:// or https://: \"" + url + "\"");
        }
        String model = blankToNull(env.get("OPENAI_MODEL"));
        model = model == null ? DEFAULT_MODEL : model.strip();
        String t = blankToNull(env.get("OPENAI_TIMEOUT"));
        Duration timeout = t == null ? DEFAULT_TIMEOUT : duration("OPENAI_TIMEOUT", t.strip());
        String r = blankToNull(env.get("OPENAI_MAX_RETRIES"));
        int retries = r == null ? DEFAULT_RETRIES : count("OPENAI_MAX_RETRIES", r.strip());
        ChatModel client = OpenAiChatModel.builder().apiKey(key).baseUrl(url).modelName(model).timeout(timeout)
                .maxRetries(0).build();
        return new ModelSetup(new Retrying(client, url, timeout, retries + 1, progress), false, url, model, timeout,
                retries + 1);
    }

    /** The banner's description of the model in use. */
    String describe() {
        if (offline) {
            return "offline scripted model (set OPENAI_API_KEY to use an OpenAI-compatible server)";
        }
        return "model " + modelName + " at " + baseUrl + " (timeout " + seconds(requireNonNull(timeout, "an online model has a timeout")) + " per attempt, "
                + attempts + " attempt(s))";
    }

    private static @Nullable String blankToNull(@Nullable String s) {
        return s == null || s.isBlank() ? null : s;
    }

    static Duration duration(String name, String value) {
        try {
            Duration d = value.chars().allMatch(Character::isDigit) ? Duration.ofSeconds(Long.parseLong(value))
                    : Duration.parse(value);
            if (d.isNegative() || d.isZero()) {
                throw DemoError.usage(name + " must be positive: \"" + value + "\"");
            }
            return d;
        } catch (DateTimeParseException | NumberFormatException e) {
            throw DemoError.usage(name + " must be seconds or an ISO-8601 duration such as PT30S: \"" + value + "\"");
        }
    }

    static int count(String name, String value) {
        try {
            int n = Integer.parseInt(value);
            if (n < 0 || n > 10) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw DemoError.usage(name + " must be a whole number from 0 to 10: \"" + value + "\"");
        }
    }

    private static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }

    /** One line naming the server and what went wrong; true in {@code retriable} when trying again may help. */
    static String describe(Throwable error, String url, Duration timeout) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof HttpException h) {
                int s = h.statusCode();
                String detail = serverMessage(h.getMessage());
                String what = switch (s) {
                    case 401, 403 -> "refused the API key (HTTP " + s + "); check OPENAI_API_KEY";
                    case 404 -> "has no such model or endpoint (HTTP 404); check OPENAI_MODEL and OPENAI_BASE_URL";
                    case 429 -> "is rate-limiting this key (HTTP 429); wait and try again";
                    default -> "answered HTTP " + s + (s >= 500 ? " (a server error)" : "");
                };
                return "the model server at " + url + " " + what + (detail.isEmpty() ? "" : ": " + detail);
            }
            if (t instanceof HttpTimeoutException || t instanceof dev.langchain4j.exception.TimeoutException
                    || t instanceof java.net.SocketTimeoutException) {
                return "the model server at " + url + " did not answer within " + seconds(timeout)
                        + " (raise OPENAI_TIMEOUT if it is just slow)";
            }
            if (t instanceof ConnectException) {
                return "cannot connect to the model server at " + url + " (connection refused); is it running? check OPENAI_BASE_URL";
            }
            if (t instanceof UnknownHostException || t instanceof UnresolvedAddressException
                    || t instanceof UnresolvedModelServerException) {
                return "cannot resolve the host of the model server at " + url + "; check OPENAI_BASE_URL";
            }
            if (t instanceof JsonProcessingException) {
                return "the model server at " + url + " sent a reply that is not valid JSON (is OPENAI_BASE_URL an"
                        + " OpenAI-compatible endpoint?)";
            }
        }
        Throwable root = error;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String m = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
        return "the call to the model server at " + url + " failed: " + DemoTrace.clip(m);
    }

    static boolean retriable(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof HttpException h) {
                return h.statusCode() >= 500 || h.statusCode() == 429 || h.statusCode() == 408;
            }
            if (t instanceof HttpTimeoutException || t instanceof dev.langchain4j.exception.TimeoutException
                    || t instanceof java.net.SocketTimeoutException || t instanceof ConnectException) {
                return true;
            }
        }
        return false;
    }

    /** The "message" of an OpenAI error body, else the body's first line, clipped. */
    private static String serverMessage(@Nullable String body) {
        if (body == null || body.isBlank()) {
            return "";
        }
        try {
            JsonNode n = JSON.readTree(body);
            String m = n.path("error").path("message").asText("");
            if (!m.isBlank()) {
                return DemoTrace.clip(m);
            }
        } catch (JsonProcessingException | RuntimeException e) {
            // not JSON: fall through to the raw text
        }
        return DemoTrace.clip(body.strip().lines().findFirst().orElse(""));
    }

    /** Tries a request up to {@code attempts} times, announcing each retry; the last failure becomes a DemoError. */
    static final class Retrying implements ChatModel {
        private final ChatModel delegate;
        private final String url;
        private final Duration timeout;
        private final int attempts;
        private final Consumer<String> progress;

        Retrying(ChatModel delegate, String url, Duration timeout, int attempts, Consumer<String> progress) {
            this.delegate = delegate;
            this.url = url;
            this.timeout = timeout;
            this.attempts = attempts;
            this.progress = progress;
        }

        @Override
        public ChatResponse doChat(ChatRequest request) {
            for (int attempt = 1; ; attempt++) {
                try {
                    return delegate.chat(request);
                } catch (RuntimeException e) {
                    String what = describe(e, url, timeout);
                    if (attempt >= attempts || !retriable(e)) {
                        throw new DemoError(DemoError.MODEL, what, e);
                    }
                    progress.accept("waiting for the model (attempt " + (attempt + 1) + " of " + attempts + "): " + what);
                }
            }
        }
    }
}

package dev.agentmemory.inspector;

import com.sun.net.httpserver.HttpServer;
import dev.agentmemory.langchain4j.AgentMemory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A memory inspector in the browser: what an {@link AgentMemory} remembers about a user (by
 * layer, with the status a block would give each item now), a key's history as a timeline, the
 * memory as of a time and the difference between two times, each turn's framed block beside the
 * conversation's messages, the event log, the audit, and (when enabled) forgetting with a receipt.
 *
 * <pre>{@code
 * try (MemoryInspector inspector = MemoryInspector.start(memory,
 *         InspectorOptions.builder("acme").forgetting(true).build())) {
 *     System.out.println("open " + inspector.uri());
 *     ...
 * }
 * }</pre>
 *
 * <p><b>Security.</b> The server listens on 127.0.0.1 only and answers only requests addressed to
 * {@code 127.0.0.1} or {@code localhost} at its port. Every request needs the random access token
 * of this run ({@link #token()}): in the address once ({@code ?token=}), after which the page
 * keeps it in an HttpOnly, SameSite=Strict cookie. It shows one tenant's users
 * ({@link InspectorOptions#tenant()}) and refuses any other tenant's. It is read-only unless
 * started with {@linkplain InspectorOptions.Builder#forgetting forgetting enabled}; a forget is a
 * POST that must carry this run's CSRF token, which only the page itself can read. Every read of
 * a user's memory and every forget is written to that user's event log with who made it (the
 * actor {@code inspector:<operator>}): a read as an entry of the action ledger
 * ({@code inspector.read}, intent and outcome), a forget as the engine's own forget events.
 * Values are shown as text, never as markup: the page builds its elements from the data with
 * {@code textContent}, every response carries a Content-Security-Policy that allows no inline
 * script and no other origin, and sensitive values are hidden as the readable log hides them.
 *
 * <p>Reads go through the same engine the application uses, so the inspector sees a store a chat
 * is using at the same time. A second process cannot open an H2 file this process holds (H2 locks
 * it); run the inspector in the process that owns the memory, or on a store shared by a database
 * server.
 *
 * <p>Thread-safe. {@link #close()} stops the server; the memory stays open.
 */
public final class MemoryInspector implements AutoCloseable {

    private final HttpServer server;
    private final ExecutorService executor;
    private final Secrets secrets;
    private final URI address;
    private final AtomicBoolean closed = new AtomicBoolean();

    private MemoryInspector(HttpServer server, ExecutorService executor, Secrets secrets, URI address) {
        this.server = server;
        this.executor = executor;
        this.secrets = secrets;
        this.address = address;
    }

    /**
     * Starts an inspector over {@code memory} on 127.0.0.1 and returns once it listens.
     *
     * @throws UncheckedIOException when the port cannot be bound
     */
    public static MemoryInspector start(AgentMemory memory, InspectorOptions options) {
        Objects.requireNonNull(memory, "memory");
        Objects.requireNonNull(options, "options");
        HttpServer server;
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), options.port()), 50);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen on 127.0.0.1:" + options.port() + ": " + e.getMessage(), e);
        }
        int port = server.getAddress().getPort();
        Secrets secrets = Secrets.random(port);
        Views views = new Views(memory, options);
        server.createContext("/", new Front(secrets, options, new Api(views, options, secrets)));
        ExecutorService executor = Executors.newFixedThreadPool(4, r -> {
            Thread t = new Thread(r, "memory-inspector-" + port);
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(executor);
        server.start();
        return new MemoryInspector(server, executor, secrets, URI.create("http://127.0.0.1:" + port + "/"));
    }

    /** The address to open in a browser, with this run's access token: {@code http://127.0.0.1:<port>/?token=...}. */
    public URI uri() {
        return URI.create(address + "?token=" + secrets.token());
    }

    /** The address without the token. */
    public URI address() {
        return address;
    }

    /** This run's access token (random, 32 bytes, URL-safe Base64). */
    public String token() {
        return secrets.token();
    }

    /** Stops the server (at once; requests in progress are cut). Idempotent. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            server.stop(0);
            executor.shutdownNow();
        }
    }
}

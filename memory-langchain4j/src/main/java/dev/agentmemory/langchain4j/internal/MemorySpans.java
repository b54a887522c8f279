package dev.agentmemory.langchain4j.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/**
 * Where the memory's operations report spans, without naming any tracing library: the parts of
 * this module (retriever, augmentor, chat memory store, tools) open a {@link Span} per operation
 * here, and only {@code AgentMemory} chooses the implementation. {@link #NONE} (the default) makes
 * nothing and loads nothing; the OpenTelemetry implementation lives in one package-private class
 * of {@code dev.agentmemory.langchain4j}, referenced only when tracing was configured, so that an
 * application without the OpenTelemetry jar never loads an OpenTelemetry class.
 */
public interface MemorySpans {

    /** Makes no spans. */
    MemorySpans NONE = new MemorySpans() {
        @Override
        public Span start(String operation) {
            return Span.NONE;
        }

        @Override
        public boolean capturesContent() {
            return false;
        }
    };

    /**
     * Starts the span of one memory operation ({@code search_memory}, {@code update_memory},
     * {@code delete_memory}), current until {@link Span#close}, as a child of the current span.
     */
    Span start(String operation);

    /** Whether content attributes (query text, values) are recorded: only when the user opted in. */
    boolean capturesContent();

    /**
     * The span attribute {@code agentmemory.user.hash}: the first 16 hex digits of SHA-256 over
     * tenant and user, so that spans group by user without naming them.
     */
    static String userHash(String tenant, String user) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256")
                    .digest((tenant + "\u0000" + user).getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    /** One operation's span; closing it ends it. Not thread-safe: one thread opens and closes it. */
    interface Span extends AutoCloseable {

        /** A span that records nothing. */
        Span NONE = new Span() {
            @Override
            public Span set(String key, @Nullable String value) {
                return this;
            }

            @Override
            public Span set(String key, long value) {
                return this;
            }

            @Override
            public Span set(String key, double value) {
                return this;
            }

            @Override
            public void failed(Throwable error) {
            }

            @Override
            public void close() {
            }
        };

        /** Sets a string attribute; a null value sets nothing. */
        Span set(String key, @Nullable String value);

        /** Sets a long attribute. */
        Span set(String key, long value);

        /** Sets a double attribute. */
        Span set(String key, double value);

        /** Records that the operation failed with {@code error} (status ERROR, {@code error.type}, the exception). */
        void failed(Throwable error);

        /** Ends the span and restores the context that was current before it. */
        @Override
        void close();
    }

    /**
     * How {@code AgentMemory} hands its spans to a {@code MemoryTools} without a public signature
     * of an exported package naming this type: {@code MemoryTools} registers the setter when its
     * class initializes.
     */
    final class ToolsHook {

        private static volatile @Nullable BiConsumer<Object, MemorySpans> setter;

        private ToolsHook() {
        }

        /** Called once by {@code MemoryTools}'s static initializer. */
        public static void register(BiConsumer<Object, MemorySpans> toolsSetter) {
            setter = Objects.requireNonNull(toolsSetter, "toolsSetter");
        }

        /** Makes {@code tools} (a {@code MemoryTools}, so its class is initialized) report to {@code spans}. */
        public static void attach(Object tools, MemorySpans spans) {
            BiConsumer<Object, MemorySpans> s = setter;
            if (s == null) {
                throw new IllegalStateException("MemoryTools did not register its tracing hook");
            }
            s.accept(tools, spans);
        }
    }
}

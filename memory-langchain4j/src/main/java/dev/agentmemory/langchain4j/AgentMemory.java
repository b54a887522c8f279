package dev.agentmemory.langchain4j;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ForgetMode;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.policy.InstructionDetector;
import dev.agentmemory.core.spi.DerivedData;
import dev.agentmemory.langchain4j.internal.MemorySpans;
import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.core.spi.DerivedData.ForgetRequest;
import dev.agentmemory.store.jdbc.H2FileOption;
import dev.agentmemory.store.jdbc.JdbcStores;
import dev.agentmemory.store.jdbc.JdbcSettings;
import dev.agentmemory.langchain4j.framing.MemoryFramer;
import dev.agentmemory.langchain4j.recall.HybridIndex;
import dev.agentmemory.langchain4j.tools.MemoryTools;
import dev.agentmemory.langchain4j.tools.Summarizer;
import dev.langchain4j.memory.chat.ChatMemoryProvider;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.rag.RetrievalAugmentor;
import dev.langchain4j.rag.content.retriever.ContentRetriever;
import dev.langchain4j.store.memory.chat.ChatMemoryStore;
import org.jspecify.annotations.Nullable;

import javax.sql.DataSource;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * The front door of the LangChain4j module: one object that gives an AiService layered,
 * versioned, auditable memory.
 *
 * <pre>{@code
 * AgentMemory memory = AgentMemory.builder()
 *         .h2File(Path.of("data/memory"))
 *         .embeddingModel(new AllMiniLmL6V2EmbeddingModel())
 *         .build();
 * Assistant assistant = AiServices.builder(Assistant.class)
 *         .chatModel(model)
 *         .chatMemoryProvider(memory.chatMemoryProvider())
 *         .retrievalAugmentor(memory.retrievalAugmentor())
 *         .build();
 * assistant.chat(new SessionRef("acme", "alice", "s1"), "Hello");
 * }</pre>
 *
 * <p>Memory ids are mapped to sessions by one {@link SessionResolver}: by default a
 * {@link SessionRef}, a string {@code tenant/user/session}, or any other string, {@code int},
 * {@code long} or {@code UUID} (each its own user and session in tenant
 * {@value SessionResolver#DEFAULT_TENANT}; see {@link SessionResolver#standard()} and
 * {@link Builder#sessionResolver}). Every read and write is bound to that tenant and user.
 *
 * <p>Configuration (builder methods, or the {@code agentmemory.*} keys of a properties file via
 * {@link Builder#config(Properties)} / {@link Builder#configFile(Path)}, properties or YAML), with defaults;
 * the engine's settings are {@link MemoryEngine.Builder}'s, given through {@link Builder#engineSettings}:
 * <table>
 *   <caption>settings</caption>
 *   <tr><th>key</th><th>builder</th><th>default</th></tr>
 *   <tr><td>{@code agentmemory.ttl.<kind>} (ISO-8601, e.g. {@code P30D})</td><td>{@link MemoryEngine.Builder#ttl}</td><td>none</td></tr>
 *   <tr><td>{@code agentmemory.max-records-per-user}, {@code agentmemory.at-limit} ({@code reject}|{@code forget-oldest})</td><td>{@link MemoryEngine.Builder#maxRecordsPerUser}</td><td>100000, reject</td></tr>
 *   <tr><td>{@code agentmemory.results.state|persistent|episodic}</td><td>{@link Builder#resultsPerLayer}</td><td>20, 10, 5</td></tr>
 *   <tr><td>{@code agentmemory.min-score} (episodic hits)</td><td>{@link Builder#minScore}</td><td>0.0</td></tr>
 *   <tr><td>{@code agentmemory.block.max-chars}, {@code agentmemory.block.max-tokens}</td><td>{@link Builder#blockBudget}</td><td>8000, 2000</td></tr>
 *   <tr><td>{@code agentmemory.strict-conflicts}</td><td>{@link MemoryEngine.Builder#strictConflicts}</td><td>false</td></tr>
 *   <tr><td>{@code agentmemory.delete-mode} ({@code soft}|{@code hard})</td><td>{@link Builder#deleteMode}</td><td>soft</td></tr>
 *   <tr><td>{@code agentmemory.encryption-key} (base64 of 16/24/32 bytes)</td><td>{@link MemoryEngine.Builder#encryptionKey}</td><td>none</td></tr>
 *   <tr><td>{@code agentmemory.window-size}</td><td>{@link Builder#windowSize}</td><td>20</td></tr>
 *   <tr><td>{@code agentmemory.agent}</td><td>{@link Builder#agent}</td><td>assistant</td></tr>
 *   <tr><td>{@code agentmemory.max-message-chars}</td><td>{@link MemoryEngine.Builder#maxMessageChars}</td><td>1048576</td></tr>
 * </table>
 * A bad value or an unknown {@code agentmemory.*} key fails with an {@link IllegalArgumentException}
 * naming the setting. Settings applied in the order given: a later call or file overrides an
 * earlier one.
 *
 * <p>Several application instances, each with its own {@code AgentMemory} (and episodic index),
 * may share one server database ({@link Builder#jdbc}, {@link Builder#dataSource}): each call
 * first catches up on what the others wrote for its user, so they serve one memory, and a new
 * instance loads a user only when it is first asked about that user.
 *
 * <p>Thread-safe. Close it to close the store it opened.
 */
public final class AgentMemory implements AutoCloseable {

    private final MemoryEngine engine;
    private final boolean ownsEngine;
    private final String agent;
    private final Settings settings;
    private final MemoryFramer framer;
    private final EngineChatMemoryStore store;
    private final TurnAwareChatMemoryStore turnStore;
    private final @Nullable Summarizer summarizer;
    private final MemoryContentRetriever retriever;
    private final MemoryContentInjector injector;
    private final MemoryRetrievalAugmentor augmentor;
    private final LastRecalls lastRecalls = new LastRecalls();
    /**
     * The one mapping from memory ids to sessions. Each call that names a memory id maps it once,
     * where it enters (the chat memory store, the retriever or augmentor, a tool, the summarizer),
     * and hands the {@link SessionRef} down; the parts below take sessions, not ids.
     */
    private final SessionResolver sessions;
    private final MemoryTools tools;
    private final @Nullable EpisodicMemory episodic;
    private final ChatMessageRedactor redactor = new ChatMessageRedactor();
    /** What this object registered with the engine, removed again by {@link #close}. */
    private final List<DerivedData> registered = new ArrayList<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final MemorySpans spans;
    /** The metrics, when {@link Builder#metrics} was given (its store wrapper is already under the engine). */
    private final @Nullable MemoryMeters meters;

    private AgentMemory(Builder b, Settings settings, MemoryEngine engine, boolean ownsEngine,
                        @Nullable MemoryMeters meters) {
        this.engine = engine;
        this.ownsEngine = ownsEngine;
        this.settings = settings;
        this.agent = settings.agent;
        this.sessions = b.sessions;
        MemoryFramer.Builder fb = MemoryFramer.builder().maxChars(settings.blockMaxChars).maxTokens(settings.blockMaxTokens)
                .instructionDetector(b.instructionDetector);
        if (b.framingKey != null) {
            fb.key(b.framingKey);
        }
        this.framer = fb.build();
        this.store = new EngineChatMemoryStore(engine, agent, settings.deleteMode, new EchoedBlocks(framer));
        // a forget rewrites the stored messages stating a forgotten value, keeping tool calls paired
        engine.admin().addRedactor(redactor);
        this.summarizer = b.summaryModel == null ? null
                : Summarizer.builder(engine, b.summaryModel).agent(agent).minMessages(b.summaryMinMessages)
                .sessionResolver(sessions).build();
        // tracing: OtelMemorySpans (the one class touching OpenTelemetry) is reached only when configured
        MemorySpans traced = b.tracing == null ? MemorySpans.NONE : b.tracing.spans();
        // metrics: the Micrometer classes are reached only when configured
        this.meters = meters;
        this.spans = meters == null ? traced : meters.spans(traced);
        if (meters != null) {
            engine.admin().addListener(meters.events());
        }
        this.turnStore = new TurnAwareChatMemoryStore(store, framer, summarizer, sessions, agent, spans);
        if (b.embeddingModel != null) {
            int dims = b.embeddingModel.dimension();
            Path dir = b.indexDirectory != null ? b.indexDirectory
                    : b.h2File != null ? b.h2File.resolveSibling(b.h2File.getFileName() + ".recall") : null;
            HybridIndex.Builder ib = HybridIndex.builder(dims);
            b.recallIndex.accept(ib);
            HybridIndex index = (dir != null ? ib.directory(dir) : ib).build();
            this.episodic = new EpisodicMemory(index, b.embeddingModel, engine, agent);
            engine.admin().addListener(episodic);
            register(episodic);
            if (meters != null) {
                meters.index(episodic);
            }
            // engine.admin().compact() also rewrites the index files, so hard-forgotten items leave the disk
            register(new DerivedData() {
                @Override
                public String name() {
                    return "embedding-files";
                }

                @Override
                public int forget(ForgetRequest request) {
                    return 0;
                }

                @Override
                public void compact() {
                    episodic.awaitIndexed();
                    index.purgeDeleted();
                }
            });
        } else {
            this.episodic = null;
        }
        this.retriever = new MemoryContentRetriever(engine, agent, sessions, settings, episodic, spans);
        this.injector = new MemoryContentInjector(framer);
        this.augmentor = new MemoryRetrievalAugmentor(retriever, new AppDocuments(List.of()), injector, engine.clock(),
                turnStore, lastRecalls, spans);
        this.tools = new MemoryTools(engine, agent, settings.deleteMode, sessions);
        if (spans != MemorySpans.NONE) {
            MemorySpans.ToolsHook.attach(tools, spans);
        }
        register(new DerivedData() {
            @Override
            public String name() {
                return "chat-cache";
            }

            @Override
            public int forget(ForgetRequest request) {
                int dropped = store.invalidate(request.partition()) + turnStore.invalidate(request.partition())
                        + lastRecalls.forget(request.partition());
                // the framer's cache of recent prompts is shared by all users: cleared, not counted
                framer.forgetAttached();
                return dropped;
            }
        });
    }

    private void register(DerivedData data) {
        engine.admin().register(data);
        registered.add(data);
    }

    /** A builder with the documented defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** The engine underneath, for everything the adapters do not cover (audit, log, tasks, ledger). */
    public MemoryEngine engine() {
        return engine;
    }

    /** The agent name every call acts as. */
    public String agent() {
        return agent;
    }

    /** The caller for a memory id, mapped by the {@linkplain #sessionResolver() session resolver}. */
    public Caller caller(Object memoryId) {
        return session(memoryId).caller(agent);
    }

    /** The session a memory id stands for: how every part of this memory maps memory ids. */
    public SessionRef session(Object memoryId) {
        return SessionResolver.resolve(sessions, memoryId);
    }

    /** The mapping from memory ids to sessions ({@link Builder#sessionResolver}). */
    public SessionResolver sessionResolver() {
        return sessions;
    }

    /**
     * The chat memory store: logs only the change of each window, keeps the full history in the
     * engine, stores a turn's user message without the memory block injected into it, returns
     * what {@code InMemoryChatMemoryStore} would except tool calls whose results did not all
     * arrive once anything else follows them (a call at the end still waiting for its results, in
     * a loop running on this memory, is returned as it was added; computed on read, never by
     * rewriting history), and forgets the session (with derived data) on {@code deleteMessages}.
     */
    public ChatMemoryStore chatMemoryStore() {
        return turnStore;
    }

    /** The summarizer, when {@link Builder#summarizer} gave it a model. */
    public Optional<Summarizer> summarizer() {
        return Optional.ofNullable(summarizer);
    }

    /** A provider of {@link MessageWindowChatMemory}s over {@link #chatMemoryStore()}, window size from the settings. */
    public ChatMemoryProvider chatMemoryProvider() {
        return memoryId -> MessageWindowChatMemory.builder()
                .id(memoryId)
                .maxMessages(settings.windowSize)
                .chatMemoryStore(turnStore)
                .build();
    }

    /**
     * Blocks until every message and record committed so far is embedded and in the episodic
     * index. Indexing runs on a background thread so that a chat turn does not wait for it; a
     * recall indexes (embedding if needed) its user's queued items that could be results itself,
     * a forget removes queued items at once and {@code close} waits for the thread, so call this
     * only to observe the index directly (tests, bulk imports).
     * Returns at once without an embedding model.
     */
    public void awaitIndexed() {
        if (episodic != null) {
            episodic.awaitIndexed();
        }
    }

    /** How many times the episodic index refreshed what its searches see (0 without one); for tests. */
    long recallIndexRefreshes() {
        EpisodicMemory index = episodic;
        return index == null ? 0 : index.indexRefreshes();
    }

    /**
     * What the episodic index has not indexed yet, for health checks: empty without an embedding
     * model. A recall waits for the backlog at most 30 s and then fails, so a backlog whose oldest
     * commit has waited that long means recalls are failing.
     */
    public Optional<IndexBacklog> indexBacklog() {
        EpisodicMemory index = episodic;
        return index == null ? Optional.empty() : Optional.of(new IndexBacklog(index.pendingItems(), index.oldestWait()));
    }

    /**
     * What the episodic index has not indexed yet.
     *
     * @param pendingItems messages and records committed and not yet in the index
     * @param oldestWait   how long the oldest commit still queued has waited, by the engine's clock; zero when none
     */
    public record IndexBacklog(int pendingItems, java.time.Duration oldestWait) {
        public IndexBacklog {
            Objects.requireNonNull(oldestWait, "oldestWait");
            if (pendingItems < 0) {
                throw new IllegalArgumentException("pendingItems must be >= 0: " + pendingItems);
            }
        }
    }

    /** The layered retriever (session and task state, persistent memory, episodic clues). */
    public ContentRetriever contentRetriever() {
        return retriever;
    }

    /**
     * The retrieval augmentor to register on an AiService: layered retrieval, framed injection,
     * and a record of what was used (see {@link #lastRecall}).
     */
    public RetrievalAugmentor retrievalAugmentor() {
        return augmentor;
    }

    /**
     * The retrieval augmentor for an AiService that also has knowledge of its own (an
     * {@code EmbeddingStoreContentRetriever} over its documents, a web search): the memory's
     * layers and every content of {@code documents} go into one framed block, in one budget
     * ({@link Builder#blockBudget}), and into {@link #lastRecall}. The application's contents are
     * framed as untrusted documents (layer {@code document}, kind {@code document}, status
     * {@code retrieved}, source {@code retriever-N} with N the retriever's position here, then
     * {@code :} and the document's {@code file_name} or {@code url} when it has one), flagged
     * when they read like instructions, and placed after the current state, the open tasks and the
     * persistent facts, before episodic hits and summaries: a full budget cuts those first, then
     * the last documents. Each retriever is asked with the same query (text and metadata) and
     * keeps its own result limit; its contents keep their metadata, except {@code memory.*} keys,
     * which the memory sets. With no retrievers this is {@link #retrievalAugmentor()}.
     *
     * <p>This is the one way to combine the memory with other retrievers: a
     * {@code DefaultRetrievalAugmentor} over several retrievers would re-rank the memory's items
     * out of their priority order and record nothing for {@code lastRecall}.
     *
     * @throws IllegalArgumentException when {@link #contentRetriever()} is among them (the memory
     *                                  is already asked)
     */
    public RetrievalAugmentor retrievalAugmentor(ContentRetriever... documents) {
        Objects.requireNonNull(documents, "documents");
        List<ContentRetriever> list = new ArrayList<>();
        for (int i = 0; i < documents.length; i++) {
            ContentRetriever r = Objects.requireNonNull(documents[i], "documents[" + i + "]");
            if (r == retriever) {
                throw new IllegalArgumentException("documents[" + i + "] is this memory's own contentRetriever(),"
                        + " which the augmentor already asks; pass only the application's retrievers");
            }
            list.add(r);
        }
        return list.isEmpty() ? augmentor : augmentor(list);
    }

    private MemoryRetrievalAugmentor augmentor(List<ContentRetriever> documents) {
        return new MemoryRetrievalAugmentor(retriever, new AppDocuments(documents), injector, engine.clock(), turnStore,
                lastRecalls, spans);
    }

    /**
     * The memory tools to register with {@code AiServices.builder(...).tools(...)}: remember,
     * update state, forget, start/suspend/resume/end a task; every call is a proposal the engine
     * validates, and a rejection comes back to the model with its reason.
     */
    public MemoryTools tools() {
        return tools;
    }

    /**
     * What the last augmentation of a session put in front of the model, if any; nothing once a
     * forget of the user (made here or by another instance over the same store) removed it.
     */
    public Optional<Recall> lastRecall(Object memoryId) {
        SessionRef ref = session(memoryId);
        // another instance's forget reaches this memory's derived data (which drops the recall) here
        engine.admin().sync(ref.caller(agent));
        return lastRecalls.get(ref);
    }

    /**
     * The recent turns of a session as the model received them, oldest first: what each of the
     * session's last {@value LastRecalls#TURNS_PER_SESSION} augmentations used and cut, and the
     * framed message sent ({@link Recall#sent()}, {@link Recall#block()}). Kept in this object's
     * memory only: empty after a restart, and dropped, for every session of the user, by any
     * forget of that user's memory (made here or by another instance over the same store), since
     * it holds remembered values. For tools that show what a conversation saw (the inspector).
     */
    public List<Recall> recentRecalls(Object memoryId) {
        SessionRef ref = session(memoryId);
        engine.admin().sync(ref.caller(agent));
        return lastRecalls.recent(ref);
    }

    /** The framer used for injection (and for stripping blocks before messages are stored). */
    MemoryFramer framer() {
        return framer;
    }

    /**
     * Closes this memory: what it registered with the engine (listeners, derived data, the message
     * redactor) is removed, its episodic index is closed, and the engine is closed when this
     * memory opened it. Other {@code AgentMemory} objects over an engine passed to
     * {@link Builder#engine} keep working, and so does that engine. Idempotent.
     *
     * <p>Every part is closed even when one fails (after a full disk, the recall index cannot
     * write its last changes): the engine, and with it the store's hold on its file, is released
     * all the same, so a new memory can open the file in this process once the cause is fixed.
     * The first failure is then thrown, with the others added to it as suppressed.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        List<Runnable> steps = new ArrayList<>();
        steps.add(store::flushDeferred); // a turn whose model call failed left its user message here
        registered.forEach(data -> steps.add(() -> engine.admin().unregister(data)));
        steps.add(retriever::close);
        steps.add(() -> engine.admin().removeRedactor(redactor));
        Summarizer summaries = summarizer;
        if (summaries != null) {
            steps.add(summaries::close);
        }
        EpisodicMemory index = episodic;
        if (index != null) {
            steps.add(() -> engine.admin().removeListener(index));
            steps.add(index::close);
        }
        MemoryMeters metered = meters;
        if (metered != null) {
            steps.add(() -> engine.admin().removeListener(metered.events()));
            steps.add(metered::close);
        }
        if (ownsEngine) {
            steps.add(engine::close);
        }
        RuntimeException failed = null;
        for (Runnable step : steps) {
            try {
                step.run();
            } catch (RuntimeException e) {
                if (failed == null) {
                    failed = e;
                } else {
                    failed.addSuppressed(e);
                }
            }
        }
        if (failed != null) {
            throw failed;
        }
    }

    /**
     * Configures an {@link AgentMemory}. Not thread-safe. {@link #build} takes a snapshot: changing
     * the builder afterwards changes only memories built later.
     */
    public static final class Builder {
        private @Nullable MemoryEngine engine;
        private @Nullable EventStore store;
        private @Nullable Path h2File;
        private @Nullable DataSource dataSource;
        private @Nullable JdbcSettings jdbc;
        /** Which of engine, store, h2File, jdbc and dataSource was given. */
        private @Nullable String source;
        private @Nullable EmbeddingModel embeddingModel;
        private @Nullable ChatModel summaryModel;
        private int summaryMinMessages = 4;
        private @Nullable Path indexDirectory;
        private Consumer<HybridIndex.Builder> recallIndex = ib -> { };
        private byte @Nullable [] framingKey;
        private SessionResolver sessions = SessionResolver.standard();
        private InstructionDetector instructionDetector = InstructionDetector.standard();
        private final Settings settings = new Settings();
        private @Nullable MemoryTracing tracing;
        private @Nullable MemoryMetrics metrics;

        private Builder() {
        }

        /**
         * A ready engine; {@linkplain #engineSettings engine settings} must then be set on its
         * builder. Any number of memories may share one engine. Fails when
         * {@link #store} or {@link #h2File} was given.
         */
        public Builder engine(MemoryEngine engine) {
            Objects.requireNonNull(engine, "engine");
            source("engine");
            this.engine = engine;
            return this;
        }

        /** The event store for a new engine. Fails when {@link #engine} or {@link #h2File} was given. */
        public Builder store(EventStore store) {
            Objects.requireNonNull(store, "store");
            source("store");
            this.store = store;
            return this;
        }

        /**
         * An H2 database file (path without the {@code .mv.db} suffix) for a new engine; closed with
         * this memory. Fails when {@link #engine} or {@link #store} was given. One owner per file:
         * {@code build()} fails while another memory or store has the file open, in this JVM or in
         * another process (see {@code JdbcStores.h2File}).
         */
        public Builder h2File(Path path) {
            Objects.requireNonNull(path, "path");
            source("h2File");
            this.h2File = path;
            return this;
        }

        /**
         * Opens the {@link #h2File} even when its high-water mark ({@code <name>.hwm}) is missing
         * while the file has data (the {@code .mv.db} was copied or restored alone), which is
         * refused otherwise; every audit then reports that completeness is unverified. Also
         * {@code agentmemory.h2.accept-missing-high-water-mark=true}. See
         * {@code H2FileOption.ACCEPT_MISSING_HIGH_WATER_MARK}.
         */
        public Builder acceptMissingHighWaterMark() {
            settings.acceptMissingHighWaterMark = true;
            return this;
        }

        /**
         * Events on a database server, e.g. PostgreSQL ({@code jdbc:postgresql://host:5432/db}; add
         * the driver {@code org.postgresql:postgresql}), through a connection pool that
         * {@link #build} opens and {@link AgentMemory#close} closes. Also set by the
         * {@code agentmemory.jdbc.*} keys. Fails when another store was given.
         */
        public Builder jdbc(String url, String user, String password) {
            JdbcSettings settings = JdbcSettings.of(url, user, password);
            source("jdbc");
            this.jdbc = settings;
            return this;
        }

        /**
         * Events in the database of a {@link DataSource} the application owns and closes (the
         * memory only borrows connections). Fails when another store was given.
         */
        public Builder dataSource(DataSource dataSource) {
            Objects.requireNonNull(dataSource, "dataSource");
            source("dataSource");
            this.dataSource = dataSource;
            return this;
        }

        private void source(String given) {
            if (source != null && !source.equals(given)) {
                throw new IllegalStateException("cannot give both " + source + " and " + given
                        + ": the memory's store comes from one of engine, store, h2File, jdbc and dataSource");
            }
            source = given;
        }

        /**
         * The embedding model for episodic recall: every message and record is embedded once,
         * when it is written. Without one, the episodic layer is off.
         */
        /**
         * Compacts messages that left the window into summary records with {@code model}, at the
         * end of each turn once at least {@code minMessages} are waiting. A summary keeps the
         * indices of the messages it covers, and forgetting any of them (or a fact built from
         * them) invalidates it. Default: no summaries.
         */
        public Builder summarizer(ChatModel model, int minMessages) {
            this.summaryModel = Objects.requireNonNull(model, "model");
            if (minMessages < 1) {
                throw new IllegalArgumentException("summarizer minMessages must be >= 1: " + minMessages);
            }
            this.summaryMinMessages = minMessages;
            return this;
        }

        public Builder embeddingModel(EmbeddingModel model) {
            this.embeddingModel = Objects.requireNonNull(model, "model");
            return this;
        }

        /**
         * Where the episodic index is kept. Default: next to the H2 file ({@code <file>.recall}),
         * or in memory (rebuilt from the log after a restart) when there is none.
         */
        public Builder indexDirectory(Path directory) {
            this.indexDirectory = Objects.requireNonNull(directory, "directory");
            return this;
        }

        /**
         * Adjusts the settings of the episodic index (fusion weights, exact-search size,
         * candidates; see {@link HybridIndex.Builder}); its directory is set by
         * {@link #indexDirectory} or {@link #h2File}. Default: the index's defaults.
         */
        public Builder recallIndex(Consumer<HybridIndex.Builder> settings) {
            this.recallIndex = Objects.requireNonNull(settings, "settings");
            return this;
        }

        /** The agent name every call acts as. Default: {@code assistant}. */
        public Builder agent(String agent) {
            settings.agent = Objects.requireNonNull(agent, "agent");
            return this;
        }

        /**
         * Spans of the OpenTelemetry GenAI memory conventions around recalls, writes and forgets
         * (see {@link MemoryTracing}). Without it no span is made and no OpenTelemetry class is loaded.
         */
        public Builder tracing(MemoryTracing tracing) {
            this.tracing = Objects.requireNonNull(tracing, "tracing");
            return this;
        }

        /**
         * Meters of the memory's recalls, writes, forgets, index backlog, store errors and catch-up
         * in a Micrometer registry (see {@link MemoryMetrics}). Without it nothing is counted and no
         * Micrometer class is loaded.
         */
        public Builder metrics(MemoryMetrics metrics) {
            this.metrics = Objects.requireNonNull(metrics, "metrics");
            return this;
        }

        /**
         * How memory ids map to sessions, for every part of the memory (chat store, retriever,
         * tools, summarizer, {@link AgentMemory#lastRecall}). A {@link SessionRef} id always stands
         * for itself. Default: {@link SessionResolver#standard()}.
         */
        public Builder sessionResolver(SessionResolver resolver) {
            this.sessions = Objects.requireNonNull(resolver, "resolver");
            return this;
        }

        /** Messages kept in each chat memory window. Default: 20. */
        public Builder windowSize(int messages) {
            settings.windowSize(messages);
            return this;
        }

        /** Most contents per layer (state, persistent, episodic); 0 turns a layer off. Default: 20, 10, 5. */
        public Builder resultsPerLayer(int state, int persistent, int episodic) {
            settings.results(state, persistent, episodic);
            return this;
        }

        /** Episodic hits scoring below this are dropped. Default: 0. */
        public Builder minScore(double minScore) {
            settings.minScore(minScore);
            return this;
        }

        /** Budget of the memory block in characters and approximate tokens. Default: 8,000 and 2,000. */
        public Builder blockBudget(int maxChars, int maxTokens) {
            settings.blockBudget(maxChars, maxTokens);
            return this;
        }

        /** How {@code deleteMessages} forgets a session. Default: {@link ForgetMode#SOFT}. */
        public Builder deleteMode(ForgetMode mode) {
            settings.deleteMode = Objects.requireNonNull(mode, "mode");
            return this;
        }

        /** The key authenticating memory blocks (so only this memory's blocks are stripped). Default: random. */
        public Builder framingKey(byte[] key) {
            Objects.requireNonNull(key, "key");
            if (key.length < 16) {
                throw new IllegalArgumentException("framing key must be at least 16 bytes: " + key.length);
            }
            this.framingKey = key.clone();
            return this;
        }

        /**
         * Decides which untrusted text reads like an instruction: such text is flagged in memory
         * blocks and, when this builder makes the engine, kept only as an observation. With a ready
         * {@link #engine}, set it on {@code MemoryEngine.builder()} too. Default:
         * {@link InstructionDetector#standard()}.
         */
        public Builder instructionDetector(InstructionDetector detector) {
            this.instructionDetector = Objects.requireNonNull(detector, "detector");
            return this;
        }

        /**
         * Settings for the engine this builder makes: the clock, TTLs, the record limit, strict
         * conflicts, encryption, the longest message and everything else {@link MemoryEngine.Builder}
         * offers, applied to it in {@link #build} in the order given among the engine settings of
         * {@link #config} files. For example
         * {@code .engineSettings(e -> e.clock(clock).ttl(Kind.OBSERVATION, Duration.ofDays(7)))}.
         * The engine's store comes from this builder ({@link #store}, {@link #h2File}, ...), not
         * from here. Fails in {@link #build} together with a ready {@link #engine}, whose settings
         * were fixed when it was built.
         */
        public Builder engineSettings(Consumer<MemoryEngine.Builder> settings) {
            this.settings.engineSettings(Objects.requireNonNull(settings, "settings"));
            return this;
        }

        /** Applies the {@code agentmemory.*} keys of {@code properties} (others are ignored). */
        public Builder config(Properties properties) {
            settings.apply(Objects.requireNonNull(properties, "properties"));
            return this;
        }

        /**
         * Applies the {@code agentmemory.*} keys of a {@code .properties} file, or of a
         * {@code .yaml}/{@code .yml} file whose nested maps spell the same keys
         * ({@code agentmemory: {window-size: 30, ttl: {observation: P7D}}}).
         */
        public Builder configFile(Path file) {
            Objects.requireNonNull(file, "file");
            String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
            boolean yaml = name.endsWith(".yaml") || name.endsWith(".yml");
            if (!yaml && !name.endsWith(".properties")) {
                throw new IllegalArgumentException("config file must end in .properties, .yaml or .yml: " + file);
            }
            Properties p = new Properties();
            try (InputStream in = Files.newInputStream(file)) {
                if (yaml) {
                    YamlConfig.load(in, file, p);
                } else {
                    p.load(in);
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read config file " + file, e);
            }
            return config(p);
        }

        /**
         * Builds the memory: over the given engine, or a new engine over the given store or H2
         * file (an in-memory store when none is given). Fails when more than one of them is given,
         * or when {@linkplain #engineSettings engine settings} (also those of a config file) are set
         * together with a ready engine.
         */
        public AgentMemory build() {
            JdbcSettings server = jdbc;
            if (settings.jdbcUrl != null) {
                if (source != null && !source.equals("jdbc")) {
                    throw new IllegalStateException("cannot give both " + source + " and " + Settings.PREFIX
                            + "jdbc.url: the memory's store comes from one of engine, store, h2File, jdbc and dataSource");
                }
                if (server == null) {
                    server = JdbcSettings.of(settings.jdbcUrl, settings.jdbcUser, settings.jdbcPassword);
                }
            }
            if (server != null && settings.jdbcPoolSize != null) {
                server = server.poolSize(settings.jdbcPoolSize);
            }
            if (engine != null) {
                if (!settings.engineSettingsSet.isEmpty()) {
                    throw new IllegalStateException("settings " + settings.engineSettingsSet
                            + " belong to the engine: set them on MemoryEngine.builder() when passing a ready engine");
                }
                return new AgentMemory(this, settings.copy(), engine, false,
                        metrics == null ? null : metrics.meters(settings.agent));
            }
            MemoryMeters meters = metrics == null ? null : metrics.meters(settings.agent);
            MemoryEngine.Builder eb = MemoryEngine.builder().instructionDetector(instructionDetector);
            settings.engineSteps.forEach(step -> step.accept(eb));
            EventStore opened = null;
            if (store != null) {
                eb.store(meters == null ? store : meters.store(store));
            } else if (h2File != null) {
                opened = settings.acceptMissingHighWaterMark
                        ? JdbcStores.h2File(h2File, H2FileOption.ACCEPT_MISSING_HIGH_WATER_MARK)
                        : JdbcStores.h2File(h2File);
            } else if (dataSource != null) {
                opened = JdbcStores.dataSource(dataSource);
            } else if (server != null) {
                opened = JdbcStores.connect(server);
            }
            MemoryEngine built;
            if (opened == null) {
                built = eb.build();
            } else {
                try {
                    built = eb.store(meters == null ? opened : meters.store(opened)).build();
                } catch (RuntimeException e) {
                    opened.close();
                    throw e;
                }
            }
            try {
                return new AgentMemory(this, settings.copy(), built, true, meters);
            } catch (RuntimeException e) {
                built.close();
                throw e;
            }
        }
    }
}

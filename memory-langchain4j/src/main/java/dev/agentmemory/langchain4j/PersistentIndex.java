package dev.agentmemory.langchain4j;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ScopeView.KeyState;
import dev.agentmemory.core.Scope.Layer;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.event.LoggedEvent;
import dev.agentmemory.core.internal.hooks.EventListener;
import dev.agentmemory.core.internal.state.MemoryState;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.MemoryValue;
import dev.agentmemory.core.ReadOptions;
import dev.agentmemory.core.Scope;
import dev.agentmemory.core.spi.DerivedData;
import dev.agentmemory.core.spi.Partition;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Ranks a user's persistent memory for a query without scanning it: preferences first, then by
 * the share of the query's terms a record's key and value contain, newest first, then by key.
 *
 * <p>Per user and agent it keeps a {@link PersistentTerms} index of the servable persistent keys.
 * It is built over every key at the first query, and then kept up to date key by key: as a
 * listener of the engine it hears which records each committed or followed event changed, and
 * at the next query recomputes only those keys' states; a time-ordered queue holds the next
 * instant at which the passage of time alone changes each key's state (a deadline, a window's
 * edge), so that a key enters or leaves exactly when {@link MemoryEngine#servable} would change
 * its answer. When it cannot tell what changed (a reload of the user's state from the store at
 * another sequence, events it did not hear, a forget of the whole user, a change it does not
 * know) it builds again from scratch. A forget removes the forgotten keys' entries, and so their
 * terms, at once. Thread-safe.
 *
 * <p>A build from scratch over more than {@link #SCAN_ABOVE} servable keys is not made on the
 * request path: the query that needs it is answered by one pass over the keys
 * ({@link PersistentScan}), and the index is built from the same key states on a daemon thread
 * of this object ({@value #BUILDER_THREAD}-N, started at the first such build, stopped by
 * {@link #detach}); within a request ({@link #deferringBuilds}: a retrieval) it starts when the
 * request returns. Meanwhile the index follows the state it is built from: it hears the events
 * committed after it and remembers the forgets, which the built index takes in before any query
 * uses it, so the first query after the build updates only the keys that changed. A query
 * arriving before the build is in place passes over the keys again, without waiting (over the
 * same key states when nothing changed since); a build that fails is
 * logged, and the next query that needs one schedules it again.
 */
final class PersistentIndex implements DerivedData, EventListener {

    /** Preferences first, then by overlap with the query, newest first, then by key. */
    static final Comparator<Ranked> RANKING = Comparator.comparing(Ranked::preference).reversed()
            .thenComparing(Comparator.comparingDouble(Ranked::score).reversed())
            .thenComparing(Comparator.comparing(Ranked::recordedAt).reversed())
            .thenComparing(r -> r.key().key());

    /** A persistent key as ranked for a query. */
    record Ranked(KeyState key, double score, boolean preference, Instant recordedAt) {
    }

    private static final System.Logger LOG = System.getLogger(PersistentIndex.class.getName());

    /** The name of the thread that builds indexes off the request path, before a number per object. */
    static final String BUILDER_THREAD = "agent-memory-persistent-index";
    private static final AtomicInteger BUILDERS = new AtomicInteger();

    /** Per user, the index of each agent that asked (an agent's private records are its own). */
    private final Map<Partition, Map<String, AgentIndex>> indexes = new ConcurrentHashMap<>();
    /** How many times an index was built over every key (for tests: most queries must not). */
    private final AtomicLong builds = new AtomicLong();
    /** How many queries were answered by a pass over every key (for tests). */
    private final AtomicLong scans = new AtomicLong();

    /** Keys added or removed since the last sort of every key before it is sorted again (at least). */
    static final int COMPACT_ABOVE = 1024;
    /** Servable keys above which an index is built off the request path (at or below: by the query). */
    static final int SCAN_ABOVE = 4096;

    private final MemoryEngine engine;
    private final int compactAbove;
    private final int scanAbove;
    private final String builderThread = BUILDER_THREAD + "-" + BUILDERS.incrementAndGet();
    /** The builder's thread, started at the first build off the request path; null before and after {@link #detach}. */
    private @Nullable ExecutorService builder;
    /** The last thread the builder started (one at a time), for {@link #detach} to wait for its end. */
    private volatile @Nullable Thread builderRunning;
    private boolean detached;
    /** Whether a failed build was logged as a warning (the later ones are logged at debug level). */
    private final AtomicBoolean failureLogged = new AtomicBoolean();
    /** For tests: runs on the builder's thread after an index is built and before it is put in place. */
    private volatile @Nullable Runnable beforePuttingInPlace;
    /** On the thread of a {@link #deferringBuilds} call: the builds its queries asked for, started when it returns. */
    private final ThreadLocal<@Nullable List<Runnable>> deferred = new ThreadLocal<>();

    PersistentIndex(MemoryEngine engine) {
        this(engine, COMPACT_ABOVE, SCAN_ABOVE);
    }

    /** With another {@link #COMPACT_ABOVE}, for tests. */
    PersistentIndex(MemoryEngine engine, int compactAbove) {
        this(engine, compactAbove, SCAN_ABOVE);
    }

    /** With another {@link #COMPACT_ABOVE} and {@link #SCAN_ABOVE}, for tests. */
    PersistentIndex(MemoryEngine engine, int compactAbove, int scanAbove) {
        this.engine = engine;
        this.compactAbove = compactAbove;
        this.scanAbove = scanAbove;
    }

    /**
     * One agent's index of a user's keys and the build of it under way off the request path, if
     * any: the index then follows the state the build started from. Guarded by its own monitor.
     */
    private static final class AgentIndex {
        PersistentTerms terms;
        /** The key states of the build whose result the index awaits; a build of other ones is dropped when done. */
        @Nullable Keys awaited;

        AgentIndex(PersistentTerms terms) {
            this.terms = terms;
        }
    }

    /**
     * What a build over every key starts from: the servable keys and when time changes each key,
     * read from the state at {@code lastSeq} at instant {@code readAt}; {@code firstDue} the first
     * of those changes. Compared by identity.
     */
    private record Keys(List<KeyState> servable, Map<MemoryKey, Instant> due, long lastSeq, Instant readAt,
                        Instant firstDue) {
    }

    /** Starts hearing the engine's events and forgets; before the first query. */
    void attach() {
        engine.admin().addListener(this);
        engine.admin().register(this);
    }

    /** Stops what {@link #attach} started, and the builder's thread (waiting for a build under way to end). */
    void detach() {
        engine.admin().removeListener(this);
        engine.admin().unregister(this);
        ExecutorService stopping;
        synchronized (this) {
            detached = true;
            stopping = builder;
            builder = null;
        }
        if (stopping != null) {
            stopping.shutdownNow();
            try {
                Thread running = builderRunning;
                if (!stopping.awaitTermination(30, TimeUnit.SECONDS)) {
                    LOG.log(System.Logger.Level.WARNING, "the persistent index build did not end in 30 s");
                } else if (running != null) {
                    // terminated is said by the thread on its way out: wait for it to be gone
                    running.join(TimeUnit.SECONDS.toMillis(30));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The best {@code keep} servable persistent keys for a query with these terms, best first. */
    List<Ranked> top(Caller caller, Set<String> queryTerms, int keep) {
        AgentIndex index = indexes.computeIfAbsent(new Partition(caller.tenant(), caller.user()),
                p -> new ConcurrentHashMap<>()).computeIfAbsent(caller.agent(),
                a -> new AgentIndex(new PersistentTerms(compactAbove)));
        // Caught up once with a shared store, then under the user's lock: no event is committed
        // (and so heard) while the index compares its sequence with the state's and catches up.
        return engine.admin().consistently(caller, () -> engine.admin().holding(caller, state -> {
            synchronized (index) {
                return top(index, caller, state, queryTerms, keep);
            }
        }));
    }

    private List<Ranked> top(AgentIndex index, Caller caller, MemoryState state, Set<String> queryTerms, int keep) {
        PersistentTerms terms = index.terms;
        // the time before the reads: a boundary passed while they run is found again next time
        Instant now = engine.clock().instant();
        Set<MemoryKey> changed = terms.followsState(state.lastSeq()) ? terms.changedKeys(state, now) : null;
        if (changed != null && changed.size() <= terms.rebuildAbove()) {
            Scope scope = caller.persistent();
            for (MemoryKey key : changed) {
                List<String> ids = state.keys(scope).get(key);
                terms.put(key, engine.keyState(caller, scope, key, ReadOptions.DEFAULT),
                        ids == null ? Instant.MAX : changesAt(state, ids, now));
            }
            return terms.top(queryTerms, keep);
        }
        Keys keys = stillCurrent(index, state, now);
        if (keys == null) {
            keys = keys(caller, state, now);
        }
        if (keys.servable().size() <= scanAbove) {
            index.awaited = null;
            terms.rebuild(keys.servable(), keys.due(), keys.lastSeq());
            builds.incrementAndGet();
            return terms.top(queryTerms, keep);
        }
        scans.incrementAndGet();
        if (index.awaited == null || !terms.followsWithoutKeys(keys.lastSeq())) {
            startBuild(index, keys);
        }
        return PersistentScan.top(keys.servable(), queryTerms, keep);
    }

    /**
     * The key states the build under way starts from, when a read now would give the same: the
     * index heard no change since and no key's state has changed by time alone (no due instant
     * passed). A query while the build is under way then passes over them without reading them again.
     */
    private static @Nullable Keys stillCurrent(AgentIndex index, MemoryState state, Instant now) {
        Keys keys = index.awaited;
        return keys != null && index.terms.followsWithoutKeys(state.lastSeq()) && index.terms.heardNoChange()
                && !now.isBefore(keys.readAt()) && now.isBefore(keys.firstDue()) ? keys : null;
    }

    /** One pass over the scope's keys: what is served (the only persistent scope of the user) and when time changes it. */
    private Keys keys(Caller caller, MemoryState state, Instant now) {
        Scope scope = caller.persistent();
        List<KeyState> servable = new ArrayList<>(state.keys(scope).size());
        Map<MemoryKey, Instant> due = new HashMap<>();
        engine.admin().forEachKey(caller, scope, (key, versions) -> {
            Instant at = changesAt(versions, now);
            if (!at.equals(Instant.MAX)) {
                due.put(key.key(), at);
            }
            if (!key.isEmpty()) {
                servable.add(key);
            }
        });
        Instant firstDue = Instant.MAX;
        for (Instant at : due.values()) {
            firstDue = at.isBefore(firstDue) ? at : firstDue;
        }
        return new Keys(servable, due, state.lastSeq(), now, firstDue);
    }

    /**
     * Makes {@code index} follow the state of {@code keys} and hands the build of its keys to the
     * builder's thread (under the index's monitor). Nothing is built once detached: the queries pass
     * over the keys.
     */
    private void startBuild(AgentIndex index, Keys keys) {
        synchronized (this) {
            if (detached) {
                return;
            }
        }
        index.terms.follow(keys.lastSeq(), keys.servable().size());
        index.awaited = keys;
        List<Runnable> later = deferred.get();
        if (later != null) {
            later.add(() -> execute(index, keys));
        } else {
            execute(index, keys);
        }
    }

    /** Hands the build of {@code keys} to the builder's thread; forgets it when detached meanwhile. */
    private void execute(AgentIndex index, Keys keys) {
        ExecutorService executor = builder();
        try {
            if (executor != null) {
                executor.execute(() -> build(index, keys));
                return;
            }
        } catch (RejectedExecutionException e) {
            // detached meanwhile
        }
        synchronized (index) {
            if (index.awaited == keys) {
                index.awaited = null;
            }
        }
    }

    /**
     * Runs {@code work} (a request: the retrieval of one query) and starts the builds its queries
     * asked for only when it returns, so that a build does not compete with the rest of the request
     * for the machine's cores; it then runs beside what follows the retrieval (the model's call).
     * The queries of {@code work} pass over the keys meanwhile, as they would during any build.
     */
    <T> T deferringBuilds(Supplier<T> work) {
        if (deferred.get() != null) {
            return work.get();
        }
        List<Runnable> later = new ArrayList<>();
        deferred.set(later);
        try {
            return work.get();
        } finally {
            deferred.remove();
            later.forEach(Runnable::run);
        }
    }

    /** Whether this object's builder thread was ever started (for tests). */
    synchronized boolean builderStarted() {
        return builder != null;
    }

    private synchronized @Nullable ExecutorService builder() {
        if (builder == null && !detached) {
            ThreadPoolExecutor executor = new ThreadPoolExecutor(1, 1, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
                Thread t = new Thread(r, builderThread);
                t.setDaemon(true);
                builderRunning = t;
                return t;
            });
            // no thread while there is nothing to build
            executor.allowCoreThreadTimeOut(true);
            builder = executor;
        }
        return builder;
    }

    /**
     * On the builder's thread: builds an index over {@code keys} and puts it in place of the one
     * following their state, with what that one heard meanwhile; unless another build or a build
     * on the request path replaced this one, or the user was forgotten whole, meanwhile.
     */
    private void build(AgentIndex index, Keys build) {
        try {
            synchronized (index) {
                if (index.awaited != build) {
                    return;
                }
            }
            PersistentTerms built = new PersistentTerms(compactAbove);
            built.rebuild(build.servable(), build.due(), build.lastSeq());
            Runnable hook = beforePuttingInPlace;
            if (hook != null) {
                hook.run();
            }
            synchronized (index) {
                if (index.awaited == build) {
                    built.catchUp(index.terms);
                    index.terms = built;
                    index.awaited = null;
                    builds.incrementAndGet();
                }
            }
        } catch (RuntimeException e) {
            if (failureLogged.compareAndSet(false, true)) {
                LOG.log(System.Logger.Level.WARNING, "building a persistent index off the request path failed;"
                        + " queries pass over every key until a build succeeds", e);
            } else {
                LOG.log(System.Logger.Level.DEBUG, "building a persistent index off the request path failed", e);
            }
        } finally {
            synchronized (index) {
                if (index.awaited == build) {
                    // not put in place: the next query that needs the index builds it again
                    index.awaited = null;
                }
            }
        }
    }

    /** For tests: waits until every build handed to the builder's thread so far has ended. */
    void awaitBuilds() throws InterruptedException, ExecutionException {
        ExecutorService executor;
        synchronized (this) {
            executor = builder;
        }
        if (executor != null) {
            executor.submit(() -> { }).get();
        }
    }

    /** For tests: {@code hook} runs on the builder's thread after each build and before it is put in place. */
    void beforePuttingInPlace(@Nullable Runnable hook) {
        beforePuttingInPlace = hook;
    }

    /** The name of this object's builder thread (for tests). */
    String builderThread() {
        return builderThread;
    }

    /** How many queries were answered by a pass over every key (for tests). */
    long scans() {
        return scans.get();
    }

    /** The ranking of a build from scratch over what the engine serves now, for tests. */
    static List<Ranked> fromScratch(MemoryEngine engine, Caller caller, Set<String> queryTerms, int keep) {
        PersistentTerms index = new PersistentTerms(COMPACT_ABOVE);
        index.rebuild(engine.servableUnordered(caller, Layer.PERSISTENT), Map.of(), 0);
        return index.top(queryTerms, keep);
    }

    /** How many times an index of this one was built over every key. */
    long builds() {
        return builds.get();
    }

    /** Whether an index of the caller's user, for any agent, holds {@code term} in a posting list (for tests). */
    boolean holdsTerm(Caller caller, String term) {
        Map<String, AgentIndex> byAgent = indexes.get(new Partition(caller.tenant(), caller.user()));
        if (byAgent == null) {
            return false;
        }
        for (AgentIndex index : byAgent.values()) {
            synchronized (index) {
                if (index.terms.holdsTerm(term)) {
                    return true;
                }
            }
        }
        return false;
    }

    @Override
    public void committed(Partition partition, List<LoggedEvent> events) {
        Map<String, AgentIndex> byAgent = indexes.get(partition);
        if (byAgent == null) {
            return;
        }
        for (AgentIndex index : byAgent.values()) {
            synchronized (index) {
                index.terms.hear(events);
            }
        }
    }

    @Override
    public String name() {
        return "persistent-terms";
    }

    /**
     * Removes the entries of the keys whose records are forgotten (with their terms), or every
     * entry of a user forgotten whole; counts the forgotten keys an index held. An index being
     * built takes in the forget before it is put in place; one of a user forgotten whole is dropped.
     */
    @Override
    public int forget(ForgetRequest request) {
        Map<String, AgentIndex> byAgent = indexes.get(request.partition());
        if (byAgent == null) {
            return 0;
        }
        int most = 0;
        for (AgentIndex index : byAgent.values()) {
            synchronized (index) {
                if (request.wholeUser()) {
                    index.awaited = null;
                    most = Math.max(most, index.terms.clear());
                } else {
                    most = Math.max(most, index.terms.forget(request.recordIds()));
                }
            }
        }
        return most;
    }

    /** Lower-cased words of three letters or more (letters and digits of any script; anything else separates). */
    static Set<String> terms(String text) {
        Set<String> out = new HashSet<>();
        forEachTerm(text, out::add);
        return out;
    }

    /** Calls {@code each} with every word of {@link #terms} in order, repeats included. */
    static void forEachTerm(String text, Consumer<String> each) {
        new WordScanner().scan(text, (chars, length, hash) -> each.accept(new String(chars, 0, length)));
    }

    /**
     * Gives {@code sink} the words a key is indexed by: those of its path (a dot separates words)
     * and then those of the value of its representative record's text, read between the quotes
     * without parsing when its value is a JSON string with no escape in it (the canonical JSON of
     * most values).
     */
    static void scanKey(WordScanner scanner, KeyState k, MemoryRecord representative, WordScanner.Sink sink) {
        String path = k.key().path();
        MemoryValue value = representative.value();
        if (value == null) {
            scanner.scanKey(path, "", 0, 0, sink);
            return;
        }
        String json = value.json();
        if (isPlainJsonString(json)) {
            scanner.scanKey(path, json, 1, json.length() - 1, sink);
        } else {
            String text = value.text();
            scanner.scanKey(path, text, 0, text.length(), sink);
        }
    }

    /** Whether {@code json} is a JSON string with no escape in it: its text is then what lies between the quotes. */
    private static boolean isPlainJsonString(String json) {
        return json.length() >= 2 && json.charAt(0) == '"' && json.indexOf('\\') < 0;
    }

    /**
     * The record a key is ranked by: its current value, else the one to re-verify, else the first
     * conflict, else the newest upcoming or ended version.
     */
    static MemoryRecord representative(KeyState k) {
        if (k.current() != null) {
            return k.current();
        }
        if (k.needsReverification() != null) {
            return k.needsReverification();
        }
        if (!k.conflicts().isEmpty()) {
            return k.conflicts().get(0);
        }
        return !k.upcoming().isEmpty() ? k.upcoming().get(k.upcoming().size() - 1)
                : k.noLongerValid().get(k.noLongerValid().size() - 1);
    }

    /**
     * The first instant after {@code now} at which the passage of time alone may change the state
     * of a key with these versions (a deadline, a window's edge), as any agent reads it: a version
     * another agent may not read still decides which version applies. {@link Instant#MAX}: never.
     */
    static Instant changesAt(MemoryState state, List<String> versionIds, Instant now) {
        List<MemoryRecord> versions = new ArrayList<>(versionIds.size());
        for (String id : versionIds) {
            MemoryRecord r = state.record(id);
            if (r != null) {
                versions.add(r);
            }
        }
        return changesAt(versions, now);
    }

    /** {@link #changesAt(MemoryState, List, Instant)} of a key's versions. */
    static Instant changesAt(List<MemoryRecord> versions, Instant now) {
        Instant at = Instant.MAX;
        for (MemoryRecord r : versions) {
            if (r != null && r.value() != null) {
                at = before(r.expiresAt(), now, at);
                at = before(r.validFrom(), now, at);
                at = before(r.validTo(), now, at);
            }
        }
        return at;
    }

    private static Instant before(@Nullable Instant t, Instant now, Instant at) {
        return t != null && t.isAfter(now) && t.isBefore(at) ? t : at;
    }
}

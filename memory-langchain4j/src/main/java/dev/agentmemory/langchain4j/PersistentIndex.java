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
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
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

    /** Per user, the index of each agent that asked (an agent's private records are its own). */
    private final Map<Partition, Map<String, PersistentTerms>> indexes = new ConcurrentHashMap<>();
    /** How many times an index was built over every key (for tests: most queries must not). */
    private final AtomicLong builds = new AtomicLong();

    /** Keys added or removed since the last sort of every key before it is sorted again (at least). */
    static final int COMPACT_ABOVE = 1024;

    private final MemoryEngine engine;
    private final int compactAbove;

    PersistentIndex(MemoryEngine engine) {
        this(engine, COMPACT_ABOVE);
    }

    /** With another {@link #COMPACT_ABOVE}, for tests. */
    PersistentIndex(MemoryEngine engine, int compactAbove) {
        this.engine = engine;
        this.compactAbove = compactAbove;
    }

    /** Starts hearing the engine's events and forgets; before the first query. */
    void attach() {
        engine.admin().addListener(this);
        engine.admin().register(this);
    }

    /** Stops what {@link #attach} started. */
    void detach() {
        engine.admin().removeListener(this);
        engine.admin().unregister(this);
    }

    /** The best {@code keep} servable persistent keys for a query with these terms, best first. */
    List<Ranked> top(Caller caller, Set<String> queryTerms, int keep) {
        PersistentTerms index = indexes.computeIfAbsent(new Partition(caller.tenant(), caller.user()),
                p -> new ConcurrentHashMap<>()).computeIfAbsent(caller.agent(), a -> new PersistentTerms(compactAbove));
        // Caught up once with a shared store, then under the user's lock: no event is committed
        // (and so heard) while the index compares its sequence with the state's and catches up.
        return engine.admin().consistently(caller, () -> engine.admin().holding(caller, state -> {
            synchronized (index) {
                bringUpToDate(index, caller, state);
                return index.top(queryTerms, keep);
            }
        }));
    }

    /** The ranking of a build from scratch over what the engine serves now, for tests. */
    static List<Ranked> fromScratch(MemoryEngine engine, Caller caller, Set<String> queryTerms, int keep) {
        PersistentTerms index = new PersistentTerms(COMPACT_ABOVE);
        index.rebuild(engine.servableUnordered(caller, Layer.PERSISTENT), Map.of(), 0);
        return index.top(queryTerms, keep);
    }

    private void bringUpToDate(PersistentTerms index, Caller caller, MemoryState state) {
        // the time before the reads: a boundary passed while they run is found again next time
        Instant now = engine.clock().instant();
        Scope scope = caller.persistent();
        Set<MemoryKey> changed = index.followsState(state.lastSeq()) ? index.changedKeys(state, now) : null;
        if (changed == null || changed.size() > index.rebuildAbove()) {
            // one pass over the keys: what is served (the only persistent scope of the user) and when time changes it
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
            index.rebuild(servable, due, state.lastSeq());
            builds.incrementAndGet();
            return;
        }
        for (MemoryKey key : changed) {
            List<String> ids = state.keys(scope).get(key);
            index.put(key, engine.keyState(caller, scope, key, ReadOptions.DEFAULT),
                    ids == null ? Instant.MAX : changesAt(state, ids, now));
        }
    }

    /** How many times an index of this one was built over every key. */
    long builds() {
        return builds.get();
    }

    /** Whether an index of the caller's user, for any agent, holds {@code term} in a posting list (for tests). */
    boolean holdsTerm(Caller caller, String term) {
        Map<String, PersistentTerms> byAgent = indexes.get(new Partition(caller.tenant(), caller.user()));
        if (byAgent == null) {
            return false;
        }
        for (PersistentTerms index : byAgent.values()) {
            synchronized (index) {
                if (index.holdsTerm(term)) {
                    return true;
                }
            }
        }
        return false;
    }

    @Override
    public void committed(Partition partition, List<LoggedEvent> events) {
        Map<String, PersistentTerms> byAgent = indexes.get(partition);
        if (byAgent == null) {
            return;
        }
        for (PersistentTerms index : byAgent.values()) {
            synchronized (index) {
                index.hear(events);
            }
        }
    }

    @Override
    public String name() {
        return "persistent-terms";
    }

    /**
     * Removes the entries of the keys whose records are forgotten (with their terms), or every
     * entry of a user forgotten whole; counts the forgotten keys an index held.
     */
    @Override
    public int forget(ForgetRequest request) {
        Map<String, PersistentTerms> byAgent = indexes.get(request.partition());
        if (byAgent == null) {
            return 0;
        }
        int most = 0;
        for (PersistentTerms index : byAgent.values()) {
            synchronized (index) {
                most = Math.max(most, request.wholeUser() ? index.clear() : index.forget(request.recordIds()));
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

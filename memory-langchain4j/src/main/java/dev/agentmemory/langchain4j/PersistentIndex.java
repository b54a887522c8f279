package dev.agentmemory.langchain4j;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ScopeView.KeyState;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.Scope.Layer;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.spi.DerivedData;
import dev.agentmemory.core.spi.DerivedData.ForgetRequest;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Ranks a user's persistent memory for a query without scanning it: preferences first, then by
 * the share of the query's terms a record's key and value contain, newest first, then by key.
 *
 * <p>Per user it keeps a snapshot of the servable persistent keys with an inverted index of
 * their terms, a list of the preferences and a list of every key newest first. A query walks the
 * postings of its own terms, so it costs what those terms match, not what the user has stored.
 * The snapshot is rebuilt when {@link MemoryEngine#recordsRevision} moves (any record, task or
 * alias event, a forget or a reload; chat messages leave it alone) or when the clock reaches the
 * earliest expiry among its current records, so it always ranks exactly what
 * {@link MemoryEngine#servable} would return now. Forgetting drops the user's snapshot, since it
 * holds the values' terms. Thread-safe.
 */
final class PersistentIndex implements DerivedData {

    /** Preferences first, then by overlap with the query, newest first, then by key. */
    static final Comparator<Ranked> RANKING = Comparator.comparing(Ranked::preference).reversed()
            .thenComparing(Comparator.comparingDouble(Ranked::score).reversed())
            .thenComparing(Comparator.comparing(Ranked::recordedAt).reversed())
            .thenComparing(r -> r.key().key());

    /** A persistent key as ranked for a query. */
    record Ranked(KeyState key, double score, boolean preference, Instant recordedAt) {
    }

    private final MemoryEngine engine;
    private final Map<String, Snapshot> snapshots = new ConcurrentHashMap<>();

    PersistentIndex(MemoryEngine engine) {
        this.engine = engine;
    }

    /** The best {@code keep} servable persistent keys for a query with these terms, best first. */
    List<Ranked> top(Caller caller, Set<String> queryTerms, int keep) {
        Snapshot s = snapshot(caller);
        int[] shared = new int[s.entries.length];
        List<Integer> touched = new ArrayList<>();
        for (String t : queryTerms) {
            int[] postings = s.postings.get(t);
            if (postings == null) {
                continue;
            }
            for (int i : postings) {
                if (shared[i]++ == 0) {
                    touched.add(i);
                }
            }
        }
        List<Ranked> candidates = new ArrayList<>();
        boolean[] taken = new boolean[s.entries.length];
        for (int i : s.preferences) {
            taken[i] = true;
            candidates.add(s.entries[i].rank(shared[i], queryTerms.size()));
        }
        for (int i : touched) {
            if (!taken[i]) {
                taken[i] = true;
                candidates.add(s.entries[i].rank(shared[i], queryTerms.size()));
            }
        }
        candidates.sort(RANKING);
        List<Ranked> out = new ArrayList<>(candidates.subList(0, Math.min(keep, candidates.size())));
        // Every key not taken yet is a non-preference sharing no term: newest first, then by key.
        for (int k = 0; out.size() < keep && k < s.newestFirst.length; k++) {
            int i = s.newestFirst[k];
            if (!taken[i]) {
                out.add(s.entries[i].rank(0, queryTerms.size()));
            }
        }
        return out;
    }

    private Snapshot snapshot(Caller caller) {
        String part = EpisodicMemory.partitionKey(caller.tenant(), caller.user());
        long revision = engine.recordsRevision(caller);
        Instant now = engine.clock().instant();
        Snapshot s = snapshots.get(part);
        if (s != null && s.revision == revision && now.isBefore(s.validUntil)) {
            return s;
        }
        // Read the revision before the keys: if a write lands in between, the snapshot carries
        // the older revision and is rebuilt at the next query, never kept stale.
        s = Snapshot.build(revision, engine.servableUnordered(caller, Layer.PERSISTENT), now);
        snapshots.put(part, s);
        return s;
    }

    @Override
    public String name() {
        return "persistent-terms";
    }

    /** Drops the user's snapshot (it holds the terms of the values); counts the forgotten records it held. */
    @Override
    public int forget(ForgetRequest request) {
        Snapshot gone = snapshots.remove(EpisodicMemory.partitionKey(request.partition().tenant(), request.partition().user()));
        if (gone == null) {
            return 0;
        }
        if (request.wholeUser()) {
            return gone.entries.length;
        }
        int n = 0;
        for (Entry e : gone.entries) {
            if (request.recordIds().contains(e.record.id())) {
                n++;
            }
        }
        return n;
    }

    /** Lower-cased words of three letters or more. */
    static Set<String> terms(String text) {
        Set<String> out = new HashSet<>();
        for (String t : text.toLowerCase(Locale.ROOT).split("[^\\p{L}\\p{N}]+")) {
            if (t.length() > 2) {
                out.add(t);
            }
        }
        return out;
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

    /** The first instant after {@code now} at which the passage of time alone changes a key's state (a deadline, a window's edge). */
    static Instant changesAt(KeyState k, Instant now) {
        Instant at = Instant.MAX;
        List<MemoryRecord> rs = new ArrayList<>(k.conflicts());
        rs.addAll(k.upcoming());
        rs.addAll(k.noLongerValid());
        if (k.current() != null) {
            rs.add(k.current());
        }
        if (k.needsReverification() != null) {
            rs.add(k.needsReverification());
        }
        for (MemoryRecord r : rs) {
            for (Instant t : new Instant[] {r.expiresAt(), r.validFrom(), r.validTo()}) {
                if (t != null && t.isAfter(now) && t.isBefore(at)) {
                    at = t;
                }
            }
        }
        return at;
    }

    private record Entry(KeyState key, MemoryRecord record) {
        Ranked rank(int sharedTerms, int queryTerms) {
            double score = queryTerms == 0 ? 0 : (double) sharedTerms / queryTerms;
            return new Ranked(key, score, record.kind() == Kind.PREFERENCE, record.recordedAt());
        }
    }

    private static final class Snapshot {
        final long revision;
        final Instant validUntil;
        final Entry[] entries;
        final Map<String, int[]> postings;
        final int[] preferences;
        final int[] newestFirst;

        private Snapshot(long revision, Instant validUntil, Entry[] entries, Map<String, int[]> postings,
                         int[] preferences, int[] newestFirst) {
            this.revision = revision;
            this.validUntil = validUntil;
            this.entries = entries;
            this.postings = postings;
            this.preferences = preferences;
            this.newestFirst = newestFirst;
        }

        static Snapshot build(long revision, List<KeyState> keys, Instant now) {
            Entry[] entries = new Entry[keys.size()];
            Map<String, List<Integer>> lists = new HashMap<>();
            List<Integer> preferences = new ArrayList<>();
            Instant validUntil = Instant.MAX;
            for (int i = 0; i < entries.length; i++) {
                KeyState k = keys.get(i);
                MemoryRecord r = representative(k);
                entries[i] = new Entry(k, r);
                for (String t : terms(k.key().path().replace('.', ' ') + " " + r.text())) {
                    lists.computeIfAbsent(t, x -> new ArrayList<>()).add(i);
                }
                if (r.kind() == Kind.PREFERENCE) {
                    preferences.add(i);
                }
                // When a current value expires, or a window begins or ends, the key's state changes.
                Instant changes = changesAt(k, now);
                if (changes.isBefore(validUntil)) {
                    validUntil = changes;
                }
            }
            Map<String, int[]> postings = new HashMap<>(lists.size() * 2);
            lists.forEach((t, l) -> postings.put(t, l.stream().mapToInt(Integer::intValue).toArray()));
            Integer[] order = new Integer[entries.length];
            Arrays.setAll(order, i -> i);
            Arrays.sort(order, Comparator.<Integer, Instant>comparing(i -> entries[i].record.recordedAt()).reversed()
                    .thenComparing(i -> entries[i].key.key()));
            return new Snapshot(revision, validUntil, entries,
                    postings, preferences.stream().mapToInt(Integer::intValue).toArray(),
                    Arrays.stream(order).mapToInt(Integer::intValue).toArray());
        }
    }
}

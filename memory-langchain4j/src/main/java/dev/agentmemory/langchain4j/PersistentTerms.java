package dev.agentmemory.langchain4j;

import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.Scope.Layer;
import dev.agentmemory.core.ScopeView.KeyState;
import dev.agentmemory.core.event.Change;
import dev.agentmemory.core.event.LoggedEvent;
import dev.agentmemory.core.internal.state.MemoryState;
import dev.agentmemory.langchain4j.PersistentIndex.Ranked;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.TreeSet;

/**
 * One user's servable persistent keys as one agent sees them, with an inverted index of their
 * terms, the preferences, every key newest first, and the next instant at which time alone
 * changes each key; and what changed since (the keys and record ids the events named). Kept
 * up to date by {@link PersistentIndex}, which calls it under the user's lock or its own
 * monitor. Not thread-safe.
 *
 * <p>While its keys are built elsewhere (another instance, off the request path, from the state
 * at a sequence) an index can {@linkplain #follow follow} that state without any key: it hears
 * the events from that sequence on and remembers the forgets, and the instance built then
 * {@linkplain #catchUp catches up} with what it heard.
 */
final class PersistentTerms {

    /** Newest first, then by key: the order of keys that share no term with a query. */
    private static final Comparator<Entry> NEWEST_FIRST = (a, b) -> newestFirst(a.key, a.record, b.key, b.record);

    /**
     * Compares two keys, each with the record it is ranked by, newest record first, then by key:
     * the order of keys that share no term with a query.
     */
    static int newestFirst(KeyState a, MemoryRecord ra, KeyState b, MemoryRecord rb) {
        int c = rb.recordedAt().compareTo(ra.recordedAt());
        return c != 0 ? c : a.key().compareTo(b.key());
    }

    /** A key's score for a query: the share of the query's terms its words hold (0 for a query without terms). */
    static double score(int sharedTerms, int queryTerms) {
        return queryTerms == 0 ? 0 : (double) sharedTerms / queryTerms;
    }

    /** A servable key and the record it is ranked by. */
    private record Entry(int slot, KeyState key, MemoryRecord record) {
        boolean preference() {
            return record.kind() == Kind.PREFERENCE;
        }

        Ranked rank(int sharedTerms, int queryTerms) {
            return new Ranked(key, score(sharedTerms, queryTerms), preference(), record.recordedAt());
        }
    }

    /** When a key's state changes by time alone; stale once the key was scheduled again. */
    private record Due(Instant at, MemoryKey key) {
    }

    /** How many keys added or removed since the last sort make it worth sorting every key again (at least). */
    private final int compactAbove;
    private boolean built;
    /** Holds no key but hears the events after {@link #seq}, for an index built from that state elsewhere. */
    private boolean following;
    /** While following, how many keys the state followed has. */
    private int followedKeys;
    /** While following, the record ids of each forget. */
    private final List<Set<String>> forgottenWhileFollowing = new ArrayList<>();
    /** The sequence of the user's log that the index reflects, with the events heard since. */
    private long seq;
    /** Something changed that the index cannot follow key by key: the next query builds again. */
    private boolean unknown;
    private final Set<MemoryKey> changedKeys = new HashSet<>();
    private final List<String> changedIds = new ArrayList<>();

    private Entry[] slots = new Entry[16];
    private int used;
    private int[] free = new int[16];
    private int freeCount;
    private Map<MemoryKey, Entry> byKey = new HashMap<>();
    private final TermPostings postings = new TermPostings();
    private final WordScanner scanner = new WordScanner();
    /** The slot whose terms {@link #adding} and {@link #removing} are given. */
    private int slotScanned;
    private final WordScanner.Sink adding = (chars, length, hash) -> postings.add(chars, length, hash, slotScanned);
    private final WordScanner.Sink removing = (chars, length, hash) -> postings.remove(chars, length, hash, slotScanned);
    private final BitSet preferences = new BitSet();
    /**
     * Every key newest first, in two parts: the entries of the last build (or compaction), sorted
     * once, where an entry since replaced or removed is skipped ({@link #live}); and those added
     * since, kept sorted as they come.
     */
    private Entry[] sorted = new Entry[0];
    private int deadInSorted;
    private final TreeSet<Entry> recent = new TreeSet<>(NEWEST_FIRST);
    private final PriorityQueue<Due> dues = new PriorityQueue<>(Comparator.comparing(Due::at));
    /** The instant in {@link #dues} that counts for each key (servable or not) whose state time will change. */
    private final Map<MemoryKey, Instant> dueAt = new HashMap<>();

    PersistentTerms(int compactAbove) {
        this.compactAbove = compactAbove;
    }

    /** Whether the index holds the state at {@code lastSeq}, but for the changes it heard. */
    boolean followsState(long lastSeq) {
        return built && !unknown && seq == lastSeq;
    }

    /** Whether the index follows the state at {@code lastSeq} without its keys, and can still catch up with it. */
    boolean followsWithoutKeys(long lastSeq) {
        return following && !unknown && seq == lastSeq;
    }

    /** Whether no heard event or forget changed a record since the index was built or started following. */
    boolean heardNoChange() {
        return changedKeys.isEmpty() && changedIds.isEmpty() && forgottenWhileFollowing.isEmpty();
    }

    /** How many changed keys make building again cheaper than updating them one by one. */
    int rebuildAbove() {
        return Math.max(64, (following ? followedKeys : byKey.size()) / 4);
    }

    /**
     * Drops every key and follows the state at {@code lastSeq}, of {@code keys} servable keys,
     * from which an index is being built elsewhere: hears its events from then on and remembers
     * the forgets, for {@link #catchUp}.
     */
    void follow(long lastSeq, int keys) {
        clear();
        following = true;
        followedKeys = keys;
        unknown = false;
        seq = lastSeq;
    }

    /**
     * Makes this index, built with {@link #rebuild} from the state that {@code heard} started
     * following ({@link #follow}), take in what {@code heard} heard since: the changed keys and
     * ids, where the events reached, whether something changed that cannot be followed; and
     * the forgets, applied to its keys now.
     */
    void catchUp(PersistentTerms heard) {
        if (!heard.following) {
            throw new IllegalStateException("caught up with an index that follows nothing: " + heard);
        }
        seq = heard.seq;
        unknown = heard.unknown;
        changedKeys.addAll(heard.changedKeys);
        changedIds.addAll(heard.changedIds);
        for (Set<String> ids : heard.forgottenWhileFollowing) {
            forget(ids);
        }
        if (changedKeys.size() + changedIds.size() > rebuildAbove()) {
            unknown = true;
        }
    }

    /**
     * Builds the index again over {@code keys} (the servable ones, from the state at {@code lastSeq}),
     * with {@code due} the instants at which time alone changes the state of each key of the scope.
     */
    void rebuild(List<KeyState> keys, Map<MemoryKey, Instant> due, long lastSeq) {
        clear();
        if (slots.length < keys.size()) {
            slots = new Entry[keys.size()];
        }
        byKey = new HashMap<>(keys.size() * 4 / 3 + 16);
        postings.expect(keys.size());
        Entry[] entries = new Entry[keys.size()];
        // keys come about in the order they were first written: backwards, mostly newest first already
        for (int i = 0, n = entries.length; i < n; i++) {
            entries[n - 1 - i] = index(keys.get(i));
        }
        Arrays.sort(entries, NEWEST_FIRST);
        sorted = entries;
        List<Due> queued = new ArrayList<>(due.size());
        due.forEach((key, at) -> queued.add(new Due(at, key)));
        dueAt.putAll(due);
        dues.addAll(queued);
        built = true;
        following = false;
        forgottenWhileFollowing.clear();
        unknown = false;
        seq = lastSeq;
    }

    /** Drops everything the index holds (the terms of the values included); returns how many keys it held. */
    int clear() {
        int n = byKey.size();
        Arrays.fill(slots, 0, used, null);
        used = 0;
        freeCount = 0;
        byKey.clear();
        postings.clear();
        preferences.clear();
        sorted = new Entry[0];
        deadInSorted = 0;
        recent.clear();
        dues.clear();
        dueAt.clear();
        changedKeys.clear();
        changedIds.clear();
        built = false;
        following = false;
        forgottenWhileFollowing.clear();
        return n;
    }

    /** Notes what committed or followed events change; a gap in the sequence makes the index unknown. */
    void hear(List<LoggedEvent> events) {
        if (!(built || following) || unknown) {
            return;
        }
        for (LoggedEvent e : events) {
            if (e.seq() != seq + 1) {
                unknown = true;
                return;
            }
            seq = e.seq();
            Change c = e.change();
            if (c instanceof Change.RecordWritten w) {
                if (w.record().scope().layer() == Layer.PERSISTENT) {
                    changedKeys.add(w.record().key());
                }
                changedIds.addAll(w.superseded());
            } else if (c instanceof Change.RecordsExpired x) {
                changedIds.addAll(x.ids());
            } else if (c instanceof Change.RecordsForgotten f) {
                changedIds.addAll(f.ids());
            } else if (c instanceof Change.RecordVerified v) {
                changedIds.add(v.id());
            } else if (c instanceof Change.RecordsArchived a) {
                changedIds.addAll(a.ids());
            } else if (!(c instanceof Change.TaskChanged || c instanceof Change.TaskMoved
                    || c instanceof Change.AliasRegistered || c instanceof Change.MessagesAppended
                    || c instanceof Change.MessagesEvicted || c instanceof Change.MessagesForgotten
                    || c instanceof Change.MessagesRedacted || c instanceof Change.ActionIntended
                    || c instanceof Change.ActionCompleted)) {
                // a forget of the whole user, or a change this index does not know
                unknown = true;
                return;
            }
        }
        if (changedKeys.size() + changedIds.size() > rebuildAbove()) {
            unknown = true;
        }
    }

    /**
     * The persistent keys to read again: those the heard events named (record ids resolved in
     * {@code state}) and those whose state time alone changed by {@code now}. Clears them.
     */
    Set<MemoryKey> changedKeys(MemoryState state, Instant now) {
        Set<MemoryKey> out = new HashSet<>(changedKeys);
        for (String id : changedIds) {
            MemoryRecord r = state.record(id);
            if (r != null && r.scope().layer() == Layer.PERSISTENT) {
                out.add(r.key());
            }
        }
        changedKeys.clear();
        changedIds.clear();
        for (Due d = dues.peek(); d != null && !d.at().isAfter(now); d = dues.peek()) {
            dues.poll();
            if (d.at().equals(dueAt.get(d.key()))) {
                dueAt.remove(d.key());
                out.add(d.key());
            }
        }
        return out;
    }

    /**
     * Replaces a key's entry with its state (none when it is empty); {@code due} is when time alone
     * changes that state next ({@link Instant#MAX}: never).
     */
    void put(MemoryKey key, KeyState state, Instant due) {
        Entry old = byKey.get(key);
        if (old != null) {
            remove(old);
        }
        if (!state.isEmpty()) {
            recent.add(index(state));
            if (recent.size() > Math.max(compactAbove, sorted.length / 8)) {
                compact();
            }
        }
        if (due.equals(Instant.MAX)) {
            dueAt.remove(key);
        } else if (!due.equals(dueAt.put(key, due))) {
            dues.add(new Due(due, key));
        }
    }

    /**
     * Removes the entries of keys that hold any of the records {@code ids}; returns how many.
     * While following, remembers the ids for the index that catches up.
     */
    int forget(Set<String> ids) {
        if (following) {
            forgottenWhileFollowing.add(ids);
            return 0;
        }
        List<Entry> gone = new ArrayList<>();
        for (Entry e : byKey.values()) {
            if (holdsAny(e.key, ids)) {
                gone.add(e);
            }
        }
        for (Entry e : gone) {
            remove(e);
            changedKeys.add(e.key.key());
        }
        return gone.size();
    }

    private static boolean holdsAny(KeyState k, Set<String> ids) {
        if (k.current() != null && ids.contains(k.current().id())
                || k.needsReverification() != null && ids.contains(k.needsReverification().id())) {
            return true;
        }
        for (List<MemoryRecord> rs : List.of(k.conflicts(), k.upcoming(), k.noLongerValid())) {
            for (MemoryRecord r : rs) {
                if (ids.contains(r.id())) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Adds a key's entry to the slots, the postings and the preferences (not to the newest-first order). */
    private Entry index(KeyState k) {
        MemoryRecord r = PersistentIndex.representative(k);
        int slot = freeCount > 0 ? free[--freeCount] : used++;
        if (slot >= slots.length) {
            slots = Arrays.copyOf(slots, Math.max(16, slots.length * 2));
        }
        Entry e = new Entry(slot, k, r);
        slots[slot] = e;
        byKey.put(k.key(), e);
        slotScanned = slot;
        PersistentIndex.scanKey(scanner, k, r, adding);
        if (e.preference()) {
            preferences.set(slot);
        }
        return e;
    }

    private void remove(Entry e) {
        if (!recent.remove(e)) {
            deadInSorted++;
        }
        byKey.remove(e.key.key());
        slots[e.slot] = null;
        preferences.clear(e.slot);
        slotScanned = e.slot;
        PersistentIndex.scanKey(scanner, e.key, e.record, removing);
        if (freeCount == free.length) {
            free = Arrays.copyOf(free, free.length * 2);
        }
        free[freeCount++] = e.slot;
        if (deadInSorted > compactAbove && deadInSorted > sorted.length / 2) {
            compact();
        }
    }

    /** Whether {@code e} is still the entry of its key. */
    private boolean live(Entry e) {
        return slots[e.slot] == e;
    }

    /** Sorts every live entry into {@link #sorted} again. */
    private void compact() {
        Entry[] all = new Entry[byKey.size()];
        int n = 0;
        for (Entry e : sorted) {
            if (live(e)) {
                all[n++] = e;
            }
        }
        for (Entry e : recent) {
            all[n++] = e;
        }
        Arrays.sort(all, 0, n, NEWEST_FIRST);
        sorted = n == all.length ? all : Arrays.copyOf(all, n);
        deadInSorted = 0;
        recent.clear();
    }

    /** The best {@code keep} keys for a query with these terms, best first ({@link PersistentIndex#RANKING}). */
    List<Ranked> top(Set<String> queryTerms, int keep) {
        if (keep <= 0) {
            return new ArrayList<>();
        }
        int[] shared = new int[used];
        int[] touched = new int[16];
        int touchedCount = 0;
        for (String term : queryTerms) {
            int t = postings.termNumber(term);
            if (t < 0) {
                continue;
            }
            for (int k = 0, n = postings.count(t); k < n; k++) {
                int i = postings.slot(t, k);
                if (shared[i]++ == 0) {
                    if (touchedCount == touched.length) {
                        touched = Arrays.copyOf(touched, touched.length * 2);
                    }
                    touched[touchedCount++] = i;
                }
            }
        }
        // the best keep of the preferences and the keys sharing a term: a heap whose head is the worst kept
        PriorityQueue<Ranked> best = new PriorityQueue<>(Math.min(keep, 1024) + 1, PersistentIndex.RANKING.reversed());
        for (int i = preferences.nextSetBit(0); i >= 0; i = preferences.nextSetBit(i + 1)) {
            keepBest(best, slots[i].rank(shared[i], queryTerms.size()), keep);
        }
        for (int k = 0; k < touchedCount; k++) {
            int i = touched[k];
            if (!preferences.get(i)) {
                keepBest(best, slots[i].rank(shared[i], queryTerms.size()), keep);
            }
        }
        List<Ranked> out = new ArrayList<>(best);
        out.sort(PersistentIndex.RANKING);
        // Every key not taken yet is a non-preference sharing no term: newest first, then by key.
        Iterator<Entry> added = recent.iterator();
        Entry nextAdded = added.hasNext() ? added.next() : null;
        int k = 0;
        while (out.size() < keep) {
            while (k < sorted.length && !live(sorted[k])) {
                k++;
            }
            Entry e;
            if (k < sorted.length && (nextAdded == null || NEWEST_FIRST.compare(sorted[k], nextAdded) < 0)) {
                e = sorted[k++];
            } else if (nextAdded != null) {
                e = nextAdded;
                nextAdded = added.hasNext() ? added.next() : null;
            } else {
                break;
            }
            if (!preferences.get(e.slot) && shared[e.slot] == 0) {
                out.add(e.rank(0, queryTerms.size()));
            }
        }
        return out;
    }

    /** Adds {@code r} to {@code best} if it holds fewer than {@code keep} or {@code r} ranks before its head (the worst kept). */
    static void keepBest(PriorityQueue<Ranked> best, Ranked r, int keep) {
        if (best.size() < keep) {
            best.add(r);
        } else {
            Ranked worst = best.peek();
            if (worst != null && PersistentIndex.RANKING.compare(r, worst) < 0) {
                best.poll();
                best.add(r);
            }
        }
    }

    @Override
    public String toString() {
        return "PersistentTerms[" + byKey.size() + " keys, " + postings.size() + " terms, seq " + seq
                + (following ? ", following" : "") + (unknown ? ", unknown" : "") + "]";
    }

    /** For assertions in tests: whether any posting list is keyed by {@code term}. */
    boolean holdsTerm(String term) {
        return postings.termNumber(term) >= 0;
    }
}

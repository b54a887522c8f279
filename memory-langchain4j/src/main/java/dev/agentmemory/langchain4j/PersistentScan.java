package dev.agentmemory.langchain4j;

import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.ScopeView.KeyState;
import dev.agentmemory.langchain4j.PersistentIndex.Ranked;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Set;

/**
 * Ranks servable persistent keys for a query in one pass over them, without an index: what
 * {@link PersistentTerms#top} of an index built over the same keys returns, the same list in the
 * same order with the same scores. For a query that finds no index to use, while the index is
 * built off the request path.
 *
 * <p>Each key's words ({@link PersistentIndex#scanKey}) are looked up in a small table of the
 * query's terms, straight from the scanner's buffer; nothing is kept of a key but, for the best
 * {@code keep} preferences and keys sharing a term and the newest {@code keep} of the others, the
 * key in one of two bounded heaps. Not thread-safe (one per scan).
 */
final class PersistentScan implements WordScanner.Sink {

    /** Newest first, then by key: the order of keys that share no term with a query. */
    private static final Comparator<Unshared> NEWEST_FIRST = (a, b) ->
            PersistentTerms.newestFirst(a.key, a.record, b.key, b.record);

    /** A non-preference key sharing no term with the query, and the record it is ranked by. */
    private record Unshared(KeyState key, MemoryRecord record) {
    }

    /** The query's terms, their hashes and, per cell of an open-addressing table, a term's number plus one. */
    private final char[][] terms;
    private final int[] hashes;
    private final int[] table;
    /** Per term, the number of the last key found holding it. */
    private final int[] heldBy;
    private int keyNumber;
    private int shared;

    private PersistentScan(Set<String> queryTerms) {
        terms = new char[queryTerms.size()][];
        hashes = new int[terms.length];
        heldBy = new int[terms.length];
        table = new int[Integer.highestOneBit(Math.max(4, terms.length * 2) - 1) << 1];
        int t = 0;
        for (String term : queryTerms) {
            terms[t] = term.toCharArray();
            hashes[t] = term.hashCode();
            int cell = spread(hashes[t]) & (table.length - 1);
            while (table[cell] != 0) {
                cell = (cell + 1) & (table.length - 1);
            }
            table[cell] = ++t;
        }
    }

    /** The best {@code keep} of {@code servable} for a query with these terms, best first ({@link PersistentIndex#RANKING}). */
    static List<Ranked> top(List<KeyState> servable, Set<String> queryTerms, int keep) {
        if (keep <= 0) {
            return new ArrayList<>();
        }
        PersistentScan scan = new PersistentScan(queryTerms);
        WordScanner scanner = new WordScanner();
        int queryTermCount = queryTerms.size();
        // the best keep of the preferences and the keys sharing a term, and the newest keep of the
        // others: heaps whose head is the worst kept
        PriorityQueue<Ranked> best = new PriorityQueue<>(Math.min(keep, 1024) + 1, PersistentIndex.RANKING.reversed());
        PriorityQueue<Unshared> newest = new PriorityQueue<>(Math.min(keep, 1024) + 1, NEWEST_FIRST.reversed());
        // keys come in the order they were first written: backwards, mostly newest first, so that
        // most keys of the second heap are compared with its head and left out
        for (int i = servable.size() - 1; i >= 0; i--) {
            KeyState k = servable.get(i);
            MemoryRecord r = PersistentIndex.representative(k);
            boolean preference = r.kind() == Kind.PREFERENCE;
            int sharedTerms = queryTermCount == 0 ? 0 : scan.sharedTerms(scanner, k, r);
            if (preference || sharedTerms > 0) {
                PersistentTerms.keepBest(best, new Ranked(k, PersistentTerms.score(sharedTerms, queryTermCount),
                        preference, r.recordedAt()), keep);
            } else if (newest.size() < keep) {
                newest.add(new Unshared(k, r));
            } else if (newer(k, r, newest.peek())) {
                newest.poll();
                newest.add(new Unshared(k, r));
            }
        }
        List<Ranked> out = new ArrayList<>(best);
        out.sort(PersistentIndex.RANKING);
        if (out.size() < keep) {
            // every key not taken yet is a non-preference sharing no term: newest first, then by key
            Unshared[] rest = newest.toArray(new Unshared[0]);
            Arrays.sort(rest, NEWEST_FIRST);
            for (int i = 0; i < rest.length && out.size() < keep; i++) {
                out.add(new Ranked(rest[i].key, 0, false, rest[i].record.recordedAt()));
            }
        }
        return out;
    }

    /** Whether a key ranked by {@code r} comes before {@code kept} newest first ({@link #NEWEST_FIRST}). */
    private static boolean newer(KeyState k, MemoryRecord r, Unshared kept) {
        return PersistentTerms.newestFirst(k, r, kept.key, kept.record) < 0;
    }

    /** How many of the query's terms a key's words hold. */
    private int sharedTerms(WordScanner scanner, KeyState k, MemoryRecord r) {
        keyNumber++;
        shared = 0;
        PersistentIndex.scanKey(scanner, k, r, this);
        return shared;
    }

    /** Counts a word of the key scanned if it is one of the query's terms not met yet in that key. */
    @Override
    public void word(char[] chars, int length, int hash) {
        int mask = table.length - 1;
        for (int cell = spread(hash) & mask; table[cell] != 0; cell = (cell + 1) & mask) {
            int t = table[cell] - 1;
            if (hashes[t] == hash && Arrays.equals(terms[t], 0, terms[t].length, chars, 0, length)) {
                if (heldBy[t] != keyNumber) {
                    heldBy[t] = keyNumber;
                    shared++;
                }
                return;
            }
        }
    }

    private static int spread(int hash) {
        return hash * 0x9E3779B9 >>> 7 ^ hash;
    }
}

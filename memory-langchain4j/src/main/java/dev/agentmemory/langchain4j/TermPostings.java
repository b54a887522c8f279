package dev.agentmemory.langchain4j;

import java.util.Arrays;

/**
 * The terms of a persistent index, each with the slots of the keys that hold it, each slot once.
 *
 * <p>An open-addressing table (linear probing) of term numbers, looked up by a term's chars
 * straight from a {@link WordScanner}'s buffer, so that no string is made for a term already
 * held; the chars of every term in one pool; per term its hash, place in the pool and postings,
 * in arrays indexed by the term's number. A term held by one key (most: numbers, names) keeps
 * that key's slot without an array of its own. A term that no key holds any longer is dropped at
 * once and its chars are overwritten in the pool. Not thread-safe.
 */
final class TermPostings {

    /** Per cell, a term's number plus one; 0 for an empty cell. A power of two long, at most half full. */
    private int[] table = new int[64];
    private int size;

    /** Term numbers ever given out; those freed are reused first. */
    private int numbers;
    private int[] freeNumbers = new int[16];
    private int freeCount;

    /** Per term number: its hash, the place of its chars in {@link #pool}, how many keys hold it. */
    private int[] hashes = new int[32];
    private int[] starts = new int[32];
    private int[] lengths = new int[32];
    private int[] counts = new int[32];
    /** The slot of the first key that holds each term; the others in {@link #more}. */
    private int[] firsts = new int[32];
    private int[][] more = new int[32][];

    private char[] pool = new char[256];
    private int poolUsed;
    /** Chars of dropped terms still in the pool (overwritten with zeros). */
    private int poolDead;

    /** How many terms are held. */
    int size() {
        return size;
    }

    /**
     * Adds {@code slot} to the postings of the term in {@code chars[0, length)} (whose
     * {@link String#hashCode()} is {@code hash}), unless it was the last slot added there.
     */
    void add(char[] chars, int length, int hash, int slot) {
        int mask = table.length - 1;
        int cell = spread(hash) & mask;
        for (int at = table[cell]; at != 0; at = table[cell]) {
            int t = at - 1;
            if (hashes[t] == hash && equals(t, chars, length)) {
                addSlot(t, slot);
                return;
            }
            cell = (cell + 1) & mask;
        }
        int t = newTerm(chars, length, hash);
        table[cell] = t + 1;
        firsts[t] = slot;
        counts[t] = 1;
        if (++size > table.length / 2) {
            grow();
        }
    }

    /** Removes {@code slot} from the postings of a term ({@link #add}); drops the term if no key holds it. */
    void remove(char[] chars, int length, int hash, int slot) {
        int cell = find(chars, length, hash);
        if (cell < 0) {
            return;
        }
        int t = table[cell] - 1;
        if (removeSlot(t, slot) && counts[t] == 0) {
            drop(cell, t);
        }
    }

    /** The number of {@code term}, or -1 when no key holds it. */
    int termNumber(String term) {
        int hash = term.hashCode();
        int mask = table.length - 1;
        for (int cell = spread(hash) & mask, at = table[cell]; at != 0; cell = (cell + 1) & mask, at = table[cell]) {
            int t = at - 1;
            if (hashes[t] == hash && equals(t, term)) {
                return t;
            }
        }
        return -1;
    }

    /** How many keys hold the term numbered {@code t}. */
    int count(int t) {
        return counts[t];
    }

    /** The {@code k}th slot holding the term numbered {@code t} ({@code k < count(t)}), in no particular order. */
    int slot(int t, int k) {
        return counts[t] == 1 ? firsts[t] : more[t][k];
    }

    /** Drops every term. */
    void clear() {
        table = new int[64];
        size = 0;
        numbers = 0;
        freeCount = 0;
        hashes = new int[32];
        starts = new int[32];
        lengths = new int[32];
        counts = new int[32];
        firsts = new int[32];
        more = new int[32][];
        pool = new char[256];
        poolUsed = 0;
        poolDead = 0;
    }

    /** Makes room for about {@code terms} terms at once. */
    void expect(int terms) {
        int cells = Integer.highestOneBit(Math.max(32, terms) * 2 - 1) << 1;
        if (cells > table.length) {
            rehash(cells);
        }
        if (terms > hashes.length) {
            resizeNumbers(terms);
        }
    }

    private static int spread(int hash) {
        return hash * 0x9E3779B9 >>> 7 ^ hash;
    }

    private boolean equals(int t, char[] chars, int length) {
        if (lengths[t] != length) {
            return false;
        }
        int start = starts[t];
        for (int i = 0; i < length; i++) {
            if (pool[start + i] != chars[i]) {
                return false;
            }
        }
        return true;
    }

    private boolean equals(int t, String term) {
        if (lengths[t] != term.length()) {
            return false;
        }
        int start = starts[t];
        for (int i = 0; i < term.length(); i++) {
            if (pool[start + i] != term.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** The cell of the term in {@code chars[0, length)}, or -1. */
    private int find(char[] chars, int length, int hash) {
        int mask = table.length - 1;
        for (int cell = spread(hash) & mask, at = table[cell]; at != 0; cell = (cell + 1) & mask, at = table[cell]) {
            int t = at - 1;
            if (hashes[t] == hash && equals(t, chars, length)) {
                return cell;
            }
        }
        return -1;
    }

    private int newTerm(char[] chars, int length, int hash) {
        int t;
        if (freeCount > 0) {
            t = freeNumbers[--freeCount];
        } else {
            t = numbers++;
            if (t == hashes.length) {
                resizeNumbers(t * 2);
            }
        }
        if (poolUsed + length > pool.length) {
            growPool(length);
        }
        System.arraycopy(chars, 0, pool, poolUsed, length);
        hashes[t] = hash;
        starts[t] = poolUsed;
        lengths[t] = length;
        poolUsed += length;
        return t;
    }

    private void addSlot(int t, int slot) {
        int n = counts[t];
        if (n == 1) {
            if (firsts[t] == slot) {
                return;
            }
            int[] slots = new int[4];
            slots[0] = firsts[t];
            slots[1] = slot;
            more[t] = slots;
            counts[t] = 2;
            return;
        }
        int[] slots = more[t];
        if (slots[n - 1] == slot) {
            return;
        }
        if (n == slots.length) {
            slots = Arrays.copyOf(slots, n * 2);
            more[t] = slots;
        }
        slots[n] = slot;
        counts[t] = n + 1;
    }

    private boolean removeSlot(int t, int slot) {
        int n = counts[t];
        if (n == 1) {
            if (firsts[t] != slot) {
                return false;
            }
            counts[t] = 0;
            return true;
        }
        int[] slots = more[t];
        for (int k = 0; k < n; k++) {
            if (slots[k] == slot) {
                slots[k] = slots[n - 1];
                counts[t] = n - 1;
                if (n - 1 == 1) {
                    firsts[t] = slots[0];
                    more[t] = null;
                }
                return true;
            }
        }
        return false;
    }

    /** Empties {@code cell} (shifting back the cells of the run after it) and frees term {@code t} and its chars. */
    private void drop(int cell, int t) {
        int mask = table.length - 1;
        int hole = cell;
        for (int next = (hole + 1) & mask; table[next] != 0; next = (next + 1) & mask) {
            int home = spread(hashes[table[next] - 1]) & mask;
            // move the entry back into the hole unless its home lies cyclically in (hole, next]
            if (hole <= next ? home <= hole || home > next : home <= hole && home > next) {
                table[hole] = table[next];
                hole = next;
            }
        }
        table[hole] = 0;
        size--;
        Arrays.fill(pool, starts[t], starts[t] + lengths[t], '\0');
        poolDead += lengths[t];
        lengths[t] = 0;
        more[t] = null;
        if (freeCount == freeNumbers.length) {
            freeNumbers = Arrays.copyOf(freeNumbers, freeCount * 2);
        }
        freeNumbers[freeCount++] = t;
        if (poolDead > 1024 && poolDead > poolUsed / 2) {
            compactPool();
        }
    }

    private void grow() {
        rehash(table.length * 2);
    }

    private void rehash(int cells) {
        int[] old = table;
        table = new int[cells];
        int mask = cells - 1;
        for (int at : old) {
            if (at != 0) {
                int cell = spread(hashes[at - 1]) & mask;
                while (table[cell] != 0) {
                    cell = (cell + 1) & mask;
                }
                table[cell] = at;
            }
        }
    }

    private void resizeNumbers(int n) {
        hashes = Arrays.copyOf(hashes, n);
        starts = Arrays.copyOf(starts, n);
        lengths = Arrays.copyOf(lengths, n);
        counts = Arrays.copyOf(counts, n);
        firsts = Arrays.copyOf(firsts, n);
        more = Arrays.copyOf(more, n);
    }

    private void growPool(int length) {
        if (poolDead > pool.length / 4) {
            compactPool();
        }
        if (poolUsed + length > pool.length) {
            pool = Arrays.copyOf(pool, Math.max(pool.length * 2, poolUsed + length));
        }
    }

    /** Copies the chars of the held terms to a new pool, leaving out those of dropped ones. */
    private void compactPool() {
        char[] fresh = new char[Math.max(256, (poolUsed - poolDead) * 2)];
        int used = 0;
        for (int at : table) {
            if (at != 0) {
                int t = at - 1;
                System.arraycopy(pool, starts[t], fresh, used, lengths[t]);
                starts[t] = used;
                used += lengths[t];
            }
        }
        pool = fresh;
        poolUsed = used;
        poolDead = 0;
    }
}

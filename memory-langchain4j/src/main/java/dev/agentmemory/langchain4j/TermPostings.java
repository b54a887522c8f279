package dev.agentmemory.langchain4j;

import java.util.Arrays;

/**
 * The terms of a persistent index, each with the slots of the keys that hold it, each slot once.
 *
 * <p>An open-addressing table (linear probing) whose cells hold a term's hash and number, looked
 * up by a term's chars straight from a {@link WordScanner}'s buffer, so that no string is made
 * for a term already held; the chars of every term in one pool; per term number, side by side,
 * its place in the pool, how many keys hold it and the first of them (the others in an array of
 * their own: a term held by one key, as most are, needs none). A term that no key holds any
 * longer is dropped at once and its chars are overwritten in the pool. Not thread-safe.
 */
final class TermPostings {

    /** Ints per term number in {@link #terms}: where its chars start, how many, how many keys hold it, the first. */
    private static final int STRIDE = 4;
    private static final int START = 0;
    private static final int LENGTH = 1;
    private static final int COUNT = 2;
    private static final int FIRST = 3;

    /**
     * Per cell, a term's hash in the high half and its number plus one in the low half; 0 for an
     * empty cell. A power of two long, at most half full.
     */
    private long[] table = new long[64];
    private int size;

    /** Term numbers ever given out; those freed are reused first. */
    private int numbers;
    private int[] freeNumbers = new int[16];
    private int freeCount;

    private int[] terms = new int[32 * STRIDE];
    /** Per term number held by more than one key, the slots of those keys. */
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
        for (long at = table[cell]; at != 0; at = table[cell]) {
            if ((int) (at >>> 32) == hash) {
                int t = (int) at - 1;
                if (equals(t, chars, length)) {
                    addSlot(t, slot);
                    return;
                }
            }
            cell = (cell + 1) & mask;
        }
        int t = newTerm(chars, length);
        table[cell] = cellOf(hash, t);
        terms[t * STRIDE + COUNT] = 1;
        terms[t * STRIDE + FIRST] = slot;
        if (++size > table.length / 2) {
            rehash(table.length * 2);
        }
    }

    /** Removes {@code slot} from the postings of a term ({@link #add}); drops the term if no key holds it. */
    void remove(char[] chars, int length, int hash, int slot) {
        int mask = table.length - 1;
        for (int cell = spread(hash) & mask; table[cell] != 0; cell = (cell + 1) & mask) {
            long at = table[cell];
            int t = (int) at - 1;
            if ((int) (at >>> 32) == hash && equals(t, chars, length)) {
                if (removeSlot(t, slot) && terms[t * STRIDE + COUNT] == 0) {
                    drop(cell, t);
                }
                return;
            }
        }
    }

    /** The number of {@code term}, or -1 when no key holds it. */
    int termNumber(String term) {
        int hash = term.hashCode();
        int mask = table.length - 1;
        for (int cell = spread(hash) & mask; table[cell] != 0; cell = (cell + 1) & mask) {
            long at = table[cell];
            int t = (int) at - 1;
            if ((int) (at >>> 32) == hash && equals(t, term)) {
                return t;
            }
        }
        return -1;
    }

    /** How many keys hold the term numbered {@code t}. */
    int count(int t) {
        return terms[t * STRIDE + COUNT];
    }

    /** The {@code k}th slot holding the term numbered {@code t} ({@code k < count(t)}), in no particular order. */
    int slot(int t, int k) {
        int[] slots = more[t];
        return slots == null ? terms[t * STRIDE + FIRST] : slots[k];
    }

    /** Drops every term. */
    void clear() {
        table = new long[64];
        size = 0;
        numbers = 0;
        freeCount = 0;
        terms = new int[32 * STRIDE];
        more = new int[32][];
        pool = new char[256];
        poolUsed = 0;
        poolDead = 0;
    }

    /** Makes room for about {@code count} terms at once. */
    void expect(int count) {
        int cells = Integer.highestOneBit(Math.max(32, count) * 2 - 1) << 1;
        if (cells > table.length) {
            rehash(cells);
        }
        if (count > more.length) {
            resizeNumbers(count);
        }
    }

    private static long cellOf(int hash, int t) {
        return (long) hash << 32 | (t + 1L);
    }

    private static int spread(int hash) {
        return hash * 0x9E3779B9 >>> 7 ^ hash;
    }

    private boolean equals(int t, char[] chars, int length) {
        int at = t * STRIDE;
        if (terms[at + LENGTH] != length) {
            return false;
        }
        int start = terms[at + START];
        return Arrays.equals(pool, start, start + length, chars, 0, length);
    }

    private boolean equals(int t, String term) {
        int at = t * STRIDE;
        if (terms[at + LENGTH] != term.length()) {
            return false;
        }
        int start = terms[at + START];
        for (int i = 0; i < term.length(); i++) {
            if (pool[start + i] != term.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private int newTerm(char[] chars, int length) {
        int t;
        if (freeCount > 0) {
            t = freeNumbers[--freeCount];
        } else {
            t = numbers++;
            if (t == more.length) {
                resizeNumbers(t * 2);
            }
        }
        if (poolUsed + length > pool.length) {
            growPool(length);
        }
        System.arraycopy(chars, 0, pool, poolUsed, length);
        terms[t * STRIDE + START] = poolUsed;
        terms[t * STRIDE + LENGTH] = length;
        poolUsed += length;
        return t;
    }

    private void addSlot(int t, int slot) {
        int at = t * STRIDE;
        int n = terms[at + COUNT];
        int[] slots = more[t];
        if (slots == null) {
            if (terms[at + FIRST] == slot) {
                return;
            }
            slots = new int[4];
            slots[0] = terms[at + FIRST];
            slots[1] = slot;
            more[t] = slots;
            terms[at + COUNT] = 2;
            return;
        }
        if (slots[n - 1] == slot) {
            return;
        }
        if (n == slots.length) {
            slots = Arrays.copyOf(slots, n * 2);
            more[t] = slots;
        }
        slots[n] = slot;
        terms[at + COUNT] = n + 1;
    }

    private boolean removeSlot(int t, int slot) {
        int at = t * STRIDE;
        int n = terms[at + COUNT];
        int[] slots = more[t];
        if (slots == null) {
            if (terms[at + FIRST] != slot) {
                return false;
            }
            terms[at + COUNT] = 0;
            return true;
        }
        for (int k = 0; k < n; k++) {
            if (slots[k] == slot) {
                slots[k] = slots[n - 1];
                terms[at + COUNT] = n - 1;
                if (n - 1 == 1) {
                    terms[at + FIRST] = slots[0];
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
            int home = spread((int) (table[next] >>> 32)) & mask;
            // move the entry back into the hole unless its home lies cyclically in (hole, next]
            if (hole <= next ? home <= hole || home > next : home <= hole && home > next) {
                table[hole] = table[next];
                hole = next;
            }
        }
        table[hole] = 0;
        size--;
        int at = t * STRIDE;
        Arrays.fill(pool, terms[at + START], terms[at + START] + terms[at + LENGTH], '\0');
        poolDead += terms[at + LENGTH];
        terms[at + LENGTH] = 0;
        more[t] = null;
        if (freeCount == freeNumbers.length) {
            freeNumbers = Arrays.copyOf(freeNumbers, freeCount * 2);
        }
        freeNumbers[freeCount++] = t;
        if (poolDead > 1024 && poolDead > poolUsed / 2) {
            compactPool();
        }
    }

    private void rehash(int cells) {
        long[] old = table;
        table = new long[cells];
        int mask = cells - 1;
        for (long at : old) {
            if (at != 0) {
                int cell = spread((int) (at >>> 32)) & mask;
                while (table[cell] != 0) {
                    cell = (cell + 1) & mask;
                }
                table[cell] = at;
            }
        }
    }

    private void resizeNumbers(int n) {
        terms = Arrays.copyOf(terms, n * STRIDE);
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
        for (long cell : table) {
            if (cell != 0) {
                int at = ((int) cell - 1) * STRIDE;
                System.arraycopy(pool, terms[at + START], fresh, used, terms[at + LENGTH]);
                terms[at + START] = used;
                used += terms[at + LENGTH];
            }
        }
        pool = fresh;
        poolUsed = used;
        poolDead = 0;
    }
}

package dev.agentmemory.core.policy;

import java.util.Arrays;

/**
 * Where the keywords of a {@link KeywordScanner} occur in one text: per keyword a chain of hits,
 * newest (rightmost) first. Walk a keyword's hits with
 * {@code for (int h = hits.first(k); h >= 0; h = hits.next(h))} and read each one's
 * {@link #start} offset.
 */
final class KeywordHits {

    private final int[] head;
    private int[] start = new int[16];
    private int[] next = new int[16];
    private int size;

    KeywordHits(int keywords) {
        head = new int[keywords];
        Arrays.fill(head, -1);
    }

    void add(int keyword, int offset) {
        if (size == start.length) {
            start = Arrays.copyOf(start, size * 2);
            next = Arrays.copyOf(next, size * 2);
        }
        start[size] = offset;
        next[size] = head[keyword];
        head[keyword] = size++;
    }

    /** Whether keyword {@code keyword} occurs at least once. */
    public boolean contains(int keyword) {
        return head[keyword] >= 0;
    }

    /** The last occurrence of keyword {@code keyword}, or -1 when it does not occur. */
    public int first(int keyword) {
        return head[keyword];
    }

    /** The occurrence of the same keyword before {@code hit}, or -1 when there is none. */
    public int next(int hit) {
        return next[hit];
    }

    /** The offset (in chars) at which occurrence {@code hit} begins. */
    public int start(int hit) {
        return start[hit];
    }

    /** How many occurrences of all keywords were found. */
    public int size() {
        return size;
    }
}

package dev.agentmemory.core.policy;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Finds every occurrence of a fixed set of keywords in a text in one pass (an Aho-Corasick
 * automaton over UTF-16 chars). Overlapping occurrences are all reported, including keywords
 * that are suffixes or infixes of others. Matching is exact: the caller normalizes the text and
 * the keywords alike. Immutable and thread-safe once built.
 */
final class KeywordScanner {

    private final int keywordCount;
    private final int[] lengths;
    /** Per state: the characters with an edge, sorted, and the states they lead to. */
    private final char[][] labels;
    private final int[][] targets;
    /** Per state: the state of the longest proper suffix that is also a trie path. */
    private final int[] fail;
    /** Per state: the ids of the keywords that end here, directly or through fail links. */
    private final int[][] outputs;
    /** Root edges for ASCII characters; 0 where the root has none. */
    private final int[] rootAscii = new int[128];

    /**
     * A scanner for {@code keywords}; a keyword's id is its index in the list.
     *
     * @throws IllegalArgumentException if a keyword is empty
     */
    public KeywordScanner(List<String> keywords) {
        for (int k = 0; k < keywords.size(); k++) {
            if (keywords.get(k).isEmpty()) {
                throw new IllegalArgumentException("keyword " + k + " is empty");
            }
        }
        keywordCount = keywords.size();
        lengths = keywords.stream().mapToInt(String::length).toArray();
        List<TreeMap<Character, Integer>> edges = new ArrayList<>();
        List<List<Integer>> out = new ArrayList<>();
        edges.add(new TreeMap<>());
        out.add(new ArrayList<>());
        for (int k = 0; k < keywords.size(); k++) {
            int s = 0;
            for (char c : keywords.get(k).toCharArray()) {
                Integer next = edges.get(s).get(c);
                if (next == null) {
                    next = edges.size();
                    edges.add(new TreeMap<>());
                    out.add(new ArrayList<>());
                    edges.get(s).put(c, next);
                }
                s = next;
            }
            out.get(s).add(k);
        }
        int n = edges.size();
        fail = new int[n];
        ArrayDeque<Integer> queue = new ArrayDeque<>(edges.get(0).values());
        while (!queue.isEmpty()) {
            int s = queue.poll();
            for (Map.Entry<Character, Integer> e : edges.get(s).entrySet()) {
                int t = e.getValue();
                queue.add(t);
                if (s != 0) {
                    int f = fail[s];
                    while (f != 0 && !edges.get(f).containsKey(e.getKey())) {
                        f = fail[f];
                    }
                    Integer g = edges.get(f).get(e.getKey());
                    fail[t] = g == null ? 0 : g;
                }
                for (int k : out.get(fail[t])) {
                    if (!out.get(t).contains(k)) {
                        out.get(t).add(k);
                    }
                }
            }
        }
        labels = new char[n][];
        targets = new int[n][];
        outputs = new int[n][];
        for (int s = 0; s < n; s++) {
            TreeMap<Character, Integer> m = edges.get(s);
            labels[s] = new char[m.size()];
            targets[s] = new int[m.size()];
            int i = 0;
            for (Map.Entry<Character, Integer> e : m.entrySet()) {
                labels[s][i] = e.getKey();
                targets[s][i] = e.getValue();
                i++;
            }
            outputs[s] = out.get(s).stream().mapToInt(Integer::intValue).toArray();
        }
        for (Map.Entry<Character, Integer> e : edges.get(0).entrySet()) {
            if (e.getKey() < 128) {
                rootAscii[e.getKey()] = e.getValue();
            }
        }
    }

    /** How many keywords this scanner looks for. */
    public int keywordCount() {
        return keywordCount;
    }

    /** Every occurrence of every keyword in {@code text}. */
    public KeywordHits find(CharSequence text) {
        KeywordHits hits = new KeywordHits(keywordCount);
        int s = 0;
        for (int i = 0, n = text.length(); i < n; i++) {
            char c = text.charAt(i);
            int next = step(s, c);
            while (next < 0 && s != 0) {
                s = fail[s];
                next = step(s, c);
            }
            s = Math.max(next, 0);
            for (int k : outputs[s]) {
                hits.add(k, i + 1 - lengths[k]);
            }
        }
        return hits;
    }

    private int step(int s, char c) {
        if (s == 0) {
            if (c < 128) {
                int t = rootAscii[c];
                return t == 0 ? -1 : t;
            }
        }
        int i = Arrays.binarySearch(labels[s], c);
        return i < 0 ? -1 : targets[s][i];
    }
}

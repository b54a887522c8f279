package dev.agentmemory.langchain4j.recall;

import dev.agentmemory.langchain4j.recall.RecallScorer.Candidate;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import org.apache.lucene.index.StoredFields;

/**
 * Turns of a conversation answer one another: a question's answer is often in the turn right
 * after the one that shares its words ("What did you paint?" / "A lake at sunrise"), or right
 * before. So each of the best-scoring items passes a share of its score to the items just before
 * and just after it in time that belong to the same {@linkplain HybridIndex#THREAD_ATTRIBUTE
 * thread}; an item keeps the larger of what its two neighbours pass. Items without a thread (facts)
 * neither pass nor receive anything. A function of the candidates alone: ties in time or score
 * are broken by id.
 */
final class NeighbourContext {

    private NeighbourContext() {
    }

    /**
     * The bonus of each candidate (same positions as {@code pool}), given their own scores
     * {@code base}: {@code share} times the best score among its same-thread neighbours that are
     * among the {@code donors} best-scoring candidates.
     */
    static double[] bonuses(List<Candidate> pool, double[] base, double share, int donors, StoredFields fields) {
        int n = pool.size();
        double[] bonus = new double[n];
        if (share <= 0 || n < 2) {
            return bonus;
        }
        List<Integer> byTime = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            byTime.add(i);
        }
        byTime.sort(Comparator.comparing((Integer i) -> pool.get(i).time).thenComparing(i -> id(pool.get(i), fields)));
        int[] position = new int[n];
        for (int p = 0; p < n; p++) {
            position[byTime.get(p)] = p;
        }
        List<Integer> best = new ArrayList<>(byTime);
        best.sort(Comparator.comparingDouble((Integer i) -> base[i]).reversed()
                .thenComparing(i -> pool.get(i).time, Comparator.reverseOrder())
                .thenComparing(i -> id(pool.get(i), fields)));
        for (int k = 0; k < Math.min(donors, n); k++) {
            int donor = best.get(k);
            String thread = thread(pool.get(donor), fields);
            if (thread == null) {
                continue;
            }
            for (int step = -1; step <= 1; step += 2) {
                int p = position[donor] + step;
                if (p < 0 || p >= n) {
                    continue;
                }
                int receiver = byTime.get(p);
                if (thread.equals(thread(pool.get(receiver), fields))) {
                    bonus[receiver] = Math.max(bonus[receiver], share * base[donor]);
                }
            }
        }
        return bonus;
    }

    private static String id(Candidate c, StoredFields fields) {
        return stored(c, fields).id();
    }

    private static @org.jspecify.annotations.Nullable String thread(Candidate c, StoredFields fields) {
        return stored(c, fields).attributes().get(HybridIndex.THREAD_ATTRIBUTE);
    }

    private static IndexSchema.Stored stored(Candidate c, StoredFields fields) {
        if (c.stored == null) {
            try {
                c.stored = IndexSchema.load(fields, c.doc);
            } catch (IOException e) {
                throw new UncheckedIOException("reading a recall item failed", e);
            }
        }
        return Objects.requireNonNull(c.stored);
    }
}

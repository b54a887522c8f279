package dev.agentmemory.langchain4j.recall;

import dev.agentmemory.langchain4j.recall.RecallScorer.Candidate;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Comparator;
import java.util.Objects;
import java.util.PriorityQueue;
import org.apache.lucene.index.StoredFields;

/**
 * Turns of a conversation answer one another: a question's answer is often in the turn right
 * after the one that shares its words ("Which book should I take?" / "The Remains of the Day"),
 * or right before. So each of the best-scoring items passes a share of its score to the previous
 * and the next item of its {@linkplain HybridIndex#THREAD_ATTRIBUTE thread} (by time); an item
 * keeps the largest share passed to it. Items without a thread (facts) neither pass nor receive
 * anything. A function of the candidates alone: ties in time or score are broken by id.
 */
final class NeighbourContext {

    private NeighbourContext() {
    }

    /**
     * The bonus of each candidate (same positions as {@code pool}), given their own scores
     * {@code base}: {@code share} times the best score among the {@code donors} best-scoring
     * candidates that are its previous or next item in its thread.
     */
    static double[] bonuses(java.util.List<Candidate> pool, double[] base, double share, int donors,
                            StoredFields fields) {
        int n = pool.size();
        double[] bonus = new double[n];
        if (share <= 0 || n < 2 || donors < 1) {
            return bonus;
        }
        // the donors: a bounded selection, worst of the kept ones on top
        Comparator<Integer> better = Comparator.comparingDouble((Integer i) -> base[i])
                .thenComparing(i -> pool.get(i).time)
                .thenComparing((Integer i) -> id(pool.get(i), fields), Comparator.reverseOrder());
        PriorityQueue<Integer> best = new PriorityQueue<>(donors + 1, better);
        for (int i = 0; i < n; i++) {
            if (best.size() < donors) {
                best.add(i);
            } else if (better.compare(i, Objects.requireNonNull(best.peek())) > 0) {
                best.poll();
                best.add(i);
            }
        }
        Comparator<Integer> byTime = Comparator.comparing((Integer i) -> pool.get(i).time)
                .thenComparing(i -> id(pool.get(i), fields));
        for (int donor : best) {
            long thread = pool.get(donor).thread;
            if (thread == IndexSchema.NO_THREAD) {
                continue;
            }
            int previous = -1;
            int next = -1;
            for (int j = 0; j < n; j++) {
                if (j == donor || pool.get(j).thread != thread) {
                    continue;
                }
                if (byTime.compare(j, donor) < 0) {
                    if (previous < 0 || byTime.compare(j, previous) > 0) {
                        previous = j;
                    }
                } else if (next < 0 || byTime.compare(j, next) < 0) {
                    next = j;
                }
            }
            for (int receiver : new int[] {previous, next}) {
                if (receiver >= 0) {
                    bonus[receiver] = Math.max(bonus[receiver], share * base[donor]);
                }
            }
        }
        return bonus;
    }

    private static String id(Candidate c, StoredFields fields) {
        if (c.stored == null) {
            try {
                c.stored = IndexSchema.load(fields, c.doc);
            } catch (IOException e) {
                throw new UncheckedIOException("reading a recall item failed", e);
            }
        }
        return Objects.requireNonNull(c.stored).id();
    }
}

package dev.agentmemory.langchain4j.recall;

/**
 * A logistic regression over an {@link UpdatePair}: the probability that the newer statement
 * replaces the older one as the answer to the query (a knowledge update), rather than both being
 * true. Its weights were fitted on the {@code tune} half of the knowledge-update development set
 * only (the pairs {@link UpdatePair#of} makes there: in that data, an item's update and each of
 * its facts about a subject in common; the update and a fact it supersedes are the positives, the
 * update and a fact it leaves true the negatives); {@code UpdateModelFitTest} refits them from
 * the data and checks they are the ones below. The threshold is the regression's own 0.5, not
 * tuned.
 */
final class UpdateModel {

    /** Intercept, then one weight per {@link UpdatePair#vector()} feature. */
    static final double[] WEIGHTS = {-5.745, 1.709, 4.954, 2.111, -2.746, 1.946};

    /** At or above this probability the older statement is superseded for the read. */
    static final double SUPERSEDES = 0.5;

    private UpdateModel() {
    }

    /** Whether the newer statement of the pair supersedes the older one for the read. */
    static boolean supersedes(UpdatePair pair) {
        return probability(pair) >= SUPERSEDES;
    }

    static double probability(UpdatePair pair) {
        double[] x = pair.vector();
        double z = WEIGHTS[0];
        for (int i = 0; i < x.length; i++) {
            z += WEIGHTS[i + 1] * x[i];
        }
        return 1 / (1 + Math.exp(-z));
    }
}

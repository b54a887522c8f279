package dev.agentmemory.langchain4j.recall;

import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import org.jspecify.annotations.Nullable;

/**
 * What read-time resolution knows about an older and a newer statement that open with a named
 * subject in common and were said at least {@link #MIN_GAP} apart, asked about by one query: a
 * function of the two statements and the query alone (never of the rest of the index), read by
 * {@link UpdateModel}.
 *
 * @param cosine          cosine of the two statements' vectors
 * @param overlap         shared content terms over the lighter statement's, names weighing {@link SupersessionDetector#NAME_WEIGHT}
 * @param olderToQuery    cosine of the older statement and the query
 * @param olderBehindBest how far the older statement's cosine to the query is below the best result's (0 when it is the best)
 * @param olderIsBest     whether the older statement is the result closest to the query (the answer it would give)
 */
record UpdatePair(double cosine, double overlap, double olderToQuery, double olderBehindBest, boolean olderIsBest) {

    /**
     * Least time between two statements for one to update the other: statements said together
     * (within the hour, as one account of several facts) add to each other.
     */
    static final Duration MIN_GAP = Duration.ofHours(1);

    /** One statement as the pair sees it: its text, unit vector, content terms, frame and time. */
    record Side(String text, float[] vector, Set<String> terms, StatementFrame frame, Instant time) {
    }

    /**
     * The pair's features, or null when the two do not open with a named subject in common
     * (chat turns, "I ...", questions and hypotheticals have no frame and are never paired) or
     * were said less than {@link #MIN_GAP} apart.
     *
     * @param query       the query's unit vector
     * @param bestToQuery the best cosine to the query among the results compared
     */
    static @Nullable UpdatePair of(Side older, Side newer, float[] query, double bestToQuery,
                                   Function<String, Set<String>> terms) {
        if (!older.frame().sharesSubject(newer.frame())
                || Duration.between(older.time(), newer.time()).compareTo(MIN_GAP) < 0) {
            return null;
        }
        ToDoubleFunction<String> weights = SupersessionDetector.pairWeights(older.text(), newer.text(), terms);
        double olderToQuery = Vectors.cosine(older.vector(), query);
        return new UpdatePair(Vectors.cosine(older.vector(), newer.vector()),
                SupersessionDetector.overlap(older.terms(), newer.terms(), weights),
                olderToQuery, Math.max(0, bestToQuery - olderToQuery), olderToQuery >= bestToQuery);
    }

    /** The features as the model reads them, in the order of its weights. */
    double[] vector() {
        return new double[] {cosine, overlap, olderToQuery, olderBehindBest, olderIsBest ? 1 : 0};
    }
}

package dev.agentmemory.langchain4j.recall;

import java.time.Duration;

/**
 * The settings of a {@link HybridIndex}, validated by its {@link HybridIndex.Builder} (see there
 * for what each means and its default).
 */
record IndexSettings(int hnswMaxConn, int hnswBeamWidth,
                     boolean detectSupersession, double supersessionMinCosine, double supersessionMinOverlap,
                     int detectionNeighbours,
                     double denseWeight, double lexicalWeight, double recencyWeight, Duration recencyHalfLife,
                     double supersededDemotion,
                     int minCandidates, int candidateFactor, int minDenseCandidates, int denseCandidateFactor,
                     int denseCandidatesGrowFrom,
                     boolean readTimeSupersession, double readMinCosine, double readMinOverlap,
                     double readTimeMinQueryCoverage, int readTimeWindowExtra,
                     int exactSearchBelow, boolean minMaxFusion,
                     boolean dropQueryFunctionWords, double neighbourShare,
                     double dateWeight, boolean frameResolution, boolean serialMerges) {

    /**
     * How many candidates the vector search fetches for {@code results} results in a partition of
     * about {@code partitionItems} items: the configured count, multiplied by
     * {@code 1 + log2(partitionItems / denseCandidatesGrowFrom)} past that size.
     */
    int denseCandidates(int results, long partitionItems) {
        int k = Math.max(minDenseCandidates, results * denseCandidateFactor);
        if (partitionItems <= denseCandidatesGrowFrom) {
            return k;
        }
        double growth = 1 + Math.log((double) partitionItems / denseCandidatesGrowFrom) / Math.log(2);
        return (int) Math.min(Integer.MAX_VALUE / 2, Math.ceil(k * growth));
    }
}

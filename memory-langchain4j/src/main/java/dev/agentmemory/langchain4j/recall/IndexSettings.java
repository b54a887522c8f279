package dev.agentmemory.langchain4j.recall;

import java.time.Duration;

/**
 * The settings of a {@link HybridIndex}, validated by its {@link HybridIndex.Builder} (see there
 * for what each means and its default). {@code hnswMaxConn}, {@code hnswBeamWidth} and
 * {@code denseCandidatesGrowFrom} are kept as set but no longer used (the index has no graph).
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
     * How many documents {@link CodeScan} scores exactly for every vector candidate it returns.
     * Chosen on one half of the real MiniLM corpus (50,048 texts, {@code CodeScanTuning}): the
     * library asks for 4 vector candidates per result, and the first half of them are the ones
     * its results come from; with 10 per candidate, recall of the exact top k/2 is 0.987 to 0.991
     * for k = 20 to 160 (0.9955 of the top 10 at k = 40), of the whole top k 0.967 to 0.977.
     * Checked on the other half and on synthetic clusters (see the README).
     */
    static final int SHORTLIST_PER_CANDIDATE = 10;

    /** Documents scored exactly at least, whatever k (the knowledge-update check asks for 8). */
    static final int MIN_SHORTLIST = 200;

    /**
     * How many candidates the vector search returns for {@code results} results: the configured
     * count, whatever the partition's size: {@link CodeScan} compares every item, and its shortlist
     * grows with the count ({@code denseCandidatesGrowFrom}, which grew the count with the
     * partition for the HNSW graph, is accepted and ignored).
     */
    int denseCandidates(int results) {
        return Math.max(minDenseCandidates, results * denseCandidateFactor);
    }

    /** How many documents {@link CodeScan} scores exactly to return {@code k} candidates. */
    int shortlist(int k) {
        return (int) Math.min(Integer.MAX_VALUE / 2, Math.max((long) MIN_SHORTLIST, (long) k * SHORTLIST_PER_CANDIDATE));
    }
}

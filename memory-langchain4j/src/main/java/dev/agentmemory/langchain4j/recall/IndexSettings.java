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
                     boolean readTimeSupersession, double readMinCosine, double readMinOverlap,
                     double readTimeMinQueryCoverage, int readTimeWindowExtra,
                     int exactSearchBelow, boolean minMaxFusion,
                     boolean dropQueryFunctionWords, double neighbourShare,
                     double dateWeight, boolean frameResolution) {
}

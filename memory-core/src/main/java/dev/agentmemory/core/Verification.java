package dev.agentmemory.core;

/** Whether a record's content was checked. */
public enum Verification {
    /** Not subject to verification (stated by a trusted source, or an observation). */
    NONE,
    /** Extracted by a model; waits for the user's confirmation or a verifier. */
    CANDIDATE,
    /** Confirmed by the user. */
    CONFIRMED,
    /** Checked by a registered verifier and found true. */
    VERIFIED,
    /** Checked by a registered verifier and found false; never served as current. */
    REFUTED;

    /** Whether a read asking for verified records only may return a record in this state. */
    public boolean countsAsVerified(Trust trust) {
        return this == CONFIRMED || this == VERIFIED || (this == NONE && trust == Trust.TRUSTED);
    }
}

package dev.agentmemory.core;

/**
 * How a read filters.
 *
 * @param verifiedOnly    serve only records confirmed by the user, verified by a verifier, or stated by a trusted source
 * @param includeArchived also read archived state (ended tasks, collected records)
 */
public record ReadOptions(boolean verifiedOnly, boolean includeArchived) {

    /** The default: everything servable in the active view. */
    public static final ReadOptions DEFAULT = new ReadOptions(false, false);

    /** Only verified records. */
    public static ReadOptions verified() {
        return new ReadOptions(true, false);
    }

    /** Archived state too. */
    public static ReadOptions withArchived() {
        return new ReadOptions(false, true);
    }
}

package dev.agentmemory.store.jdbc;

/** How {@link JdbcStores#h2File(java.nio.file.Path, H2FileOption...)} opens an H2 file. */
public enum H2FileOption {

    /**
     * Opens a file that has committed writes but no high-water mark beside it ({@code <name>.hwm}
     * missing or unreadable: the {@code .mv.db} was copied or restored alone), which is refused
     * otherwise, since nothing can tell whether it lost its latest writes. The store then writes a
     * fresh mark and records in the file that it was opened without one; every audit reports it
     * ("opened without its high-water mark ...; completeness unverified").
     */
    ACCEPT_MISSING_HIGH_WATER_MARK
}

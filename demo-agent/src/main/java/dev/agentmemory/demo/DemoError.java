package dev.agentmemory.demo;

/**
 * A problem the user can fix (a wrong argument, a missing or locked store, an unreachable model):
 * {@link DemoMain} prints its message as one {@code error: ...} line and exits with its code.
 */
final class DemoError extends RuntimeException {

    /** A wrong command line or environment variable. */
    static final int USAGE = 2;
    /** No memory store where {@code inspect} or {@code audit} looked. */
    static final int NO_STORE = 4;
    /** The store's path cannot be used (a file where a folder should be, a read-only folder). */
    static final int STORE_UNUSABLE = 5;
    /** Another process (a running chat) has the store open. */
    static final int STORE_IN_USE = 6;
    /** The model server failed (unreachable, HTTP error, timeout, invalid reply). */
    static final int MODEL = 7;
    /** A bug: anything that is not one of the above. */
    static final int INTERNAL = 70;

    private final int exitCode;

    DemoError(int exitCode, String message) {
        super(message);
        this.exitCode = exitCode;
    }

    DemoError(int exitCode, String message, Throwable cause) {
        super(message, cause);
        this.exitCode = exitCode;
    }

    int exitCode() {
        return exitCode;
    }

    static DemoError usage(String message) {
        return new DemoError(USAGE, message);
    }
}

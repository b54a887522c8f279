package dev.agentmemory.langchain4j.oracle;

/**
 * One broken promise in one request.
 *
 * @param invariant which promise
 * @param step      index (from 1) of the step whose turn sent the request
 * @param round     model call within the turn (0 = first)
 * @param where     which part of the request (message index and role, frame item id)
 * @param detail    what is wrong, with the offending text
 */
record Violation(Invariant invariant, int step, int round, String where, String detail) {

    @Override
    public String toString() {
        return "[" + invariant + "] step #" + step + " round " + round + ", " + where + ": " + detail;
    }
}

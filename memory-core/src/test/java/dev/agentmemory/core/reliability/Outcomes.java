package dev.agentmemory.core.reliability;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryEngine;
import dev.agentmemory.core.MemoryException;
import dev.agentmemory.core.audit.AuditReport;

import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs hostile calls and classifies how each ended: success, or one of the project's documented
 * failures with a message naming the problem. Anything else (an undocumented exception, a JVM
 * "helpful" NullPointerException from a missing check, a database error leaking out, a blank
 * message) is a violation. Collects violations so one run reports them all.
 */
final class Outcomes {

    @FunctionalInterface
    interface Call {
        Object run() throws Exception;
    }

    private final List<String> violations = new ArrayList<>();
    private long cases;
    private long succeeded;
    private long failedCleanly;

    /** Runs a call; returns its result, or null when it failed (cleanly or not). */
    Object call(String label, Call call) {
        cases++;
        try {
            Object result = call.run();
            succeeded++;
            return result;
        } catch (Throwable t) {
            String problem = problem(t);
            if (problem == null) {
                failedCleanly++;
            } else {
                violations.add(label + ": " + problem + " -> " + t);
            }
            return null;
        }
    }

    /** Why a failure is not one of the documented ones, or null when it is. */
    static String problem(Throwable t) {
        String message = t.getMessage();
        boolean named = message != null && !message.isBlank();
        if (t instanceof NullPointerException) {
            if (!named || message.contains("because \"") || message.startsWith("Cannot invoke")) {
                return "a NullPointerException from a missing check, not requireNonNull with the parameter name";
            }
            return null;
        }
        if (t instanceof IllegalArgumentException || t instanceof IllegalStateException) {
            return named ? null : "no message naming the problem";
        }
        if (t instanceof MemoryException) {
            for (Throwable c = t.getCause(); c != null; c = c.getCause()) {
                if (c instanceof SQLException) {
                    return "a database error leaked out (input should have been validated first)";
                }
            }
            return named ? null : "no message naming the problem";
        }
        return "undocumented exception type " + t.getClass().getName();
    }

    /** Records a violation found by a check other than the call's outcome. */
    void violation(String what) {
        violations.add(what);
    }

    /**
     * Checks that the live state of every caller equals a fresh replay of the stored log (the
     * audit's replay check; its other findings, such as open conflicts, are not corruption).
     */
    void checkConsistent(String after, MemoryEngine engine, Caller... callers) {
        for (Caller c : callers) {
            AuditReport report = engine.audit(c, Duration.ofDays(3650));
            if (!report.replayMatches()) {
                violations.add("after " + after + ": audit of " + c.tenant() + "/" + c.user() + " failed: " + report.lines());
            }
        }
    }

    List<String> violations() {
        return List.copyOf(violations);
    }

    long cases() {
        return cases;
    }

    long succeeded() {
        return succeeded;
    }

    long failedCleanly() {
        return failedCleanly;
    }
}

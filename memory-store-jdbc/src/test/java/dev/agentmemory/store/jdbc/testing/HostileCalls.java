package dev.agentmemory.store.jdbc.testing;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.MemoryException;
import dev.agentmemory.core.audit.AuditReport;

import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs hostile calls and classifies how each ended: success, or one of the project's documented
 * failures with a message naming the problem ({@link IllegalArgumentException},
 * {@link IllegalStateException}, a {@link MemoryException} that hides no database error, or a
 * {@link NullPointerException} from {@code requireNonNull(x, "x")}). Anything else (an undocumented
 * exception, a JVM "helpful" NullPointerException from a missing check, a database error leaking
 * out, a blank message) is a violation. Collects violations so one run reports them all.
 */
public final class HostileCalls {

    /** A call that may throw anything. */
    @FunctionalInterface
    public interface Call {
        Object run() throws Exception;
    }

    private final List<String> violations = new ArrayList<>();
    private long cases;
    private long succeeded;
    private long failedCleanly;

    /** Runs a call; returns its result, or null when it failed (cleanly or not). */
    public Object call(String label, Call call) {
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
                violations.add(shorten(label) + ": " + problem + " -> " + shorten(String.valueOf(t)));
            }
            return null;
        }
    }

    /** Why a failure is not one of the documented ones, or null when it is. */
    public static String problem(Throwable t) {
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

    /** Records a violation found by a check other than a call's outcome. */
    public void violation(String what) {
        violations.add(shorten(what));
    }

    /**
     * Records a violation when the live state of a caller differs from a fresh replay of its stored
     * log (the audit's replay check; its other findings, such as open conflicts, are not corruption).
     */
    public void checkConsistent(String after, MemoryEngine engine, Caller... callers) {
        for (Caller c : callers) {
            AuditReport report = engine.admin().audit(c, Duration.ofDays(3650));
            if (!report.replayMatches()) {
                violations.add("after " + after + ": audit of " + c.tenant() + "/" + c.user() + " failed: "
                        + report.lines());
            }
        }
    }

    /** The violations so far. */
    public List<String> violations() {
        return List.copyOf(violations);
    }

    /** How many calls ran. */
    public long cases() {
        return cases;
    }

    /** How many calls returned. */
    public long succeeded() {
        return succeeded;
    }

    /** How many calls failed in a documented way. */
    public long failedCleanly() {
        return failedCleanly;
    }

    /** {@code s} on one line, cut at 300 characters (for labels of huge hostile inputs). */
    public static String shorten(String s) {
        String oneLine = s.replace('\n', ' ');
        return oneLine.length() > 300 ? oneLine.substring(0, 300) + "...(" + oneLine.length() + " chars)" : oneLine;
    }
}

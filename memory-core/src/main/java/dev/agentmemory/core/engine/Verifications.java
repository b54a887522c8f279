package dev.agentmemory.core.engine;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.Verification;

/**
 * Verification of records, from {@link MemoryEngine#verification()}: the user's verdicts on
 * candidate records, the registered {@link dev.agentmemory.core.spi.Verifier}s, and the
 * re-verify deadlines (TTLs). A record id that is unknown to the caller fails with
 * {@link IllegalArgumentException}; a forgotten record with {@link IllegalStateException}.
 */
public interface Verifications {

    /**
     * The user confirms a candidate record. Confirming a version held in conflict resolves the
     * conflict: it becomes the current value and the version that was current is superseded.
     */
    MemoryRecord confirm(Caller caller, String recordId);

    /**
     * The user rejects a candidate record: it is refuted and never served as current. If it was
     * the current value, the version it replaced is current again.
     */
    MemoryRecord refute(Caller caller, String recordId, String why);

    /**
     * Runs the registered verifiers on a record; the first that has something to say decides
     * (verified or refuted, with its evidence). Unchanged when none does.
     */
    MemoryRecord verify(Caller caller, String recordId);

    /** Marks records past their re-verify deadline as expired in the log; returns how many. */
    int expireDue(Caller caller);
}

package dev.agentmemory.core.audit;

import java.util.List;
import java.util.Objects;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryValue;
import dev.agentmemory.core.Scope;
import java.util.Map;

/**
 * What the audit found in one user's memory.
 *
 * @param seq                       log sequence audited
 * @param conflictingKeys           keys with an open conflict ({@code scope key})
 * @param expiredButActive          records past their re-verify deadline still marked active in the log
 * @param staleKeys                 keys not updated within the staleness window
 * @param archivedScopesReferenced  ended tasks still referenced by active state
 * @param pendingActions            side effects logged without an outcome
 * @param replayMatches             whether the live state equals a fresh replay of the stored log
 * @param replayDifference          what differs, when it does not
 * @param storeFindings             facts about the store as a whole (an H2 file opened without its
 *                                  high-water mark: what it held then is unverified); they do not
 *                                  make the state inconsistent, and every audit lists them
 */
public record AuditReport(long seq, List<String> conflictingKeys, List<String> expiredButActive,
                          List<String> staleKeys, List<String> archivedScopesReferenced,
                          List<String> pendingActions, boolean replayMatches, String replayDifference,
                          List<String> storeFindings) {

    /** A report without store findings. */
    public AuditReport(long seq, List<String> conflictingKeys, List<String> expiredButActive,
                       List<String> staleKeys, List<String> archivedScopesReferenced,
                       List<String> pendingActions, boolean replayMatches, String replayDifference) {
        this(seq, conflictingKeys, expiredButActive, staleKeys, archivedScopesReferenced, pendingActions,
                replayMatches, replayDifference, List.of());
    }

    public AuditReport {
        storeFindings = List.copyOf(storeFindings);
        conflictingKeys = List.copyOf(conflictingKeys);
        expiredButActive = List.copyOf(expiredButActive);
        staleKeys = List.copyOf(staleKeys);
        archivedScopesReferenced = List.copyOf(archivedScopesReferenced);
        pendingActions = List.copyOf(pendingActions);
        Objects.requireNonNull(replayDifference, "replayDifference");
    }

    /** Whether the state is consistent: it equals the replay and nothing archived is still referenced. */
    public boolean consistent() {
        return replayMatches && archivedScopesReferenced.isEmpty();
    }

    /** One line per finding, for people. */
    public List<String> lines() {
        List<String> out = new java.util.ArrayList<>();
        out.add("state == replay(log) at seq " + seq + ": " + (replayMatches ? "yes" : "NO, " + replayDifference));
        conflictingKeys.forEach(k -> out.add("conflict: " + k));
        expiredButActive.forEach(k -> out.add("expired but active: " + k));
        staleKeys.forEach(k -> out.add("stale: " + k));
        archivedScopesReferenced.forEach(k -> out.add("archived task still referenced: " + k));
        pendingActions.forEach(k -> out.add("pending action (reconcile before retry): " + k));
        storeFindings.forEach(k -> out.add("store: " + k));
        return out;
    }

    /** This report with the store's findings. */
    public AuditReport withStoreFindings(List<String> findings) {
        return new AuditReport(seq, conflictingKeys, expiredButActive, staleKeys, archivedScopesReferenced,
                pendingActions, replayMatches, replayDifference, findings);
    }

    /**
     * How the current values of two scopes differ.
     *
     * @param left      one scope
     * @param right     the other
     * @param onlyLeft  keys only the left scope has
     * @param onlyRight keys only the right scope has
     * @param changed   keys both have with different values: left value, right value
     */
    public record ScopeDiff(Scope left, Scope right, Map<MemoryKey, MemoryValue> onlyLeft,
                            Map<MemoryKey, MemoryValue> onlyRight, Map<MemoryKey, Change> changed) {
        public ScopeDiff {
            Objects.requireNonNull(left, "left");
            Objects.requireNonNull(right, "right");
            onlyLeft = Map.copyOf(onlyLeft);
            onlyRight = Map.copyOf(onlyRight);
            changed = Map.copyOf(changed);
        }

        /** A key's two values. */
        public record Change(MemoryValue left, MemoryValue right) {
        }

        /** Whether the scopes hold the same current values. */
        public boolean same() {
            return onlyLeft.isEmpty() && onlyRight.isEmpty() && changed.isEmpty();
        }
    }
}

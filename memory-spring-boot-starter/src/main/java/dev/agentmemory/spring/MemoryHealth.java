package dev.agentmemory.spring;

import dev.agentmemory.core.audit.AuditReport;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.langchain4j.AgentMemory;
import dev.agentmemory.langchain4j.SessionRef;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The memory's health, without naming Actuator: the store answers (one read of an empty probe
 * user per configured tenant, a primary-key lookup), the episodic index is caught up (its oldest
 * waiting commit has waited less than the limit, past which indexing has stalled), and the audit of a few
 * users this instance holds in memory (their state equals the replay of their stored log) finds
 * nothing. The audited users rotate from one check to the next, so that a bounded check reaches
 * every held user over time; users the instance does not hold are never loaded by the check.
 */
final class MemoryHealth {

    /** The outcome of one check: up, or down with the reason; details either way. */
    record Result(boolean up, @Nullable String reason, Map<String, Object> details) {
        Result {
            details = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(details));
        }
    }

    /** Stale keys are not a health matter: the audit is asked with a window no key reaches. */
    private static final Duration NEVER_STALE = Duration.ofDays(365L * 100);

    /** The user whose (empty) log the check reads to see that the store answers. */
    static final String PROBE_USER = "agentmemory-health-probe";

    private final AgentMemory memory;
    private final List<String> tenants;
    private final int auditUsers;
    private final Duration indexLagLimit;
    private final AtomicLong nextAudited = new AtomicLong();

    MemoryHealth(AgentMemory memory, List<String> tenants, int auditUsers, Duration indexLagLimit) {
        this.memory = memory;
        this.tenants = List.copyOf(tenants);
        this.auditUsers = auditUsers;
        this.indexLagLimit = indexLagLimit;
    }

    Result check() {
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("agent", memory.agent());
        try {
            for (String tenant : tenants) {
                memory.engine().admin().log(new SessionRef(tenant, PROBE_USER, "health").caller(memory.agent()));
            }
        } catch (RuntimeException e) {
            details.put("store", "unreachable");
            return new Result(false, "store unreachable: " + text(e), details);
        }
        details.put("store", "reachable");
        List<Partition> users = new ArrayList<>();
        for (Partition p : memory.engine().admin().heldUsers()) {
            if (tenants.contains(p.tenant())) {
                users.add(p);
            }
        }
        users.sort(java.util.Comparator.comparing(Partition::tenant).thenComparing(Partition::user));
        details.put("users", users.size());
        List<String> problems = new ArrayList<>();

        Optional<AgentMemory.IndexBacklog> backlog = memory.indexBacklog();
        if (backlog.isPresent()) {
            AgentMemory.IndexBacklog b = backlog.get();
            details.put("indexPending", b.pendingItems());
            details.put("indexOldestWait", b.oldestWait().toString());
            if (b.oldestWait().compareTo(indexLagLimit) >= 0) {
                problems.add("episodic index behind: " + b.pendingItems() + " items waiting, the oldest for "
                        + b.oldestWait() + " (limit " + indexLagLimit + "; indexing has stalled: recalls embed what is not indexed themselves)");
            }
        } else {
            details.put("index", "off (no embedding model)");
        }

        int audited = 0;
        if (!users.isEmpty() && auditUsers > 0) {
            int n = Math.min(auditUsers, users.size());
            long from = nextAudited.getAndAdd(n);
            for (int i = 0; i < n; i++) {
                Partition p = users.get((int) ((from + i) % users.size()));
                String who = p.tenant() + "/" + p.user();
                try {
                    AuditReport report = memory.engine().admin().audit(
                            new SessionRef(p.tenant(), p.user(), "health").caller(memory.agent()), NEVER_STALE);
                    if (!report.consistent()) {
                        problems.add("audit of " + who + " at seq " + report.seq() + ": " + (report.replayMatches()
                                ? "archived tasks still referenced " + report.archivedScopesReferenced()
                                : "state differs from the replay of its log: " + report.replayDifference()));
                    }
                } catch (RuntimeException e) {
                    problems.add("audit of " + who + " failed: " + text(e));
                }
                audited++;
            }
        }
        details.put("audited", audited);
        return problems.isEmpty() ? new Result(true, null, details)
                : new Result(false, String.join("; ", problems), details);
    }

    private static String text(RuntimeException e) {
        return e.getMessage() == null ? e.getClass().getName() : e.getMessage();
    }
}

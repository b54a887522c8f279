package dev.agentmemory.core.engine;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryException;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.Scope.Layer;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.MemoryValue;
import dev.agentmemory.core.Proposal.Outcome;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.core.StaleVersionException;
import dev.agentmemory.core.MemoryRecord.Status;
import dev.agentmemory.core.TaskInfo;
import dev.agentmemory.core.MemoryRecord.Verification;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.agentmemory.core.event.Change;
import dev.agentmemory.core.internal.state.PartitionState;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * Decides one proposal against a user's state: the kind rules, the task's lifecycle, the
 * agent's permission, append and size rules, the record limit, conflicts and supersession,
 * TTLs and sensitivity. Pure: it reads the state and never changes it, touches no store or
 * lock, and returns the outcome with the changes that carry it out, in order, for the caller
 * to log. Deciding a batch means applying each decision's changes before deciding the next.
 */
final class ProposalDecider {

    /** The outcome of a proposal and the changes that carry it out (empty when nothing is written). */
    record Decision(Outcome outcome, List<Change> changes) {
        Decision {
            Objects.requireNonNull(outcome, "outcome");
            changes = List.copyOf(changes);
        }
    }

    private final EngineConfig config;

    ProposalDecider(EngineConfig config) {
        this.config = config;
    }

    /**
     * Decides {@code p}, proposed by {@code caller}, against {@code state} at {@code now}. The
     * proposal's scope must be the caller's (checked before, with the value's size).
     *
     * @throws StaleVersionException when the proposal expects a version the key is not at
     */
    Decision decide(Caller caller, PartitionState state, Proposal p, Instant now) {
        List<Change> changes = new ArrayList<>();
        Outcome outcome = decide(caller, state, p, now, changes);
        return new Decision(outcome, changes);
    }

    private Outcome decide(Caller caller, PartitionState state, Proposal p, Instant now, List<Change> changes) {
        Optional<String> violation = p.ruleViolation(config.instructionDetector());
        if (violation.isPresent()) {
            return Outcome.rejected(p, violation.get());
        }
        if (p.scope().layer() == Layer.TASK) {
            TaskInfo task = ReadModel.findTask(state, p.scope().session(), p.scope().task());
            if (task == null) {
                return Outcome.rejected(p, "task " + p.scope().task() + " was never started in session " + p.scope().session());
            }
            if (task.status() == TaskInfo.Status.ENDED) {
                return Outcome.rejected(p, "task " + p.scope().task() + " has ended; its state is archived");
            }
        }
        List<MemoryRecord> versions = state.versions(p.scope(), p.key());
        MemoryRecord current = latest(versions, EnumSet.of(Status.ACTIVE, Status.EXPIRED));
        if (current != null && !current.readableBy(caller.agent())) {
            return Outcome.rejected(p, "the current value of " + p.key() + " belongs to another agent");
        }
        if (p.expectedVersion() != null) {
            long actual = current == null ? 0 : current.version();
            if (actual != p.expectedVersion()) {
                throw new StaleVersionException(p.key() + " in " + p.scope() + " is at version " + actual
                        + (actual == 0 ? " (no current value)" : "") + ", not the expected version "
                        + p.expectedVersion() + (p.expectedVersion() == 0 ? " (absent)" : "") + "; nothing was written");
            }
        }
        if (p.op() == Proposal.Op.INVALIDATE) {
            List<String> ids = new ArrayList<>();
            MemoryRecord ended = current;
            for (MemoryRecord r : versions) {
                if (r.status() == Status.ACTIVE || r.status() == Status.CONFLICT || r.status() == Status.EXPIRED) {
                    ids.add(r.id());
                    if (current == null) {
                        ended = r; // only conflict candidates: the newest of them
                    }
                }
            }
            if (ended == null) {
                return Outcome.rejected(p, "nothing to invalidate at " + p.key());
            }
            changes.add(new Change.RecordsForgotten(ids, false, p.reason(), false, p.sourceRef()));
            // the version it ended, as the state holds it from now on (its tombstone)
            return new Outcome(p, Outcome.Result.APPLIED, ended.tombstone(), p.reason());
        }
        MemoryValue value = Objects.requireNonNull(p.value());
        if (p.op() == Proposal.Op.APPEND) {
            if (current != null && current.value() != null && !current.value().node().isArray()) {
                return Outcome.rejected(p, "cannot append to " + p.key() + ": its value is not a list");
            }
            value = appended(current, value, p.key());
            if (value.sizeInBytes() > config.maxValueBytes()) {
                return Outcome.rejected(p, "the list at " + p.key() + " would exceed " + config.maxValueBytes() + " bytes");
            }
        }
        Instant observedAt = p.observedAt() != null ? p.observedAt() : now;
        if (current != null && current.status() == Status.ACTIVE && value.equals(current.value())
                && current.kind() == p.kind() && current.source() == p.source() && current.trust() == p.trust()
                && Objects.equals(current.validFrom(), p.validFrom()) && Objects.equals(current.validTo(), p.validTo())) {
            return Outcome.applied(p, current);
        }
        Optional<String> full = makeRoom(state, changes);
        if (full.isPresent()) {
            return Outcome.rejected(p, full.get());
        }
        Status status = Status.ACTIVE;
        String reason = null;
        List<String> superseded = new ArrayList<>();
        if (current != null) {
            ConflictPolicy.Decision d = ConflictPolicy.decide(p, observedAt, current);
            if (d.verdict() == ConflictPolicy.Verdict.CONFLICT) {
                if (config.strictConflicts()) {
                    return Outcome.rejected(p, "conflict (strict mode): " + d.reason());
                }
                status = Status.CONFLICT;
                reason = d.reason();
            } else {
                for (MemoryRecord r : versions) {
                    if (r.status() == Status.ACTIVE || r.status() == Status.CONFLICT || r.status() == Status.EXPIRED) {
                        superseded.add(r.id());
                    }
                }
            }
        }
        long version = versions.isEmpty() ? 1 : versions.get(versions.size() - 1).version() + 1;
        Duration ttl = p.ttl() != null ? p.ttl() : config.ttlByKind().get(p.kind());
        Instant expiresAt;
        try {
            expiresAt = ttl == null ? null : observedAt.plus(ttl);
        } catch (ArithmeticException | java.time.DateTimeException e) {
            return Outcome.rejected(p, "ttl " + ttl + " from " + observedAt + " lies beyond the representable time range");
        }
        boolean sensitive = p.sensitive() || config.sensitiveKinds().contains(p.kind())
                || (config.sensitiveKeys() != null && config.sensitiveKeys().matcher(p.key().path()).matches());
        // the record's event comes after the changes already decided for it (a forget that made room)
        long seq = state.lastSeq() + changes.size() + 1;
        MemoryRecord record = new MemoryRecord(UUID.randomUUID().toString(), p.scope(), p.key(), value, p.kind(),
                p.source(), p.sourceRef(), p.trust(), p.confidence(), observedAt, p.validFrom(), p.validTo(),
                expiresAt, status, version,
                status == Status.ACTIVE && current != null ? current.id() : null,
                status == Status.CONFLICT && current != null ? current.id() : null,
                p.access(), p.ownerAgent() != null ? p.ownerAgent() : caller.agent(), caller.agent(), p.tags(),
                p.extraction(), p.source() == Source.MODEL ? Verification.CANDIDATE : Verification.NONE, null,
                sensitive, false, now, seq);
        changes.add(new Change.RecordWritten(record, superseded));
        return status == Status.ACTIVE ? Outcome.applied(p, record) : Outcome.conflict(p, record,
                Objects.requireNonNull(reason, "a conflict has the policy's reason"));
    }

    /** Makes room at the record limit (when configured to), or says why the write cannot be made. */
    private Optional<String> makeRoom(PartitionState state, List<Change> changes) {
        if (state.liveRecords() < config.maxRecordsPerUser()) {
            return Optional.empty();
        }
        if (config.forgetOldestAtLimit()) {
            for (MemoryRecord r : state.records()) {
                if (r.status() != Status.FORGOTTEN && r.scope().layer() == Layer.PERSISTENT
                        && (r.kind() == Kind.OBSERVATION || r.kind() == Kind.INFERENCE)) {
                    changes.add(new Change.RecordsForgotten(List.of(r.id()), false, "record limit reached"));
                    return Optional.empty();
                }
            }
        }
        return Optional.of("the user has reached the limit of " + config.maxRecordsPerUser() + " records");
    }

    private static MemoryValue appended(@Nullable MemoryRecord current, MemoryValue element, MemoryKey key) {
        ArrayNode list;
        if (current == null || current.value() == null) {
            list = JsonNodeFactory.instance.arrayNode();
        } else {
            JsonNode node = current.value().node();
            if (!node.isArray()) {
                throw new MemoryException.InvalidProposal("cannot append to " + key + ": its value is not a list");
            }
            list = (ArrayNode) node;
        }
        list.add(element.node());
        return new MemoryValue(list.toString());
    }

    /** The latest version in one of these statuses that was not refuted (a refuted write never became the value). */
    static @Nullable MemoryRecord latest(List<MemoryRecord> versions, Set<Status> statuses) {
        for (int i = versions.size() - 1; i >= 0; i--) {
            if (statuses.contains(versions.get(i).status()) && versions.get(i).verification() != Verification.REFUTED) {
                return versions.get(i);
            }
        }
        return null;
    }
}

package dev.agentmemory.core;

import dev.agentmemory.core.audit.Analysis;
import dev.agentmemory.core.audit.AuditReport;
import dev.agentmemory.core.audit.ScopeDiff;
import dev.agentmemory.core.event.Change;
import dev.agentmemory.core.event.LoggedEvent;
import dev.agentmemory.core.event.MemoryState;
import dev.agentmemory.core.event.StoredMessage;
import dev.agentmemory.core.event.TaskStatus;
import dev.agentmemory.core.internal.EventCodec;
import dev.agentmemory.core.internal.JsonMessageRedactor;
import dev.agentmemory.core.ledger.ActionRecord;
import dev.agentmemory.core.ledger.ActionStart;
import dev.agentmemory.core.policy.ConflictPolicy;
import dev.agentmemory.core.policy.KindRules;
import dev.agentmemory.core.spi.DerivedData;
import dev.agentmemory.core.spi.EventListener;
import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.core.spi.ForgetRequest;
import dev.agentmemory.core.spi.MessageRedactor;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.core.spi.StatedValues;
import dev.agentmemory.core.spi.StoredEvent;
import dev.agentmemory.core.spi.Verifier;
import dev.agentmemory.core.store.InMemoryEventStore;
import dev.agentmemory.core.store.jdbc.JdbcEventStore;
import dev.agentmemory.core.store.jdbc.JdbcSettings;
import org.jspecify.annotations.Nullable;

import javax.crypto.SecretKey;
import javax.crypto.spec.SecretKeySpec;
import javax.sql.DataSource;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * The front door of memory-core. Every call names a {@link Caller} (tenant, user, agent) and
 * never reads or changes anything outside that tenant and user.
 *
 * <p>Every change is an event appended to the user's log in the {@link EventStore}; the state
 * the engine serves is the replay of that log ({@link #audit} checks it). Writes are
 * {@link Proposal}s that the engine validates (scope, permission, kind rules, conflicts) and
 * applies or rejects with a reason. Reads are version-aware: superseded versions are never
 * current, expired ones are reported for re-verification, conflicts are surfaced.
 *
 * <p>Thread-safe. Calls for one user are serialized; calls for different users run in parallel.
 * All time comes from the builder's {@link Clock}.
 */
public final class MemoryEngine implements AutoCloseable {

    private static final String FORGOTTEN_TEXT = "[forgotten]";
    private static final System.Logger LOG = System.getLogger(MemoryEngine.class.getName());

    private final EventStore store;
    private final Clock clock;
    private final EventCodec codec;
    private final boolean strictConflicts;
    private final int maxValueBytes;
    private final int maxMessageChars;
    private final int maxRecordsPerUser;
    private final AtLimit atLimit;
    private final Map<Kind, Duration> ttlByKind;
    private final Set<Kind> sensitiveKinds;
    private final @Nullable Pattern sensitiveKeys;
    private final List<Verifier> verifiers;
    private final List<DerivedData> derived = new CopyOnWriteArrayList<>();
    private final List<EventListener> listeners = new CopyOnWriteArrayList<>();
    private final List<MessageRedactor> redactors = new CopyOnWriteArrayList<>();
    private static final MessageRedactor GENERIC_REDACTOR = new JsonMessageRedactor();
    private final Map<Partition, Handle> partitions = new ConcurrentHashMap<>();

    /** What happens when a user reaches the record limit. */
    public enum AtLimit {
        /** Reject the new write with a reason. */
        REJECT,
        /** Soft-forget the user's oldest persistent observation or inference to make room, else reject. */
        FORGET_OLDEST
    }

    private static final class Handle {
        final ReentrantLock lock = new ReentrantLock();
        MemoryState state;

        Handle(MemoryState state) {
            this.state = state;
        }
    }

    private MemoryEngine(Builder b) {
        this.store = b.store != null ? b.store : new InMemoryEventStore();
        this.clock = b.clock;
        this.codec = new EventCodec(b.encryptionKey);
        this.strictConflicts = b.strictConflicts;
        this.maxValueBytes = b.maxValueBytes;
        this.maxMessageChars = b.maxMessageChars;
        this.maxRecordsPerUser = b.maxRecordsPerUser;
        this.atLimit = b.atLimit;
        this.ttlByKind = Map.copyOf(b.ttlByKind);
        this.sensitiveKinds = Set.copyOf(b.sensitiveKinds);
        this.sensitiveKeys = b.sensitiveKeys;
        this.verifiers = List.copyOf(b.verifiers);
        this.derived.addAll(b.derived);
        this.listeners.addAll(b.listeners);
        this.redactors.addAll(b.redactors);
    }

    /** A builder with the defaults: in-memory store, system UTC clock, no TTLs, lenient conflicts. */
    public static Builder builder() {
        return new Builder();
    }

    /** The engine's clock. */
    public Clock clock() {
        return clock;
    }

    /** Registers derived data that must forget what the engine forgets. */
    public void register(DerivedData data) {
        derived.add(Objects.requireNonNull(data, "data"));
    }

    /** The names of the registered derived data, in registration order (a name once per registration). */
    public List<String> derivedDataNames() {
        List<String> names = new ArrayList<>(derived.size());
        for (DerivedData d : derived) {
            names.add(d.name());
        }
        return List.copyOf(names);
    }

    /** Removes derived data registered with {@link #register}; false when it was not registered. */
    public boolean unregister(DerivedData data) {
        return derived.remove(Objects.requireNonNull(data, "data"));
    }

    /** Removes a listener added with {@link #addListener}; false when it was not added. */
    public boolean removeListener(EventListener listener) {
        return listeners.remove(Objects.requireNonNull(listener, "listener"));
    }

    /** Removes a redactor added with {@link #addRedactor}; false when it was not added. */
    public boolean removeRedactor(MessageRedactor redactor) {
        return redactors.remove(Objects.requireNonNull(redactor, "redactor"));
    }

    /** The longest serialized message, in characters, a session's window accepts ({@link Builder#maxMessageChars}). */
    public int maxMessageChars() {
        return maxMessageChars;
    }

    /** Registers a listener told about every committed event. */
    public void addListener(EventListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    /**
     * Registers a redactor for messages in a format it knows, tried (in registration order)
     * before the engine's generic JSON redaction when a forget redacts messages that state a
     * forgotten value (see {@link #forget}).
     */
    public void addRedactor(MessageRedactor redactor) {
        redactors.add(Objects.requireNonNull(redactor, "redactor"));
    }

    // ------------------------------------------------------------------ writes

    /**
     * Validates and applies proposals, in order, as one atomic append: either every accepted
     * proposal is logged or none is. Each proposal gets an outcome (applied, conflict, rejected
     * with a reason). A proposal naming another tenant or user fails the whole call with
     * {@link AccessDeniedException}; an oversized value with {@link IllegalArgumentException};
     * nothing is written then.
     */
    public List<Outcome> propose(Caller caller, List<Proposal> proposals) {
        Objects.requireNonNull(caller, "caller");
        Objects.requireNonNull(proposals, "proposals");
        for (Proposal p : proposals) {
            Objects.requireNonNull(p, "proposal");
            checkScope(caller, p.scope());
            if (p.value() != null && p.value().sizeInBytes() > maxValueBytes) {
                throw new IllegalArgumentException("value of " + p.key() + " is " + p.value().sizeInBytes()
                        + " bytes, over the limit of " + maxValueBytes);
            }
        }
        return write(caller, (state, tx) -> {
            List<Outcome> outcomes = new ArrayList<>();
            for (Proposal p : proposals) {
                outcomes.add(decide(caller, state, tx, p));
            }
            return outcomes;
        });
    }

    /** Proposes one operation. */
    public Outcome propose(Caller caller, Proposal proposal) {
        return propose(caller, List.of(Objects.requireNonNull(proposal, "proposal"))).get(0);
    }

    /**
     * Writes one proposal and returns the record, or throws: {@link InvalidProposalException}
     * when a rule rejects it, {@link ConflictException} when it conflicts with the current value.
     */
    public MemoryRecord write(Caller caller, Proposal proposal) {
        Outcome o = propose(caller, proposal);
        return switch (o.result()) {
            case APPLIED -> Objects.requireNonNull(o.record());
            case CONFLICT -> throw new ConflictException(proposal.key() + ": " + o.reason());
            case REJECTED -> throw new InvalidProposalException(proposal.key() + ": " + o.reason());
        };
    }

    private Outcome decide(Caller caller, MemoryState state, Tx tx, Proposal p) {
        Optional<String> violation = KindRules.violation(p);
        if (violation.isPresent()) {
            return Outcome.rejected(p, violation.get());
        }
        if (p.scope().layer() == Layer.TASK) {
            TaskInfo task = findTask(state, p.scope().session(), p.scope().task());
            if (task == null) {
                return Outcome.rejected(p, "task " + p.scope().task() + " was never started in session " + p.scope().session());
            }
            if (task.status() == TaskStatus.ENDED) {
                return Outcome.rejected(p, "task " + p.scope().task() + " has ended; its state is archived");
            }
        }
        List<MemoryRecord> versions = state.versions(p.scope(), p.key());
        MemoryRecord current = latest(versions, EnumSet.of(Status.ACTIVE, Status.EXPIRED));
        if (current != null && !current.readableBy(caller.agent())) {
            return Outcome.rejected(p, "the current value of " + p.key() + " belongs to another agent");
        }
        if (p.op() == Proposal.Op.INVALIDATE) {
            List<String> ids = new ArrayList<>();
            for (MemoryRecord r : versions) {
                if (r.status() == Status.ACTIVE || r.status() == Status.CONFLICT || r.status() == Status.EXPIRED) {
                    ids.add(r.id());
                }
            }
            if (ids.isEmpty()) {
                return Outcome.rejected(p, "nothing to invalidate at " + p.key());
            }
            tx.add(state, new Change.RecordsForgotten(ids, false, p.reason()));
            return new Outcome(p, Outcome.Result.APPLIED, null, p.reason());
        }
        MemoryValue value = Objects.requireNonNull(p.value());
        if (p.op() == Proposal.Op.APPEND) {
            if (current != null && current.value() != null && !current.value().node().isArray()) {
                return Outcome.rejected(p, "cannot append to " + p.key() + ": its value is not a list");
            }
            value = appended(current, value, p.key());
            if (value.sizeInBytes() > maxValueBytes) {
                return Outcome.rejected(p, "the list at " + p.key() + " would exceed " + maxValueBytes + " bytes");
            }
        }
        Instant now = clock.instant();
        Instant observedAt = p.observedAt() != null ? p.observedAt() : now;
        if (current != null && current.status() == Status.ACTIVE && value.equals(current.value())
                && current.kind() == p.kind() && current.source() == p.source() && current.trust() == p.trust()
                && Objects.equals(current.validFrom(), p.validFrom()) && Objects.equals(current.validTo(), p.validTo())) {
            return Outcome.applied(p, current);
        }
        Optional<String> full = makeRoom(state, tx, p);
        if (full.isPresent()) {
            return Outcome.rejected(p, full.get());
        }
        Status status = Status.ACTIVE;
        String reason = null;
        List<String> superseded = new ArrayList<>();
        if (current != null) {
            ConflictPolicy.Decision d = ConflictPolicy.decide(p, observedAt, current);
            if (d.verdict() == ConflictPolicy.Verdict.CONFLICT) {
                if (strictConflicts) {
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
        Duration ttl = p.ttl() != null ? p.ttl() : ttlByKind.get(p.kind());
        Instant expiresAt;
        try {
            expiresAt = ttl == null ? null : observedAt.plus(ttl);
        } catch (ArithmeticException | java.time.DateTimeException e) {
            return Outcome.rejected(p, "ttl " + ttl + " from " + observedAt + " lies beyond the representable time range");
        }
        boolean sensitive = p.sensitive() || sensitiveKinds.contains(p.kind())
                || (sensitiveKeys != null && sensitiveKeys.matcher(p.key().path()).matches());
        MemoryRecord record = new MemoryRecord(UUID.randomUUID().toString(), p.scope(), p.key(), value, p.kind(),
                p.source(), p.sourceRef(), p.trust(), p.confidence(), observedAt, p.validFrom(), p.validTo(),
                expiresAt, status, version,
                status == Status.ACTIVE && current != null ? current.id() : null,
                status == Status.CONFLICT && current != null ? current.id() : null,
                p.access(), p.ownerAgent() != null ? p.ownerAgent() : caller.agent(), caller.agent(), p.tags(),
                p.extraction(), p.source() == Source.MODEL ? Verification.CANDIDATE : Verification.NONE, null,
                sensitive, false, now, state.lastSeq() + 1);
        tx.add(state, new Change.RecordWritten(record, superseded));
        return status == Status.ACTIVE ? Outcome.applied(p, record) : Outcome.conflict(p, record, reason);
    }

    private Optional<String> makeRoom(MemoryState state, Tx tx, Proposal p) {
        if (state.liveRecords() < maxRecordsPerUser) {
            return Optional.empty();
        }
        if (atLimit == AtLimit.FORGET_OLDEST) {
            for (MemoryRecord r : state.records()) {
                if (r.status() != Status.FORGOTTEN && r.scope().layer() == Layer.PERSISTENT
                        && (r.kind() == Kind.OBSERVATION || r.kind() == Kind.INFERENCE)) {
                    tx.add(state, new Change.RecordsForgotten(List.of(r.id()), false, "record limit reached"));
                    return Optional.empty();
                }
            }
        }
        return Optional.of("the user has reached the limit of " + maxRecordsPerUser + " records");
    }

    private static MemoryValue appended(@Nullable MemoryRecord current, MemoryValue element, MemoryKey key) {
        com.fasterxml.jackson.databind.node.ArrayNode list;
        if (current == null || current.value() == null) {
            list = MemoryValue.MAPPER.createArrayNode();
        } else {
            com.fasterxml.jackson.databind.JsonNode node = current.value().node();
            if (!node.isArray()) {
                throw new InvalidProposalException("cannot append to " + key + ": its value is not a list");
            }
            list = (com.fasterxml.jackson.databind.node.ArrayNode) node;
        }
        list.add(element.node());
        return new MemoryValue(list.toString());
    }

    // ------------------------------------------------------------------ reads

    /** The servable current version of a key. */
    public Optional<MemoryRecord> current(Caller caller, Scope scope, MemoryKey key) {
        return keyState(caller, scope, key, ReadOptions.DEFAULT).currentRecord();
    }

    /** The current version, conflicts and expiry of one key. */
    public KeyState keyState(Caller caller, Scope scope, MemoryKey key, ReadOptions options) {
        checkScope(caller, scope);
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(options, "options");
        return read(caller, s -> keyStateOf(caller, s, scope, key, options, clock.instant()));
    }

    /** Every key of a scope as a read sees it. An ended task's scope reads empty unless archived state is asked for. */
    public ScopeView view(Caller caller, Scope scope, ReadOptions options) {
        checkScope(caller, scope);
        Objects.requireNonNull(options, "options");
        return read(caller, s -> viewOf(caller, s, scope, options, clock.instant()));
    }

    /** {@link #view} with default options. */
    public ScopeView view(Caller caller, Scope scope) {
        return view(caller, scope, ReadOptions.DEFAULT);
    }

    /** One record by id, if it belongs to the caller's user and the caller's agent may read it. */
    public Optional<MemoryRecord> record(Caller caller, String id) {
        Objects.requireNonNull(id, "id");
        return read(caller, s -> Optional.ofNullable(s.record(id)).filter(r -> r.readableBy(caller.agent())));
    }

    /** Every version of a key, oldest first, including superseded versions and tombstones. */
    public List<MemoryRecord> history(Caller caller, Scope scope, MemoryKey key) {
        checkScope(caller, scope);
        return read(caller, s -> s.versions(scope, key).stream().filter(r -> r.readableBy(caller.agent())).toList());
    }

    /**
     * The version of a key that applies at {@code date} by its validity interval: the newest
     * version (current or superseded, not forgotten, conflicting or refuted) whose interval
     * contains the date.
     */
    public Optional<MemoryRecord> applicableAt(Caller caller, Scope scope, MemoryKey key, Instant date) {
        checkScope(caller, scope);
        Objects.requireNonNull(date, "date");
        return read(caller, s -> {
            List<MemoryRecord> versions = s.versions(scope, key);
            for (int i = versions.size() - 1; i >= 0; i--) {
                MemoryRecord r = versions.get(i);
                if ((r.status() == Status.ACTIVE || r.status() == Status.SUPERSEDED || r.status() == Status.EXPIRED)
                        && r.verification() != Verification.REFUTED && r.readableBy(caller.agent()) && r.appliesAt(date)) {
                    return Optional.of(r);
                }
            }
            return Optional.empty();
        });
    }

    /** The scope as it was at {@code time}: the log replayed up to that time, read with that time as now. */
    public ScopeView asOf(Caller caller, Scope scope, Instant time) {
        checkScope(caller, scope);
        Objects.requireNonNull(time, "time");
        List<LoggedEvent> all = log(caller);
        List<LoggedEvent> events = new ArrayList<>();
        for (LoggedEvent e : all) {
            if (!e.at().isAfter(time)) {
                events.add(e);
            }
        }
        return viewOf(caller, replayWithoutErased(events, all), scope, ReadOptions.DEFAULT, time);
    }

    /** The scope as it was right after log sequence {@code seq}. */
    public ScopeView asOfSequence(Caller caller, Scope scope, long seq) {
        checkScope(caller, scope);
        if (seq < 0) {
            throw new IllegalArgumentException("seq must be >= 0: " + seq);
        }
        List<LoggedEvent> all = log(caller);
        List<LoggedEvent> events = new ArrayList<>();
        Instant at = Instant.EPOCH;
        for (LoggedEvent e : all) {
            if (e.seq() <= seq) {
                events.add(e);
                at = e.at();
            }
        }
        return viewOf(caller, replayWithoutErased(events, all), scope, ReadOptions.DEFAULT, at);
    }

    /**
     * Replays a prefix of the log with the values the user later asked to forget already gone:
     * a forgotten value stays out of reads of the past too (its tombstone keeps key and version).
     */
    private static MemoryState replayWithoutErased(List<LoggedEvent> prefix, List<LoggedEvent> all) {
        Set<String> erased = new HashSet<>();
        for (LoggedEvent e : all) {
            if (e.change() instanceof Change.RecordsForgotten f && f.erased()) {
                erased.addAll(f.ids());
            }
        }
        if (erased.isEmpty()) {
            return MemoryState.replay(prefix);
        }
        List<LoggedEvent> cleaned = new ArrayList<>(prefix.size());
        for (LoggedEvent e : prefix) {
            if (e.change() instanceof Change.RecordWritten w && erased.contains(w.record().id())
                    && w.record().value() != null) {
                cleaned.add(new LoggedEvent(e.seq(), e.at(), e.actor(), e.traceId(),
                        new Change.RecordWritten(w.record().tombstone(), w.superseded())));
            } else {
                cleaned.add(e);
            }
        }
        return MemoryState.replay(cleaned);
    }

    /**
     * Every record of the caller's user that a read may serve: current versions and open
     * conflicts, in every scope that is active (for the task layer only the sessions' active
     * tasks: suspended and ended tasks and archived records are left out).
     * Used by retrieval; each entry is a key's state.
     */
    public List<KeyState> servable(Caller caller, Layer layer) {
        Objects.requireNonNull(layer, "layer");
        return read(caller, s -> {
            List<KeyState> out = new ArrayList<>();
            Instant now = clock.instant();
            for (Scope scope : servableScopes(s, layer)) {
                out.addAll(viewOf(caller, s, scope, ReadOptions.DEFAULT, now).keys());
            }
            return out;
        });
    }

    /**
     * A number that moves whenever what {@link #servable} returns for this user may have changed
     * other than by the passage of time (a record expiring): any record, task or alias event, a
     * forget, or a reload from the store. Messages and action-ledger steps leave it alone. For
     * caching what is derived from the servable records; compare for equality only.
     */
    public long recordsRevision(Caller caller) {
        return read(caller, MemoryState::recordsRevision);
    }

    /**
     * The same key states as {@link #servable(Caller, Layer)}, scope by scope, but each scope's
     * keys in the order they were first written rather than sorted: for callers that rank the
     * keys themselves and do not want to pay for the sort.
     */
    public List<KeyState> servableUnordered(Caller caller, Layer layer) {
        Objects.requireNonNull(layer, "layer");
        return read(caller, s -> {
            List<KeyState> out = new ArrayList<>();
            Instant now = clock.instant();
            for (Scope scope : servableScopes(s, layer)) {
                for (MemoryKey key : s.keys(scope).keySet()) {
                    KeyState k = keyStateOf(caller, s, scope, key, ReadOptions.DEFAULT, now);
                    if (!k.isEmpty()) {
                        out.add(k);
                    }
                }
            }
            return out;
        });
    }

    /** The user's scopes of {@code layer} that reads serve: for tasks, only active ones. */
    private List<Scope> servableScopes(MemoryState s, Layer layer) {
        List<Scope> out = new ArrayList<>();
        for (Scope scope : s.scopes()) {
            if (scope.layer() == layer && (layer != Layer.TASK || isActive(s, scope))) {
                out.add(scope);
            }
        }
        return out;
    }

    private static boolean isActive(MemoryState s, Scope scope) {
        TaskInfo t = findTask(s, scope.session(), scope.task());
        return t != null && t.status() == TaskStatus.ACTIVE;
    }

    private static boolean isEnded(MemoryState s, Scope scope) {
        TaskInfo t = findTask(s, scope.session(), scope.task());
        return t != null && t.status() == TaskStatus.ENDED;
    }

    private ScopeView viewOf(Caller caller, MemoryState s, Scope scope, ReadOptions options, Instant now) {
        List<KeyState> keys = new ArrayList<>();
        if (scope.layer() == Layer.TASK && !options.includeArchived() && isEnded(s, scope)) {
            return new ScopeView(scope, keys, s.lastSeq());
        }
        for (MemoryKey key : new TreeMap<>(s.keys(scope)).keySet()) {
            KeyState k = keyStateOf(caller, s, scope, key, options, now);
            if (!k.isEmpty()) {
                keys.add(k);
            }
        }
        return new ScopeView(scope, keys, s.lastSeq());
    }

    private static KeyState keyStateOf(Caller caller, MemoryState s, Scope scope, MemoryKey key, ReadOptions options,
                                       Instant now) {
        MemoryRecord current = null;
        MemoryRecord expired = null;
        List<MemoryRecord> conflicts = new ArrayList<>();
        for (MemoryRecord r : s.versions(scope, key)) {
            if (!r.readableBy(caller.agent()) || (r.archived() && !options.includeArchived())
                    || r.verification() == Verification.REFUTED
                    || (options.verifiedOnly() && !r.verification().countsAsVerified(r.trust()))) {
                continue;
            }
            if (r.status() == Status.ACTIVE || r.status() == Status.EXPIRED) {
                if (r.isExpiredAt(now)) {
                    expired = r;
                    current = null;
                } else {
                    current = r;
                    expired = null;
                }
            } else if (r.status() == Status.CONFLICT) {
                conflicts.add(r);
            }
        }
        return new KeyState(scope, key, current, conflicts, expired);
    }

    // ------------------------------------------------------------------ tasks

    /**
     * Starts a task in a session; the session's active task (if any) is suspended first. The
     * task's state lives in this session's task scope, wherever the task is held later.
     */
    public TaskInfo startTask(Caller caller, String session, String task, @Nullable String title) {
        Objects.requireNonNull(caller, "caller");
        Scope scope = Scope.task(caller.tenant(), caller.user(), session, task);
        return write(caller, (s, tx) -> {
            TaskInfo existing = heldTask(s, session, task);
            if (existing == null) {
                existing = s.task(session, task);
            }
            if (existing != null) {
                throw new IllegalStateException("task " + task + " already exists in session " + session
                        + " (" + existing.status().name().toLowerCase(Locale.ROOT) + "); resume it instead");
            }
            suspendActive(s, tx, session, task);
            tx.add(s, new Change.TaskChanged(scope.session(), task, TaskStatus.ACTIVE, title));
            return s.task(session, task);
        });
    }

    /** Suspends a task the session holds: its state stays intact, out of the active view, until resumed. */
    public TaskInfo suspendTask(Caller caller, String session, String task) {
        return changeTask(caller, session, task, TaskStatus.SUSPENDED, EnumSet.of(TaskStatus.ACTIVE));
    }

    /**
     * Resumes a task with its state exactly as it was; the session's active task is suspended.
     * The task is one this session holds, or else the one open (active or suspended) task of that
     * id in another session of the same user, which then moves here: this session holds it from
     * now on and the other no longer does. When several other sessions have an open task of that
     * id, fails naming them; use {@link #resumeTask(Caller, String, String, String)}.
     */
    public TaskInfo resumeTask(Caller caller, String session, String task) {
        return resumeTask(caller, session, null, task);
    }

    /**
     * Resumes the task {@code task} started in session {@code startedIn} (null: find it as
     * {@link #resumeTask(Caller, String, String)} does) and makes {@code session} hold it.
     */
    public TaskInfo resumeTask(Caller caller, String session, @Nullable String startedIn, String task) {
        Objects.requireNonNull(caller, "caller");
        Ids.check(session, "session");
        Ids.check(task, "task");
        if (startedIn != null) {
            Ids.check(startedIn, "session");
        }
        return write(caller, (s, tx) -> {
            TaskInfo t = startedIn != null ? s.task(startedIn, task) : heldTask(s, session, task);
            if (t == null && startedIn == null) {
                t = openElsewhere(s, session, task);
            }
            if (t == null) {
                throw new IllegalStateException("no task " + task + (startedIn != null ? " started in session "
                        + startedIn : " in session " + session + " or another session of this user"));
            }
            if (t.status() == TaskStatus.ENDED) {
                throw new IllegalStateException("task " + task + " is ended; cannot make it active");
            }
            if (t.status() == TaskStatus.ACTIVE && t.heldBy().equals(session)) {
                return t;
            }
            suspendActive(s, tx, session, task);
            if (!t.heldBy().equals(session)) {
                tx.add(s, new Change.TaskMoved(t.session(), task, session));
            }
            tx.add(s, new Change.TaskChanged(t.session(), task, TaskStatus.ACTIVE, null));
            return s.task(t.session(), task);
        });
    }

    /** Ends a task the session holds: its state is archived out of the active view. */
    public TaskInfo endTask(Caller caller, String session, String task) {
        return changeTask(caller, session, task, TaskStatus.ENDED, EnumSet.of(TaskStatus.ACTIVE, TaskStatus.SUSPENDED));
    }

    private TaskInfo changeTask(Caller caller, String session, String task, TaskStatus to, Set<TaskStatus> from) {
        Objects.requireNonNull(caller, "caller");
        Scope.task(caller.tenant(), caller.user(), session, task);
        return write(caller, (s, tx) -> {
            TaskInfo t = heldTask(s, session, task);
            if (t == null) {
                TaskInfo away = s.task(session, task);
                throw new IllegalStateException("no task " + task + " in session " + session
                        + (away != null ? " (it moved to session " + away.heldBy() + ")" : ""));
            }
            if (!from.contains(t.status())) {
                throw new IllegalStateException("task " + task + " is " + t.status().name().toLowerCase(Locale.ROOT)
                        + "; cannot make it " + to.name().toLowerCase(Locale.ROOT));
            }
            if (t.status() == to) {
                return t;
            }
            tx.add(s, new Change.TaskChanged(t.session(), task, to, null));
            return s.task(t.session(), task);
        });
    }

    private static void suspendActive(MemoryState s, Tx tx, String session, String except) {
        for (TaskInfo t : s.tasksHeldBy(session)) {
            if (t.status() == TaskStatus.ACTIVE && !t.task().equals(except)) {
                tx.add(s, new Change.TaskChanged(t.session(), t.task(), TaskStatus.SUSPENDED, null));
            }
        }
    }

    /** The task a session holds under {@code task}, if any. */
    private static @Nullable TaskInfo heldTask(MemoryState s, String session, String task) {
        for (TaskInfo t : s.tasksHeldBy(session)) {
            if (t.task().equals(task)) {
                return t;
            }
        }
        return null;
    }

    /** The one open task of that id held by another session; fails when there are several. */
    private static @Nullable TaskInfo openElsewhere(MemoryState s, String session, String task) {
        List<TaskInfo> open = new ArrayList<>();
        for (TaskInfo t : s.allTasks()) {
            if (t.task().equals(task) && t.status() != TaskStatus.ENDED && !t.heldBy().equals(session)) {
                open.add(t);
            }
        }
        if (open.size() > 1) {
            throw new IllegalStateException("task " + task + " is open in sessions "
                    + open.stream().map(TaskInfo::heldBy).sorted().toList() + "; name the session it was started in");
        }
        return open.isEmpty() ? null : open.get(0);
    }

    /** The session's active task (held by it; its state lives in the scope of the session that started it). */
    public Optional<TaskInfo> activeTask(Caller caller, String session) {
        Ids.check(session, "session");
        return read(caller, s -> s.tasksHeldBy(session).stream().filter(t -> t.status() == TaskStatus.ACTIVE).findFirst());
    }

    /** Every task a session holds: started there and not moved away, or moved to it. */
    public List<TaskInfo> tasks(Caller caller, String session) {
        Ids.check(session, "session");
        return read(caller, s -> List.copyOf(s.tasksHeldBy(session)));
    }

    /**
     * Every task of the caller's user, in every session, ended ones included: for offering a
     * suspended task of an earlier conversation to resume. Never another user's.
     */
    public List<TaskInfo> userTasks(Caller caller) {
        return read(caller, s -> List.copyOf(s.allTasks()));
    }

    /** The task whose scope {@code scope} is (started in its session under its task id). */
    private static @Nullable TaskInfo findTask(MemoryState s, @Nullable String session, @Nullable String task) {
        if (session == null || task == null) {
            return null;
        }
        return s.task(session, task);
    }

    // ------------------------------------------------------------------ messages

    /** The messages in a session's window, in window order. */
    public List<StoredMessage> window(Caller caller, String session) {
        Ids.check(session, "session");
        return read(caller, s -> s.window(session));
    }

    /** A session's whole history by index, including messages out of the window and tombstones. */
    public NavigableMap<Long, StoredMessage> messageHistory(Caller caller, String session) {
        Ids.check(session, "session");
        return read(caller, s -> new TreeMap<>(s.history(session)));
    }

    /**
     * Changes a session's window in one atomic append: {@code evicted} indices leave the window
     * (they stay in the history), then {@code appended} messages join it. {@code compute} sees
     * the current window and returns the change, so the decision and the write happen under the
     * user's lock.
     */
    public WindowChange changeWindow(Caller caller, String session, Function<List<StoredMessage>, WindowChange> compute) {
        Objects.requireNonNull(compute, "compute");
        return changeWindowIndexed(caller, session, (window, next) -> compute.apply(window));
    }

    /**
     * As {@link #changeWindow(Caller, String, Function)}, with the index the first appended
     * message must have (one past the last of the history, under the same lock), so that writers
     * that do not share a cache never disagree about it.
     */
    public WindowChange changeWindowIndexed(Caller caller, String session,
                                            BiFunction<List<StoredMessage>, Long, WindowChange> compute) {
        Ids.check(session, "session");
        Objects.requireNonNull(compute, "compute");
        return write(caller, (s, tx) -> {
            long first = s.history(session).isEmpty() ? 0 : s.history(session).lastKey() + 1;
            WindowChange change = Objects.requireNonNull(compute.apply(s.window(session), first), "window change");
            if (!change.evicted().isEmpty()) {
                tx.add(s, new Change.MessagesEvicted(session, change.evicted()));
            }
            if (!change.appended().isEmpty()) {
                long next = s.history(session).isEmpty() ? 0 : s.history(session).lastKey() + 1;
                for (StoredMessage m : change.appended()) {
                    if (m.json() != null && m.json().length() > maxMessageChars) {
                        throw new IllegalArgumentException("message " + m.index() + " of session " + session + " is "
                                + m.json().length() + " characters serialized, over the limit of " + maxMessageChars
                                + " (MemoryEngine.Builder#maxMessageChars)");
                    }
                    if (m.index() != next++) {
                        throw new IllegalArgumentException("appended message index " + m.index()
                                + " does not continue the history (expected " + (next - 1) + ")");
                    }
                }
                tx.add(s, new Change.MessagesAppended(session, change.appended()));
            }
            return change;
        });
    }

    /**
     * A change to a session's window.
     *
     * @param evicted  indices leaving the window
     * @param appended new messages, with indices continuing the history
     */
    public record WindowChange(List<Long> evicted, List<StoredMessage> appended) {
        public WindowChange {
            Objects.requireNonNull(evicted, "evicted");
            Objects.requireNonNull(appended, "appended");
            evicted.forEach(i -> Objects.requireNonNull(i, "evicted index"));
            appended.forEach(m -> Objects.requireNonNull(m, "appended message"));
            evicted = List.copyOf(evicted);
            appended = List.copyOf(appended);
        }
    }

    // ------------------------------------------------------------------ forgetting

    /**
     * Forgets what {@code target} names. Soft leaves tombstones (no value) and keeps the log's
     * history; hard also scrubs the values from the stored log. Either way every registered
     * {@link DerivedData} is told, and the receipt says what went where.
     *
     * <p>A forget of records (a key or a scope; not a whole user, whose messages all go) also
     * redacts, in every session of the user, the messages that <em>state</em> a forgotten value,
     * so that it reaches no later request through the chat history:
     * <ul>
     *   <li>the message a forgotten record names as its source ({@code sourceRef} of the form
     *       {@code message:<session>#<index>}): all of its content goes, whatever the value;</li>
     *   <li>any user, assistant or tool message with a content field (a text, a string inside
     *       tool-call arguments, a tool result) that states a forgotten value by
     *       {@link StatedValues}' rule: normalised, case-insensitive, on word boundaries; values
     *       under {@value StatedValues#MIN_CHARS} characters and booleans only through the source
     *       reference, as are {@link Kind#REFERENCE} records (pointers and derived records such as
     *       summaries). System messages are the application's and are left alone.</li>
     * </ul>
     * A redacted message keeps its index, order and type, its place in the history and in the
     * window, and (through the {@link MessageRedactor}) its tool-call ids and names: each stating
     * field becomes {@value MessageRedactor#REDACTED}. A message no redactor can rewrite is
     * forgotten instead. The log records a {@link Change.MessagesRedacted} holding only the
     * redacted forms; hard mode also rewrites the events that held the originals.
     *
     * <p>A hard forget that removed anything {@linkplain #compact() compacts} the store and the
     * derived data before it returns, so that no file they wrote still holds a removed value;
     * this costs a copy of the live data (see the README's storage section).
     */
    public ForgetReceipt forget(Caller caller, ForgetTarget target, ForgetMode mode) {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(mode, "mode");
        // A forget names no expected version: when another engine on the same store appended
        // first, the state was reloaded by the failed commit and the forget is made again on it.
        for (int attempt = 1; ; attempt++) {
            try {
                ForgetReceipt receipt = forgetOnce(caller, target, mode);
                if (mode == ForgetMode.HARD && (receipt.removedAnything() || receipt.eventsScrubbed() > 0)) {
                    try {
                        compact();
                    } catch (RuntimeException e) {
                        throw new MemoryException("forgotten, but the removed values may still be in the files: "
                                + "compaction failed (call compact() again): " + e.getMessage(), e);
                    }
                }
                return receipt;
            } catch (StaleVersionException e) {
                if (attempt >= FORGET_ATTEMPTS) {
                    throw e;
                }
            }
        }
    }

    /** How many times a forget is made against fresh state when other engines keep appending first. */
    private static final int FORGET_ATTEMPTS = 5;

    private ForgetReceipt forgetOnce(Caller caller, ForgetTarget target, ForgetMode mode) {
        if (target instanceof ForgetTarget.Key k) {
            checkScope(caller, k.scope());
        } else if (target instanceof ForgetTarget.WholeScope w) {
            checkScope(caller, w.scope());
        }
        boolean hard = mode == ForgetMode.HARD;
        Partition partition = partition(caller);
        Handle h = handle(partition);
        h.lock.lock();
        try {
            MemoryState s = h.state;
            Set<String> ids = new LinkedHashSet<>();
            List<String> keys = new ArrayList<>();
            Map<String, List<Long>> messages = new LinkedHashMap<>();
            for (MemoryRecord r : s.records()) {
                if ((r.status() != Status.FORGOTTEN || hard) && targets(target, r)) {
                    ids.add(r.id());
                    String name = r.scope() + " " + r.key();
                    if (!keys.contains(name)) {
                        keys.add(name);
                    }
                }
            }
            for (String session : s.messageSessions()) {
                List<Long> idx = new ArrayList<>();
                for (StoredMessage m : s.history(session).values()) {
                    if ((!m.forgotten() || hard) && targetsMessage(target, session, m.index())) {
                        idx.add(m.index());
                    }
                }
                if (!idx.isEmpty()) {
                    messages.put(session, idx);
                }
            }
            StatedValues values = StatedValues.of(List.of());
            Map<String, List<StoredMessage>> redacted = new LinkedHashMap<>();
            if (!ids.isEmpty() && !(target instanceof ForgetTarget.User)) {
                values = forgottenValues(partition, s, ids);
                redacted = redactions(s, ids, values, messages);
            }
            Tx tx = new Tx(caller, UUID.randomUUID().toString());
            if (!ids.isEmpty()) {
                tx.add(s, new Change.RecordsForgotten(List.copyOf(ids), hard, null, true));
            }
            messages.forEach((session, idx) -> tx.add(s, new Change.MessagesForgotten(session, idx, hard)));
            redacted.forEach((session, list) -> tx.add(s, new Change.MessagesRedacted(session, list, hard)));
            if (target instanceof ForgetTarget.User) {
                tx.add(s, new Change.UserForgotten(hard));
            }
            if (target instanceof ForgetTarget.WholeScope w && w.scope().layer() == Layer.SESSION) {
                for (TaskInfo t : List.copyOf(s.tasks(w.scope().session()))) {
                    if (t.status() != TaskStatus.ENDED) {
                        tx.add(s, new Change.TaskChanged(t.session(), t.task(), TaskStatus.ENDED, null));
                    }
                }
            }
            commit(partition, h, tx);
            int scrubbed = hard ? scrub(partition, ids, messages, redacted, values, target instanceof ForgetTarget.User) : 0;
            Map<String, List<Long>> redactedIndices = new LinkedHashMap<>();
            redacted.forEach((session, list) -> redactedIndices.put(session,
                    list.stream().map(StoredMessage::index).toList()));
            ForgetRequest request = new ForgetRequest(partition, ids, messages, target instanceof ForgetTarget.User, hard,
                    redactedIndices, values);
            Map<String, Integer> removed = new TreeMap<>();
            for (DerivedData d : derived) {
                removed.merge(d.name(), d.forget(request), Integer::sum);
            }
            int messageCount = messages.values().stream().mapToInt(List::size).sum();
            int redactedCount = redacted.values().stream().mapToInt(List::size).sum();
            return new ForgetReceipt(target, mode, List.copyOf(ids), keys, messageCount, redactedCount, scrubbed, removed);
        } finally {
            h.lock.unlock();
        }
    }

    /**
     * The values of the records about to be forgotten; for records already (softly) forgotten,
     * which a hard forget reaches again, the values still held by the log.
     */
    private StatedValues forgottenValues(Partition partition, MemoryState s, Set<String> ids) {
        List<MemoryValue> values = new ArrayList<>();
        Set<String> valueless = new HashSet<>();
        for (String id : ids) {
            MemoryRecord r = s.record(id);
            if (r != null && r.kind() == Kind.REFERENCE) {
                // a pointer or a derived record (a summary's value holds its sources' keys, ids and
                // statuses): nothing a message restates; it reaches messages only as their source
                continue;
            }
            if (r != null && r.value() != null) {
                values.add(r.value());
            } else {
                valueless.add(id);
            }
        }
        if (!valueless.isEmpty()) {
            for (StoredEvent stored : store.read(partition, 0)) {
                if (stored.type().equals("record-written")
                        && codec.decode(stored).change() instanceof Change.RecordWritten w
                        && valueless.contains(w.record().id()) && w.record().value() != null) {
                    values.add(w.record().value());
                }
            }
        }
        return StatedValues.of(values);
    }

    /**
     * The redacted forms of the messages of every session that state a forgotten value (see
     * {@link #forget}), by session. Messages no redactor can rewrite are added to {@code forgotten}.
     */
    private Map<String, List<StoredMessage>> redactions(MemoryState s, Set<String> ids, StatedValues values,
                                                        Map<String, List<Long>> forgotten) {
        Map<String, Set<Long>> sources = sourceMessages(s, ids);
        Map<String, List<StoredMessage>> out = new LinkedHashMap<>();
        for (String session : s.messageSessions()) {
            Set<Long> gone = new HashSet<>(forgotten.getOrDefault(session, List.of()));
            Set<Long> sourced = sources.getOrDefault(session, Set.of());
            List<StoredMessage> redacted = new ArrayList<>();
            List<Long> unredactable = new ArrayList<>();
            for (StoredMessage m : s.history(session).values()) {
                if (m.forgotten() || gone.contains(m.index()) || m.type().equals("SYSTEM")) {
                    continue;
                }
                boolean source = sourced.contains(m.index());
                if (!source && !values.mayBeIn(Objects.requireNonNull(m.json()))
                        && (m.text() == null || !values.statedIn(m.text()))) {
                    continue;
                }
                Optional<StoredMessage> r = redact(m, source, values);
                if (r.isEmpty()) {
                    unredactable.add(m.index());
                } else if (!Objects.equals(r.get().json(), m.json()) || !Objects.equals(r.get().text(), m.text())) {
                    StoredMessage done = r.get();
                    redacted.add(new StoredMessage(m.index(), m.order(), m.type(),
                            Objects.requireNonNull(done.json(), "redacted json"), done.text()));
                }
            }
            if (!redacted.isEmpty()) {
                out.put(session, redacted);
            }
            if (!unredactable.isEmpty()) {
                List<Long> all = new ArrayList<>(forgotten.getOrDefault(session, List.of()));
                all.addAll(unredactable);
                forgotten.put(session, all);
            }
        }
        return out;
    }

    private Optional<StoredMessage> redact(StoredMessage m, boolean source, StatedValues values) {
        for (MessageRedactor r : redactors) {
            Optional<StoredMessage> done = r.redact(m, source, values::statedIn);
            if (done.isPresent()) {
                return done;
            }
        }
        return GENERIC_REDACTOR.redact(m, source, values::statedIn);
    }

    /** The messages the records name as their source, by session. */
    private static Map<String, Set<Long>> sourceMessages(MemoryState s, Set<String> ids) {
        Map<String, Set<Long>> sources = new HashMap<>();
        for (String id : ids) {
            MemoryRecord r = s.record(id);
            if (r != null) {
                sourceMessage(r.sourceRef()).ifPresent(src -> sources.computeIfAbsent(src.getKey(), k -> new HashSet<>())
                        .add(src.getValue()));
            }
        }
        return sources;
    }

    /** The session and index a source reference {@code message:<session>#<index>} names. */
    private static Optional<Map.Entry<String, Long>> sourceMessage(@Nullable String ref) {
        if (ref == null || !ref.startsWith("message:")) {
            return Optional.empty();
        }
        int hash = ref.lastIndexOf('#');
        if (hash <= "message:".length()) {
            return Optional.empty();
        }
        try {
            return Optional.of(Map.entry(ref.substring("message:".length(), hash), Long.parseLong(ref.substring(hash + 1))));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    private static boolean targets(ForgetTarget target, MemoryRecord r) {
        if (target instanceof ForgetTarget.Key k) {
            return r.scope().equals(k.scope()) && r.key().equals(k.key());
        }
        if (target instanceof ForgetTarget.WholeScope w) {
            return r.scope().within(w.scope());
        }
        return target instanceof ForgetTarget.User;
    }

    private static boolean targetsMessage(ForgetTarget target, String session, long index) {
        if (target instanceof ForgetTarget.Messages m) {
            return m.session().equals(session) && m.indices().contains(index);
        }
        if (target instanceof ForgetTarget.WholeScope w) {
            return w.scope().layer() == Layer.SESSION && session.equals(w.scope().session());
        }
        return target instanceof ForgetTarget.User;
    }

    /**
     * Rewrites stored events so that forgotten values, verification evidence (which may quote
     * the value) and messages leave the log; for a whole
     * user also alias texts and task titles (the replayed end state is unchanged: the user's
     * aliases and tasks are cleared by the forget). The action ledger is kept, so that a
     * side effect is never submitted twice.
     */
    private int scrub(Partition partition, Set<String> ids, Map<String, List<Long>> messages,
                      Map<String, List<StoredMessage>> redacted, StatedValues values, boolean wholeUser) {
        MemoryState state = handle(partition).state;
        Map<String, Set<Long>> sources = wholeUser ? Map.of() : sourceMessages(state, ids);
        Map<String, Map<Long, StoredMessage>> redactedBySession = new HashMap<>();
        redacted.forEach((session, list) -> list.forEach(m ->
                redactedBySession.computeIfAbsent(session, k -> new HashMap<>()).put(m.index(), m)));
        Map<Long, String> rewritten = new HashMap<>();
        for (StoredEvent stored : store.read(partition, 0)) {
            LoggedEvent e = codec.decode(stored);
            Change scrubbed = null;
            if (e.change() instanceof Change.RecordWritten w && ids.contains(w.record().id()) && w.record().value() != null) {
                scrubbed = new Change.RecordWritten(w.record().tombstone(), w.superseded());
            } else if (e.change() instanceof Change.MessagesAppended m) {
                List<Long> gone = messages.getOrDefault(m.session(), List.of());
                Map<Long, StoredMessage> rewrite = redactedBySession.getOrDefault(m.session(), Map.of());
                Set<Long> sourced = sources.getOrDefault(m.session(), Set.of());
                NavigableMap<Long, StoredMessage> now = state.history(m.session());
                List<StoredMessage> kept = new ArrayList<>();
                boolean any = false;
                for (StoredMessage msg : m.messages()) {
                    StoredMessage r = rewrite.get(msg.index());
                    if (r == null && !msg.forgotten() && (sourced.contains(msg.index()) || values.mayBeIn(msg.json()))) {
                        // redacted by an earlier (soft) forget of these values: the original goes now
                        StoredMessage current = now.get(msg.index());
                        if (current != null && !current.forgotten() && !Objects.equals(current.json(), msg.json())) {
                            r = current;
                        }
                    }
                    if (gone.contains(msg.index()) && !msg.forgotten()) {
                        kept.add(msg.tombstone());
                        any = true;
                    } else if (r != null && !msg.forgotten() && !Objects.equals(r.json(), msg.json())) {
                        // the original with the value goes; replaying still ends at the redacted form
                        kept.add(new StoredMessage(msg.index(), msg.order(), msg.type(), r.json(), r.text()));
                        any = true;
                    } else {
                        kept.add(msg);
                    }
                }
                if (any) {
                    scrubbed = new Change.MessagesAppended(m.session(), kept);
                }
            } else if (e.change() instanceof Change.MessagesRedacted m
                    && (messages.containsKey(m.session()) || redactedBySession.containsKey(m.session()))) {
                // an earlier redaction may still state what is forgotten now, or hold a message now forgotten
                List<Long> gone = messages.getOrDefault(m.session(), List.of());
                Map<Long, StoredMessage> rewrite = redactedBySession.getOrDefault(m.session(), Map.of());
                List<StoredMessage> kept = new ArrayList<>();
                boolean any = false;
                for (StoredMessage msg : m.messages()) {
                    StoredMessage r = rewrite.get(msg.index());
                    if (gone.contains(msg.index())) {
                        any = true;
                    } else if (r != null && !Objects.equals(r.json(), msg.json())) {
                        kept.add(r);
                        any = true;
                    } else {
                        kept.add(msg);
                    }
                }
                if (any) {
                    scrubbed = new Change.MessagesRedacted(m.session(), kept, m.hard());
                }
            }
            if (e.change() instanceof Change.RecordVerified v && ids.contains(v.id()) && v.evidence() != null) {
                scrubbed = new Change.RecordVerified(v.id(), v.verification(), null);
            }
            if (wholeUser && e.change() instanceof Change.AliasRegistered a && !a.alias().equals(FORGOTTEN_TEXT)) {
                scrubbed = new Change.AliasRegistered(FORGOTTEN_TEXT, FORGOTTEN_TEXT);
            } else if (wholeUser && e.change() instanceof Change.TaskChanged t && t.title() != null) {
                scrubbed = new Change.TaskChanged(t.session(), t.task(), t.status(), null);
            }
            if (scrubbed != null) {
                rewritten.put(stored.seq(), codec.encodeChange(scrubbed));
            }
        }
        if (!rewritten.isEmpty()) {
            store.rewrite(partition, rewritten);
        }
        return rewritten.size();
    }

    // ------------------------------------------------------------------ entities and aliases

    /** Registers {@code alias} (case and spacing ignored) for {@code entity} ({@code type:id}). */
    public void registerAlias(Caller caller, String entity, String alias) {
        String e = checkEntity(entity);
        String a = normalizeAlias(alias);
        write(caller, (s, tx) -> {
            if (!s.entitiesFor(a).contains(e)) {
                tx.add(s, new Change.AliasRegistered(a, e));
            }
            return null;
        });
    }

    /**
     * The entity an alias names: empty when unknown; {@link AmbiguousAliasException} when it
     * names more than one (two entities are never merged silently). An entity id resolves to itself.
     */
    public Optional<String> resolve(Caller caller, String alias) {
        String a = normalizeAlias(alias);
        return read(caller, s -> {
            Set<String> entities = s.entitiesFor(a);
            if (entities.size() > 1) {
                throw new AmbiguousAliasException(alias, List.copyOf(entities));
            }
            if (entities.isEmpty()) {
                return isEntity(alias.trim()) ? Optional.of(alias.trim()) : Optional.<String>empty();
            }
            return Optional.of(entities.iterator().next());
        });
    }

    /** The key {@code entity.subPath} for the entity an alias names; fails when unknown or ambiguous. */
    public MemoryKey keyFor(Caller caller, String alias, String subPath) {
        String entity = resolve(caller, alias)
                .orElseThrow(() -> new IllegalArgumentException("unknown alias: " + Ids.quote(alias)));
        return MemoryKey.of(entity + "." + subPath);
    }

    private static boolean isEntity(String s) {
        return s.matches("[A-Za-z0-9_-]{1,30}:[A-Za-z0-9_-]{1,33}");
    }

    private static String checkEntity(String entity) {
        Objects.requireNonNull(entity, "entity");
        if (!isEntity(entity)) {
            throw new IllegalArgumentException("entity must look like type:id (letters, digits, _ and -): " + Ids.quote(entity));
        }
        return entity;
    }

    private static String normalizeAlias(String alias) {
        Objects.requireNonNull(alias, "alias");
        String a = alias.trim().replaceAll("\\s+", " ").toLowerCase(Locale.ROOT);
        if (a.isEmpty() || a.length() > 200) {
            throw new IllegalArgumentException("alias must be 1-200 characters: " + Ids.quote(alias));
        }
        return a;
    }

    // ------------------------------------------------------------------ verification

    /**
     * The user confirms a candidate record. Confirming a version held in conflict resolves the
     * conflict: it becomes the current value and the version that was current is superseded.
     */
    public MemoryRecord confirm(Caller caller, String recordId) {
        return verdict(caller, recordId, r -> new Change.RecordVerified(r.id(), Verification.CONFIRMED, "confirmed by the user"));
    }

    /**
     * The user rejects a candidate record: it is refuted and never served as current. If it was
     * the current value, the version it replaced is current again.
     */
    public MemoryRecord refute(Caller caller, String recordId, String why) {
        Objects.requireNonNull(why, "why");
        return verdict(caller, recordId, r -> new Change.RecordVerified(r.id(), Verification.REFUTED, why));
    }

    /**
     * Runs the registered verifiers on a record; the first that has something to say decides
     * (verified or refuted, with its evidence). Unchanged when none does.
     */
    public MemoryRecord verify(Caller caller, String recordId) {
        return verdict(caller, recordId, r -> {
            for (Verifier v : verifiers) {
                Optional<Verifier.Verdict> verdict = v.check(r);
                if (verdict.isPresent()) {
                    return new Change.RecordVerified(r.id(),
                            verdict.get().holds() ? Verification.VERIFIED : Verification.REFUTED, verdict.get().evidence());
                }
            }
            return null;
        });
    }

    private MemoryRecord verdict(Caller caller, String recordId, Function<MemoryRecord, Change.@Nullable RecordVerified> f) {
        Objects.requireNonNull(recordId, "recordId");
        return write(caller, (s, tx) -> {
            MemoryRecord r = s.record(recordId);
            if (r == null || !r.readableBy(caller.agent())) {
                throw new IllegalArgumentException("no record " + Ids.quote(recordId) + " for " + caller.tenant() + "/" + caller.user());
            }
            if (r.status() == Status.FORGOTTEN) {
                throw new IllegalStateException("record " + recordId + " is forgotten");
            }
            Change.RecordVerified change = f.apply(r);
            if (change != null) {
                tx.add(s, change);
            }
            return s.record(recordId);
        });
    }

    /** Marks records past their re-verify deadline as expired in the log; returns how many. */
    public int expireDue(Caller caller) {
        return write(caller, (s, tx) -> {
            Instant now = clock.instant();
            List<String> ids = s.records().stream()
                    .filter(r -> r.status() == Status.ACTIVE && r.expiresAt() != null && !now.isBefore(r.expiresAt()))
                    .map(MemoryRecord::id).toList();
            if (!ids.isEmpty()) {
                tx.add(s, new Change.RecordsExpired(ids));
            }
            return ids.size();
        });
    }

    // ------------------------------------------------------------------ action ledger

    /**
     * Logs the intent of a side-effecting action before it is performed. A repeated intent with
     * the same id returns the recorded outcome ({@code ALREADY_DONE}) or, when none was recorded
     * (a crash between the call and its outcome), {@code NEEDS_RECONCILIATION}: ask the external
     * system before anything is retried. Only {@code PROCEED} means "perform it now".
     */
    public ActionStart beginAction(Caller caller, String operationId, String action, MemoryValue params) {
        Objects.requireNonNull(operationId, "operationId");
        Objects.requireNonNull(action, "action");
        Objects.requireNonNull(params, "params");
        return write(caller, (s, tx) -> {
            ActionRecord existing = s.action(operationId);
            if (existing != null) {
                return new ActionStart(existing.pending() ? ActionStart.Decision.NEEDS_RECONCILIATION
                        : ActionStart.Decision.ALREADY_DONE, existing);
            }
            tx.add(s, new Change.ActionIntended(operationId, action, params));
            return new ActionStart(ActionStart.Decision.PROCEED, s.action(operationId));
        });
    }

    /** Logs the outcome of an intended action (also used to settle a reconciled one). */
    public ActionRecord completeAction(Caller caller, String operationId, boolean success, MemoryValue outcome) {
        Objects.requireNonNull(operationId, "operationId");
        Objects.requireNonNull(outcome, "outcome");
        return write(caller, (s, tx) -> {
            ActionRecord existing = s.action(operationId);
            if (existing == null) {
                throw new IllegalStateException("no intent logged for operation " + operationId);
            }
            if (!existing.pending()) {
                return existing;
            }
            tx.add(s, new Change.ActionCompleted(operationId, success, outcome));
            return s.action(operationId);
        });
    }

    /** Actions whose intent was logged without an outcome: to reconcile before any retry. */
    public List<ActionRecord> pendingActions(Caller caller) {
        return read(caller, s -> s.actions().stream().filter(ActionRecord::pending).toList());
    }

    /** One ledger entry. */
    public Optional<ActionRecord> action(Caller caller, String operationId) {
        return read(caller, s -> Optional.ofNullable(s.action(operationId)));
    }

    // ------------------------------------------------------------------ log and analysis

    /** The user's log, decoded, in sequence order. */
    public List<LoggedEvent> log(Caller caller) {
        Objects.requireNonNull(caller, "caller");
        return store.read(partition(caller), 0).stream().map(codec::decode).toList();
    }

    /**
     * The log in readable form, one line per event. Values are redacted when sensitive or when
     * the caller's agent may not read them (another agent's private or protected record).
     * Unlike the other reads, {@link #log}, {@link #replay} and {@link #audit} are operator
     * views of the whole user and are not filtered by agent.
     */
    public List<String> readableLog(Caller caller) {
        return log(caller).stream().map(e -> EventText.readable(e, caller.agent())).toList();
    }

    /** A fresh replay of the stored log. */
    public MemoryState replay(Caller caller) {
        return MemoryState.replay(log(caller));
    }

    /**
     * Audits the user's memory: open conflicts, expired-but-active records, keys not updated
     * within {@code staleAfter}, ended tasks still referenced, pending actions, and whether the
     * live state equals a fresh replay of the stored log.
     */
    public AuditReport audit(Caller caller, Duration staleAfter) {
        Objects.requireNonNull(staleAfter, "staleAfter");
        Partition partition = partition(caller);
        Handle h = handle(partition);
        h.lock.lock();
        try {
            return Analysis.audit(h.state, replay(caller), clock.instant(), staleAfter);
        } finally {
            h.lock.unlock();
        }
    }

    /**
     * Archives state no longer reachable from an active task or the user's persistent memory
     * (records of ended tasks). Nothing is deleted; returns the ids archived.
     */
    public List<String> collect(Caller caller) {
        return write(caller, (s, tx) -> {
            List<String> ids = Analysis.unreachable(s);
            if (!ids.isEmpty()) {
                tx.add(s, new Change.RecordsArchived(ids));
            }
            return ids;
        });
    }

    /** How the current values of two of the caller's scopes differ. */
    public ScopeDiff diff(Caller caller, Scope left, Scope right) {
        return Analysis.diff(view(caller, left, ReadOptions.withArchived()), view(caller, right, ReadOptions.withArchived()));
    }

    /** Tenants' users that have a log, for tools that inspect a whole store. */
    public List<Partition> users(String tenant) {
        return store.partitions(Ids.check(tenant, "tenant"));
    }

    /**
     * Compacts the store, then every registered derived data ({@link DerivedData#compact}), so
     * that scrubbed bytes leave the storage medium.
     */
    public void compact() {
        store.compact();
        for (DerivedData d : derived) {
            d.compact();
        }
    }

    /** Forgets the cached state of every user so the next call reloads from the store. */
    public void invalidateCache() {
        partitions.clear();
    }

    @Override
    public void close() {
        store.close();
    }

    // ------------------------------------------------------------------ internals

    private static void checkScope(Caller caller, Scope scope) {
        Objects.requireNonNull(caller, "caller");
        Objects.requireNonNull(scope, "scope");
        if (!scope.belongsTo(caller.tenant(), caller.user())) {
            throw new AccessDeniedException("caller " + caller.tenant() + "/" + caller.user()
                    + " cannot touch scope " + scope + " of another tenant or user");
        }
    }

    private static Partition partition(Caller caller) {
        Objects.requireNonNull(caller, "caller");
        return new Partition(caller.tenant(), caller.user());
    }

    private Handle handle(Partition p) {
        return partitions.computeIfAbsent(p, k -> new Handle(load(k)));
    }

    private MemoryState load(Partition p) {
        MemoryState s = new MemoryState();
        for (StoredEvent e : store.read(p, 0)) {
            s.apply(codec.decode(e));
        }
        return s;
    }

    private <T> T read(Caller caller, Function<MemoryState, T> f) {
        Handle h = handle(partition(caller));
        h.lock.lock();
        try {
            return f.apply(h.state);
        } finally {
            h.lock.unlock();
        }
    }

    @FunctionalInterface
    private interface Work<T> {
        T run(MemoryState state, Tx tx);
    }

    /** The events of one call: applied to the live state as they are made, appended together. */
    private final class Tx {
        final Caller caller;
        final String traceId;
        final List<LoggedEvent> events = new ArrayList<>();

        Tx(Caller caller, String traceId) {
            this.caller = caller;
            this.traceId = traceId;
        }

        void add(MemoryState s, Change change) {
            LoggedEvent e = new LoggedEvent(s.lastSeq() + 1, clock.instant(), caller.agent(), traceId, change);
            s.apply(e);
            events.add(e);
        }
    }

    private <T> T write(Caller caller, Work<T> work) {
        Partition partition = partition(caller);
        Handle h = handle(partition);
        h.lock.lock();
        try {
            Tx tx = new Tx(caller, UUID.randomUUID().toString());
            T result;
            try {
                result = work.run(h.state, tx);
            } catch (RuntimeException e) {
                if (!tx.events.isEmpty()) {
                    h.state = load(partition);
                }
                throw e;
            }
            commit(partition, h, tx);
            cascadeForgotten(partition, tx);
            return result;
        } finally {
            h.lock.unlock();
        }
    }

    private void commit(Partition partition, Handle h, Tx tx) {
        if (tx.events.isEmpty()) {
            return;
        }
        long expected = tx.events.get(0).seq() - 1;
        try {
            store.append(partition, expected, tx.events.stream().map(codec::encode).toList());
        } catch (RuntimeException e) {
            h.state = load(partition);
            throw e;
        }
        List<LoggedEvent> committed = List.copyOf(tx.events);
        for (EventListener l : listeners) {
            try {
                l.committed(partition, committed);
            } catch (RuntimeException e) {
                // The events are durable; a listener that fails must not make the caller think otherwise.
                LOG.log(System.Logger.Level.WARNING, "event listener " + l + " failed on " + partition, e);
            }
        }
    }

    /**
     * Tells derived data about records a write forgot on its way (an invalidation, the record
     * limit), so that those reach every derived copy too, as {@link #forget} does.
     */
    private void cascadeForgotten(Partition partition, Tx tx) {
        Set<String> ids = new LinkedHashSet<>();
        for (LoggedEvent e : tx.events) {
            if (e.change() instanceof Change.RecordsForgotten f) {
                ids.addAll(f.ids());
            }
        }
        if (ids.isEmpty()) {
            return;
        }
        ForgetRequest request = new ForgetRequest(partition, ids, Map.of(), false, false);
        for (DerivedData d : derived) {
            d.forget(request);
        }
    }

    // ------------------------------------------------------------------ builder

    /** Configures a {@link MemoryEngine}. Every setting has a documented default. */
    public static final class Builder {
        private @Nullable EventStore store;
        private java.util.function.@Nullable Supplier<EventStore> opener;
        private Clock clock = Clock.systemUTC();
        private boolean strictConflicts;
        private int maxValueBytes = 64 * 1024;
        private int maxMessageChars = 1024 * 1024;
        private int maxRecordsPerUser = 100_000;
        private AtLimit atLimit = AtLimit.REJECT;
        private final Map<Kind, Duration> ttlByKind = new EnumMap<>(Kind.class);
        private final Set<Kind> sensitiveKinds = EnumSet.noneOf(Kind.class);
        private @Nullable Pattern sensitiveKeys;
        private @Nullable SecretKey encryptionKey;
        private final List<Verifier> verifiers = new ArrayList<>();
        private final List<DerivedData> derived = new ArrayList<>();
        private final List<EventListener> listeners = new ArrayList<>();
        private final List<MessageRedactor> redactors = new ArrayList<>();

        private Builder() {
        }

        /** Where events are kept. Default: a fresh {@link InMemoryEventStore}. */
        public Builder store(EventStore store) {
            this.store = Objects.requireNonNull(store, "store");
            this.opener = null;
            return this;
        }

        /**
         * Keeps events on a database server, e.g. PostgreSQL ({@code jdbc:postgresql://host:5432/db};
         * add the driver {@code org.postgresql:postgresql}), through a connection pool that
         * {@link #build()} opens and the engine closes: {@link JdbcEventStore#connect(String, String, String)}.
         * For pool settings pass {@link JdbcEventStore#connect(JdbcSettings)} to {@link #store}.
         */
        public Builder jdbc(String url, String user, String password) {
            JdbcSettings settings = JdbcSettings.of(url, user, password);
            return opens(() -> JdbcEventStore.connect(settings));
        }

        /**
         * Keeps events in the database of a {@link DataSource} the application owns (and closes;
         * the engine only borrows connections): {@link JdbcEventStore#JdbcEventStore(DataSource)}.
         */
        public Builder dataSource(DataSource dataSource) {
            Objects.requireNonNull(dataSource, "dataSource");
            return opens(() -> new JdbcEventStore(dataSource));
        }

        /** A store that {@link #build()} opens, replacing any set before. */
        private Builder opens(java.util.function.Supplier<EventStore> opener) {
            this.opener = opener;
            this.store = null;
            return this;
        }

        /** The clock for every time rule. Default: {@link Clock#systemUTC()}. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** Reject conflicting writes instead of recording them as conflicts. Default: false. */
        public Builder strictConflicts(boolean strict) {
            this.strictConflicts = strict;
            return this;
        }

        /** Largest value accepted, in UTF-8 bytes of its JSON. Default: 65,536. */
        public Builder maxValueBytes(int bytes) {
            if (bytes < 16 || bytes > 16 * 1024 * 1024) {
                throw new IllegalArgumentException("maxValueBytes must be within 16..16777216: " + bytes);
            }
            this.maxValueBytes = bytes;
            return this;
        }

        /** Largest chat message accepted, in characters of its serialized form. Default: 1,048,576. */
        public Builder maxMessageChars(int chars) {
            if (chars < 1024 || chars > 64 * 1024 * 1024) {
                throw new IllegalArgumentException("maxMessageChars must be within 1024..67108864: " + chars);
            }
            this.maxMessageChars = chars;
            return this;
        }

        /** Most live records one user may hold, and what happens at the limit. Default: 100,000, reject. */
        public Builder maxRecordsPerUser(int max, AtLimit atLimit) {
            if (max < 1) {
                throw new IllegalArgumentException("maxRecordsPerUser must be >= 1: " + max);
            }
            this.maxRecordsPerUser = max;
            this.atLimit = Objects.requireNonNull(atLimit, "atLimit");
            return this;
        }

        /** Default re-verify deadline for records of a kind. Default: none. */
        public Builder ttl(Kind kind, Duration ttl) {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(ttl, "ttl");
            if (ttl.isNegative() || ttl.isZero()) {
                throw new IllegalArgumentException("ttl for " + kind + " must be positive: " + ttl);
            }
            ttlByKind.put(kind, ttl);
            return this;
        }

        /** Records of this kind are sensitive: redacted from readable logs. */
        public Builder sensitiveKind(Kind kind) {
            sensitiveKinds.add(Objects.requireNonNull(kind, "kind"));
            return this;
        }

        /** Records whose key matches this regular expression are sensitive. */
        public Builder sensitiveKeys(String regex) {
            Objects.requireNonNull(regex, "regex");
            try {
                this.sensitiveKeys = Pattern.compile(regex);
            } catch (java.util.regex.PatternSyntaxException e) {
                throw new IllegalArgumentException("sensitiveKeys is not a valid regular expression: " + e.getDescription());
            }
            return this;
        }

        /** Seals every stored event with AES-GCM under this 128-, 192- or 256-bit key. Default: none. */
        public Builder encryptionKey(byte[] key) {
            Objects.requireNonNull(key, "key");
            if (key.length != 16 && key.length != 24 && key.length != 32) {
                throw new IllegalArgumentException("encryption key must be 16, 24 or 32 bytes: " + key.length);
            }
            this.encryptionKey = new SecretKeySpec(key.clone(), "AES");
            return this;
        }

        /** Adds a verifier for candidate records. */
        public Builder verifier(Verifier verifier) {
            verifiers.add(Objects.requireNonNull(verifier, "verifier"));
            return this;
        }

        /** Adds derived data that must forget what the engine forgets. */
        public Builder derived(DerivedData data) {
            derived.add(Objects.requireNonNull(data, "data"));
            return this;
        }

        /** Adds a listener told about every committed event. */
        public Builder listener(EventListener listener) {
            listeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /** Adds a redactor for messages in a format it knows (see {@link MemoryEngine#addRedactor}). */
        public Builder redactor(MessageRedactor redactor) {
            redactors.add(Objects.requireNonNull(redactor, "redactor"));
            return this;
        }

        public MemoryEngine build() {
            if (opener == null) {
                return new MemoryEngine(this);
            }
            store = opener.get();
            try {
                return new MemoryEngine(this);
            } catch (RuntimeException e) {
                store.close();
                throw e;
            }
        }
    }

    /** The latest version in one of these statuses that was not refuted (a refuted write never became the value). */
    private static @Nullable MemoryRecord latest(List<MemoryRecord> versions, Set<Status> statuses) {
        for (int i = versions.size() - 1; i >= 0; i--) {
            if (statuses.contains(versions.get(i).status()) && versions.get(i).verification() != Verification.REFUTED) {
                return versions.get(i);
            }
        }
        return null;
    }
}

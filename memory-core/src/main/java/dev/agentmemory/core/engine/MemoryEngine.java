package dev.agentmemory.core.engine;

import dev.agentmemory.core.MemoryException;
import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ForgetMode;
import dev.agentmemory.core.ForgetReceipt;
import dev.agentmemory.core.ForgetTarget;
import dev.agentmemory.core.ScopeView.KeyState;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.Scope.Layer;
import dev.agentmemory.core.KeyVersion;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.Proposal.Outcome;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.ReadOptions;
import dev.agentmemory.core.Scope;
import dev.agentmemory.core.ScopeView;
import dev.agentmemory.core.StaleVersionException;
import dev.agentmemory.core.StatusRule;
import dev.agentmemory.core.event.LoggedEvent;
import dev.agentmemory.core.event.StoredMessage;
import dev.agentmemory.core.internal.codec.EventCodec;
import dev.agentmemory.core.internal.state.PartitionState;
import dev.agentmemory.core.policy.InstructionDetector;
import dev.agentmemory.core.spi.DerivedData;
import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.core.internal.hooks.MessageRedactor;
import dev.agentmemory.core.spi.StatedValues;
import dev.agentmemory.core.spi.StoredVector;
import dev.agentmemory.core.spi.VectorModel;
import dev.agentmemory.core.spi.Verifier;
import dev.agentmemory.core.store.InMemoryEventStore;
import org.jspecify.annotations.Nullable;

import javax.crypto.SecretKey;
import javax.crypto.spec.SecretKeySpec;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import dev.agentmemory.core.TaskInfo;
import java.util.NavigableMap;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Function;
import dev.agentmemory.core.MemoryValue;
import dev.agentmemory.core.ledger.ActionRecord;
import dev.agentmemory.core.ledger.ActionRecord.ActionStart;
import dev.agentmemory.core.audit.AuditReport;
import dev.agentmemory.core.audit.AuditReport.ScopeDiff;
import dev.agentmemory.core.internal.hooks.EventListener;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.core.internal.state.MemoryState;

/**
 * The front door of memory-core. Every call names a {@link Caller} (tenant, user, agent) and
 * never reads or changes anything outside that tenant and user.
 *
 * <p>Every change is an event appended to the user's log in the {@link EventStore}; the state
 * the engine serves is the replay of that log ({@link Admin#audit} checks it). Writes are
 * {@link Proposal}s that the engine validates (scope, permission, kind rules, conflicts) and
 * applies or rejects with a reason. Reads are version-aware: superseded versions are never
 * current, expired ones are reported for re-verification, conflicts are surfaced.
 *
 * <p>The engine itself holds the writes, the reads, {@link #forget} and {@link #close}; the
 * secondary features hang off it as views, each a small interface nested here:
 * <ul>
 *   <li>{@link #tasks()}: start, suspend, resume and end tasks;</li>
 *   <li>{@link #messages()}: the sessions' chat windows and histories;</li>
 *   <li>{@link #ledger()}: the action ledger for side effects;</li>
 *   <li>{@link #aliases()}: entities and their aliases;</li>
 *   <li>{@link #verification()}: verdicts on records and re-verify deadlines;</li>
 *   <li>{@link #admin()}: the log, replay, audit, collector, compaction and the registration
 *       of derived data, listeners and redactors.</li>
 * </ul>
 * The views are created with the engine and share its state; keep them or ask again, either way.
 *
 * <p>Thread-safe. Calls for one user are serialized; calls for different users run in parallel.
 * All time comes from the builder's {@link Clock}.
 */
public final class MemoryEngine implements AutoCloseable {

    private final EngineConfig config;
    private final PartitionRuntime runtime;
    private final ProposalDecider decider;
    private final Forgetter forgetter;
    private final Tasks tasks;
    private final Messages messages;
    private final Ledger ledger;
    private final Aliases aliases;
    private final Verifications verification;
    private final Admin admin;

    /** What happens when a user reaches the record limit. */
    public enum AtLimit {
        /** Reject the new write with a reason. */
        REJECT,
        /** Soft-forget the user's oldest persistent observation or inference to make room, else reject. */
        FORGET_OLDEST
    }

    private MemoryEngine(Builder b) {
        this.config = new EngineConfig(b.strictConflicts, b.maxValueBytes, b.maxMessageChars, b.maxRecordsPerUser,
                b.atLimit == AtLimit.FORGET_OLDEST, b.ttlByKind, b.sensitiveKinds, b.sensitiveKeys, b.verifiers, b.instructionDetector);
        this.runtime = new PartitionRuntime(b.store != null ? b.store : new InMemoryEventStore(),
                new EventCodec(b.encryptionKey), b.clock, b.derived, b.snapshotEvery);
        this.decider = new ProposalDecider(config);
        this.forgetter = new Forgetter(runtime, b.redactors);
        this.tasks = new TaskLifecycle(runtime);
        this.messages = new MessageWindow(runtime, config);
        this.ledger = new ActionLedger(runtime);
        this.aliases = new AliasRegistry(runtime);
        this.verification = new RecordVerification(runtime, config);
        this.admin = new AdminTools(runtime, forgetter);
    }

    /** A builder with the defaults: in-memory store, system UTC clock, no TTLs, lenient conflicts. */
    public static Builder builder() {
        return new Builder();
    }

    /** The engine's clock. */
    public Clock clock() {
        return runtime.clock();
    }

    // ------------------------------------------------------------------ views

    /** The task lifecycle: start, suspend, resume, end and list the tasks of a user's sessions. */
    public Tasks tasks() {
        return tasks;
    }

    /** The sessions' chat windows and message histories. */
    public Messages messages() {
        return messages;
    }

    /** The action ledger: intents and outcomes of side-effecting actions. */
    public Ledger ledger() {
        return ledger;
    }

    /** Entities and the aliases that name them. */
    public Aliases aliases() {
        return aliases;
    }

    /** Verdicts on records (confirm, refute, verifiers) and re-verify deadlines. */
    public Verifications verification() {
        return verification;
    }

    /** Operator tools (log, replay, audit, collect, diff, compact) and extension registration. */
    public Admin admin() {
        return admin;
    }

    // ------------------------------------------------------------------ writes

    /**
     * Validates and applies proposals, in order, as one atomic append: either every accepted
     * proposal is logged or none is. Each proposal gets an outcome (applied, conflict, rejected
     * with a reason). A proposal naming another tenant or user fails the whole call with
     * {@link MemoryException.AccessDenied}; an oversized value with {@link IllegalArgumentException};
     * a proposal whose {@linkplain Proposal.Builder#expectVersion expected version} is not the
     * key's (checked after the batch's earlier proposals) with {@link StaleVersionException};
     * nothing of the batch is written then. When the store fails the append, nothing is
     * written either and the live state is exactly what it was before the call.
     */
    public List<Outcome> propose(Caller caller, List<Proposal> proposals) {
        Objects.requireNonNull(caller, "caller");
        Objects.requireNonNull(proposals, "proposals");
        for (Proposal p : proposals) {
            Objects.requireNonNull(p, "proposal");
            ScopeGuard.check(caller, p.scope());
            if (p.value() != null && p.value().sizeInBytes() > config.maxValueBytes()) {
                throw new IllegalArgumentException("value of " + p.key() + " is " + p.value().sizeInBytes()
                        + " bytes, over the limit of " + config.maxValueBytes());
            }
        }
        return runtime.write(caller, (state, tx) -> {
            List<Outcome> outcomes = new ArrayList<>();
            for (Proposal p : proposals) {
                ProposalDecider.Decision d = decider.decide(caller, state, p, runtime.clock().instant());
                d.changes().forEach(change -> tx.add(state, change));
                outcomes.add(d.outcome());
            }
            return outcomes;
        });
    }

    /** Proposes one operation. */
    public Outcome propose(Caller caller, Proposal proposal) {
        return propose(caller, List.of(Objects.requireNonNull(proposal, "proposal"))).get(0);
    }

    /**
     * Writes one proposal and returns the record (for an {@linkplain Proposal#invalidate
     * invalidation}, the version it ended, now a tombstone), or throws: {@link MemoryException.InvalidProposal}
     * when a rule rejects it (including a conflict in strict mode, which rejects it),
     * {@link MemoryException.Conflict} when, in the default lenient mode, it conflicts with the current
     * value (the conflicting version is logged and held as an open conflict),
     * {@link StaleVersionException} when the key is not at the proposal's
     * {@linkplain Proposal.Builder#expectVersion expected version} (nothing is written).
     */
    public MemoryRecord write(Caller caller, Proposal proposal) {
        Outcome o = propose(caller, proposal);
        return switch (o.result()) {
            case APPLIED -> Objects.requireNonNull(o.record());
            case CONFLICT -> throw new MemoryException.Conflict(proposal.key() + ": " + o.reason());
            case REJECTED -> throw new MemoryException.InvalidProposal(proposal.key() + ": " + o.reason());
        };
    }

    // ------------------------------------------------------------------ reads

    /** The servable current version of a key. */
    public Optional<MemoryRecord> current(Caller caller, Scope scope, MemoryKey key) {
        return keyState(caller, scope, key, ReadOptions.DEFAULT).currentRecord();
    }

    /** The current version, conflicts and expiry of one key. */
    public KeyState keyState(Caller caller, Scope scope, MemoryKey key, ReadOptions options) {
        ScopeGuard.check(caller, scope);
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(options, "options");
        return runtime.read(caller, s -> ReadModel.keyStateOf(caller, s, scope, key, options, runtime.clock().instant()));
    }

    /** Every key of a scope as a read sees it. An ended task's scope reads empty unless archived state is asked for. */
    public ScopeView view(Caller caller, Scope scope, ReadOptions options) {
        ScopeGuard.check(caller, scope);
        Objects.requireNonNull(options, "options");
        return runtime.read(caller, s -> ReadModel.viewOf(caller, s, scope, options, runtime.clock().instant()));
    }

    /** {@link #view} with default options. */
    public ScopeView view(Caller caller, Scope scope) {
        return view(caller, scope, ReadOptions.DEFAULT);
    }

    /** One record by id, if it belongs to the caller's user and the caller's agent may read it. */
    public Optional<MemoryRecord> record(Caller caller, String id) {
        Objects.requireNonNull(id, "id");
        return runtime.read(caller, s -> Optional.ofNullable(s.record(id)).filter(r -> r.readableBy(caller.agent())));
    }

    /** Every version of a key, oldest first, including superseded versions and tombstones. */
    public List<MemoryRecord> history(Caller caller, Scope scope, MemoryKey key) {
        ScopeGuard.check(caller, scope);
        return runtime.read(caller, s -> s.versions(scope, key).stream().filter(r -> r.readableBy(caller.agent())).toList());
    }

    /**
     * Every version of a key, oldest first, as {@link #history} gives them, except that a version
     * an invalidation ended (or the record limit evicted) keeps its value and says when, why and
     * by which statement it ended ({@link KeyVersion}). Read from the log: the same after a
     * restart. A version the user asked to forget stays a tombstone.
     */
    public List<KeyVersion> versions(Caller caller, Scope scope, MemoryKey key) {
        List<MemoryRecord> history = history(caller, scope, key);
        if (history.stream().noneMatch(r -> r.status() == MemoryRecord.Status.FORGOTTEN)) {
            return history.stream().map(r -> new KeyVersion(r, Optional.empty())).toList();
        }
        return ReadModel.versions(history, runtime.log(caller));
    }

    /**
     * The version of a key that applies at {@code date} by its validity interval: the newest
     * version (current or superseded, not forgotten, conflicting or refuted) whose interval
     * contains the date.
     */
    public Optional<MemoryRecord> applicableAt(Caller caller, Scope scope, MemoryKey key, Instant date) {
        ScopeGuard.check(caller, scope);
        Objects.requireNonNull(date, "date");
        return runtime.read(caller, s -> ReadModel.applicableAt(caller, s, scope, key, date));
    }

    /**
     * What an item shown to the model is now: a record ({@link StatusRule.Form#RECORD}, one id), a
     * past message or a summary stating the records {@code recordIds}, for a read in
     * {@code askingSession} (null outside a session), by {@link StatusRule}. Ids of records that
     * are forgotten, of another user or not readable by the caller's agent are left out; a record
     * item whose record is one of those is refused with {@link IllegalArgumentException}.
     */
    public StatusRule.Judgement judge(Caller caller, StatusRule.Form form, Collection<String> recordIds,
                                      @Nullable String askingSession) {
        Objects.requireNonNull(form, "form");
        Objects.requireNonNull(recordIds, "recordIds");
        return runtime.read(caller, s -> ReadModel.judge(caller, s, form, recordIds, askingSession, runtime.clock().instant()));
    }

    /** The scope as it was at {@code time}: the log replayed up to that time, read with that time as now. */
    public ScopeView asOf(Caller caller, Scope scope, Instant time) {
        ScopeGuard.check(caller, scope);
        Objects.requireNonNull(time, "time");
        List<LoggedEvent> all = runtime.log(caller);
        return ReadModel.viewOf(caller, ReadModel.replayWithoutErased(ReadModel.upTo(all, time), all), scope,
                ReadOptions.DEFAULT, time);
    }

    /** The scope as it was right after log sequence {@code seq}. */
    public ScopeView asOfSequence(Caller caller, Scope scope, long seq) {
        ScopeGuard.check(caller, scope);
        if (seq < 0) {
            throw new IllegalArgumentException("seq must be >= 0: " + seq);
        }
        List<LoggedEvent> all = runtime.log(caller);
        List<LoggedEvent> events = new ArrayList<>();
        Instant at = Instant.EPOCH;
        for (LoggedEvent e : all) {
            if (e.seq() <= seq) {
                events.add(e);
                at = e.at();
            }
        }
        return ReadModel.viewOf(caller, ReadModel.replayWithoutErased(events, all), scope, ReadOptions.DEFAULT, at);
    }

    /**
     * Every record of the caller's user that a read may serve: current versions and open
     * conflicts, in every scope that is active (for the task layer only the sessions' active
     * tasks: suspended and ended tasks and archived records are left out).
     * Used by retrieval; each entry is a key's state.
     */
    public List<KeyState> servable(Caller caller, Layer layer) {
        Objects.requireNonNull(layer, "layer");
        return runtime.read(caller, s -> ReadModel.servable(caller, s, layer, runtime.clock().instant()));
    }

    /**
     * A number that moves whenever what {@link #servable} returns for this user may have changed
     * other than by the passage of time (a record expiring): any record, task or alias event, a
     * forget, or a reload from the store. Messages and action-ledger steps leave it alone. For
     * caching what is derived from the servable records; compare for equality only.
     */
    public long recordsRevision(Caller caller) {
        return runtime.read(caller, PartitionState::recordsRevision);
    }

    /**
     * The same key states as {@link #servable(Caller, Layer)}, scope by scope, but each scope's
     * keys in the order they were first written rather than sorted: for callers that rank the
     * keys themselves and do not want to pay for the sort.
     */
    public List<KeyState> servableUnordered(Caller caller, Layer layer) {
        Objects.requireNonNull(layer, "layer");
        return runtime.read(caller, s -> ReadModel.servableUnordered(caller, s, layer, runtime.clock().instant()));
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
     * forgotten instead. The log records a {@link dev.agentmemory.core.event.Change.MessagesRedacted} holding only the
     * redacted forms; hard mode also rewrites the events that held the originals.
     *
     * <p>A hard forget that removed anything {@linkplain #compact() compacts} the store and the
     * derived data before it returns, so that no file they wrote still holds a removed value;
     * this costs a copy of the live data (see the README's storage section).
     */
    public ForgetReceipt forget(Caller caller, ForgetTarget target, ForgetMode mode) {
        ForgetReceipt receipt = forgetter.forget(caller, target, mode);
        if (mode == ForgetMode.HARD && (receipt.removedAnything() || receipt.eventsScrubbed() > 0)) {
            try {
                admin.compact();
            } catch (RuntimeException e) {
                throw new MemoryException("forgotten, but the removed values may still be in the files: "
                        + "compaction failed (call admin().compact() again): " + e.getMessage(), e);
            }
        }
        return receipt;
    }

    /**
     * Closes the engine and its store. Before the store closes, each user loaded here whose events
     * after their newest snapshot are at least {@code snapshotEvery} and at least 1/32 of their log
     * gets a snapshot (see {@link Builder#snapshotEvery}), so that the next process loads them
     * without replaying that tail: at most one snapshot per {@code snapshotEvery} events this
     * engine applied, none for users under the interval (most small ones). A user busy in a call
     * on another thread is skipped; the store keeps a snapshot only while the log still ends at
     * its sequence, so a write by another instance wins. A snapshot that fails is logged (one
     * warning for all) and never fails the close: the log is intact. Closing again does nothing.
     */
    @Override
    public void close() {
        runtime.close();
    }

    // ------------------------------------------------------------------ builder

    /** Configures a {@link MemoryEngine}. Every setting has a documented default. */
    public static final class Builder {
        private @Nullable EventStore store;
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
        private final List<MessageRedactor> redactors = new ArrayList<>();
        private InstructionDetector instructionDetector = InstructionDetector.standard();
        private int snapshotEvery = Snapshots.DEFAULT_EVERY;

        private Builder() {
        }

        /** Where events are kept. Default: a fresh {@link InMemoryEventStore}. */
        public Builder store(EventStore store) {
            this.store = Objects.requireNonNull(store, "store");
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

        /**
         * Writes a snapshot of a user's state every {@code events} events (after the commit that
         * reaches the next multiple), so that loading a user with a long history reads the
         * snapshot plus the events after it instead of replaying the whole log. The interval
         * grows with the log, so that the bytes written stay proportional to it (a snapshot holds
         * the whole state): {@code events} up to {@code 8 × events}, then a quarter of the largest
         * power-of-two multiple of {@code events} at or below the user's sequence (with 1,000:
         * at 1k, 2k, ... 8k, 10k, 12k, 14k, 16k, 20k, 24k, ...); a load reads at most
         * {@code events} or a quarter of the log after the snapshot, whichever is more. A graceful
         * {@link MemoryEngine#close()} also snapshots each loaded user whose tail is at least
         * {@code events} and 1/32 of their log, so that a restart reads no tail. Snapshots are
         * derived data in the store (stores without snapshot support keep none): checked by a
         * checksum, encrypted like the events when an encryption key is set, ignored and
         * rebuilt when damaged, deleted by a forget, compared with a full replay by
         * {@link Admin#audit}. Default: 1,000; 0 disables them.
         *
         * @throws IllegalArgumentException when {@code events} is negative
         */
        public Builder snapshotEvery(int events) {
            if (events < 0) {
                throw new IllegalArgumentException("snapshotEvery must be 0 (off) or a positive number of events: "
                        + events);
            }
            this.snapshotEvery = events;
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

        /**
         * Decides which untrusted text reads like an instruction (such text is kept only as an
         * observation or a reference). Default: {@link InstructionDetector#standard()}.
         */
        public Builder instructionDetector(InstructionDetector detector) {
            this.instructionDetector = Objects.requireNonNull(detector, "detector");
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

        /**
         * Adds a redactor for messages in a format it knows (see {@link Admin#addRedactor}; for our
         * own adapter modules, to which the redactor type is exported).
         */
        public Builder redactor(MessageRedactor redactor) {
            redactors.add(Objects.requireNonNull(redactor, "redactor"));
            return this;
        }

        public MemoryEngine build() {
            return new MemoryEngine(this);
        }
    }

    /**
     * The task lifecycle of a user's sessions, from {@link MemoryEngine#tasks()}. A task's state lives
     * in the task scope of the session that started it; a session <em>holds</em> the tasks it started
     * (unless they moved) and those it resumed from another session. At most one task a session holds
     * is active. Misuse (a task that does not exist, or a transition its status does not allow) fails
     * with {@link IllegalStateException} naming the task and session.
     *
     * <p><b>Tasks follow the user.</b> Suspend, resume and end accept any task of the caller's user,
     * asked from any of the user's sessions. The id {@code task} names, from {@code session}: the
     * task this session holds under that id; else the one open (active or suspended) task of that id
     * in the user's other sessions; else the one ended task of that id (refused by its status). When
     * several open tasks of other sessions share the id, the call fails listing each (the session it
     * was started in, its title, who holds it, its status) and changes nothing; name the session it
     * was started in ({@code startedIn}) to pick one. Another user's or tenant's tasks are never
     * found. Suspend and end leave a task held where it is; resume moves it to {@code session}.
     */
    public interface Tasks {

        /**
         * Starts a task in a session; the session's active task (if any) is suspended first. The
         * task's state lives in this session's task scope, wherever the task is held later.
         */
        TaskInfo start(Caller caller, String session, String task, @Nullable String title);

        /**
         * Suspends a task of the user (see the class comment for which one {@code task} names): its
         * state stays intact, out of the active view, until resumed. It stays held where it is; the
         * returned {@link TaskInfo#heldBy()} says by which session.
         */
        TaskInfo suspend(Caller caller, String session, String task);

        /**
         * Suspends the task {@code task} started in session {@code startedIn} (null: find it as
         * {@link #suspend(Caller, String, String)} does), wherever it is held.
         */
        TaskInfo suspend(Caller caller, String session, @Nullable String startedIn, String task);

        /**
         * Resumes a task with its state exactly as it was; the session's active task is suspended.
         * The task is one this session holds, or else the one open (active or suspended) task of that
         * id in another session of the same user, which then moves here: this session holds it from
         * now on and the other no longer does. When several other sessions have an open task of that
         * id, fails naming them; use {@link #resume(Caller, String, String, String)}. An ended task is
         * refused.
         */
        TaskInfo resume(Caller caller, String session, String task);

        /**
         * Resumes the task {@code task} started in session {@code startedIn} (null: find it as
         * {@link #resume(Caller, String, String)} does) and makes {@code session} hold it.
         */
        TaskInfo resume(Caller caller, String session, @Nullable String startedIn, String task);

        /**
         * Ends a task of the user (see the class comment for which one {@code task} names): its state
         * is archived out of the active view. It stays held where it is; the returned
         * {@link TaskInfo#heldBy()} says by which session.
         */
        TaskInfo end(Caller caller, String session, String task);

        /**
         * Ends the task {@code task} started in session {@code startedIn} (null: find it as
         * {@link #end(Caller, String, String)} does), wherever it is held.
         */
        TaskInfo end(Caller caller, String session, @Nullable String startedIn, String task);

        /** The session's active task (held by it; its state lives in the scope of the session that started it). */
        Optional<TaskInfo> active(Caller caller, String session);

        /** Every task a session holds: started there and not moved away, or moved to it. */
        List<TaskInfo> list(Caller caller, String session);

        /**
         * Every task of the caller's user, in every session, ended ones included: for offering a
         * suspended task of an earlier conversation to resume. Never another user's.
         */
        List<TaskInfo> userTasks(Caller caller);
    }

    /**
     * The chat messages of a user's sessions, from {@link MemoryEngine#messages()}: each session has
     * a history by index (tombstones and redacted forms included) and a window, the messages a chat
     * memory currently holds. A forget reaches both (see {@link MemoryEngine#forget}).
     */
    public interface Messages {

        /** The messages in a session's window, in window order. */
        List<StoredMessage> window(Caller caller, String session);

        /** A session's whole history by index, including messages out of the window and tombstones. */
        NavigableMap<Long, StoredMessage> history(Caller caller, String session);

        /**
         * Changes a session's window in one atomic append: {@code evicted} indices leave the window
         * (they stay in the history), then {@code appended} messages join it. {@code compute} sees
         * the current window and returns the change, so the decision and the write happen under the
         * user's lock. An appended message over {@link #maxMessageChars()} or whose index does not
         * continue the history fails the call with {@link IllegalArgumentException}; nothing is written.
         */
        WindowChange change(Caller caller, String session,
                                         Function<List<StoredMessage>, WindowChange> compute);

        /**
         * As {@link #change}, with the index the first appended message must have (one past the last
         * of the history, under the same lock), so that writers that do not share a cache never
         * disagree about it.
         */
        WindowChange changeIndexed(Caller caller, String session,
                                                BiFunction<List<StoredMessage>, Long, WindowChange> compute);

        /** The longest serialized message, in characters, a window accepts ({@link MemoryEngine.Builder#maxMessageChars}). */
        int maxMessageChars();

        /**
         * A change to a session's window.
         *
         * @param evicted  indices leaving the window
         * @param appended new messages, with indices continuing the history
         */
        record WindowChange(List<Long> evicted, List<StoredMessage> appended) {
            public WindowChange {
                Objects.requireNonNull(evicted, "evicted");
                Objects.requireNonNull(appended, "appended");
                evicted.forEach(i -> Objects.requireNonNull(i, "evicted index"));
                appended.forEach(m -> Objects.requireNonNull(m, "appended message"));
                evicted = List.copyOf(evicted);
                appended = List.copyOf(appended);
            }
        }
    }

    /**
     * The action ledger, from {@link MemoryEngine#ledger()}: the intent of every side-effecting
     * action is logged before it is performed and its outcome after, so that a retry after a crash
     * never performs it twice. A forget keeps the ledger.
     */
    public interface Ledger {

        /**
         * Logs the intent of a side-effecting action before it is performed. A repeated intent with
         * the same id returns the recorded outcome ({@code ALREADY_DONE}) or, when none was recorded
         * (a crash between the call and its outcome), {@code NEEDS_RECONCILIATION}: ask the external
         * system before anything is retried. Only {@code PROCEED} means "perform it now".
         */
        ActionStart begin(Caller caller, String operationId, String action, MemoryValue params);

        /**
         * Logs the outcome of an intended action (also used to settle a reconciled one); a second
         * outcome for the same operation returns the first. {@link IllegalStateException} when no
         * intent was logged for it.
         */
        ActionRecord complete(Caller caller, String operationId, boolean success, MemoryValue outcome);

        /** Actions whose intent was logged without an outcome: to reconcile before any retry. */
        List<ActionRecord> pending(Caller caller);

        /** One ledger entry. */
        Optional<ActionRecord> action(Caller caller, String operationId);
    }

    /**
     * Entities and the names a user calls them by, from {@link MemoryEngine#aliases()}. An entity is
     * {@code type:id}; an alias is any text (case and spacing ignored). Two entities are never
     * merged silently: an alias naming both is ambiguous.
     */
    public interface Aliases {

        /** Registers {@code alias} (case and spacing ignored) for {@code entity} ({@code type:id}). */
        void register(Caller caller, String entity, String alias);

        /**
         * The entity an alias names: empty when unknown; {@link MemoryException.AmbiguousAlias} when it
         * names more than one. An entity id resolves to itself.
         */
        Optional<String> resolve(Caller caller, String alias);

        /**
         * The key {@code entity.subPath} for the entity an alias names; {@link IllegalArgumentException}
         * when the alias is unknown, {@link MemoryException.AmbiguousAlias} when it is ambiguous.
         */
        MemoryKey keyFor(Caller caller, String alias, String subPath);
    }

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

    /**
     * Operator tools and extension points, from {@link MemoryEngine#admin()}: the raw and readable
     * log, replay and audit, the collector, scope diffs, store-wide listing and compaction, and the
     * registration of derived data, listeners and message redactors. Unlike the other reads,
     * {@link #log}, {@link #replay} and {@link #audit} are views of the whole user and are not
     * filtered by agent.
     */
    public interface Admin {

        /** The user's log, decoded, in sequence order. */
        List<LoggedEvent> log(Caller caller);

        /**
         * The user's stored events with a sequence above {@code afterSeq}, decoded, in sequence
         * order (the whole log for 0); empty when the log ends at or before it. What derived data
         * that remembers the last event it applied reads to catch up.
         *
         * @throws IllegalArgumentException when {@code afterSeq} is negative
         */
        List<LoggedEvent> log(Caller caller, long afterSeq);

        /**
         * When the user's event {@code seq} was appended, as the stored log holds it, read without
         * decoding the event; empty when the log holds no such event. What derived data that
         * remembers the last event it applied (its sequence and time) checks when nothing follows
         * it: a replaced log, or another database's, holds another event there, or none. It reads
         * the stored events from {@code seq} on in one round trip, so it is meant for the log's last
         * events.
         *
         * @throws IllegalArgumentException when {@code seq} is below 1
         */
        Optional<Instant> appendedAt(Caller caller, long seq);

        /**
         * Runs {@code work} over the user's live state (loaded, and caught up with a shared store)
         * with the user's lock held: no commit of that user, and so no call of a listener about
         * one, happens while it runs. For derived data that must bring itself in step with the
         * state without racing the events it listens to (an index catching up after a restart).
         * {@code work} must not keep the state it is given; it may call the engine for the same user.
         */
        <T> T holding(Caller caller, Function<MemoryState, T> work);

        /**
         * Calls {@code each} with every key of {@code scope} (one of the caller's), in the order
         * the keys were first written: its state as {@link MemoryEngine#keyState} reads it now with
         * {@link ReadOptions#DEFAULT} (possibly empty), and every version of the key, oldest first,
         * whoever may read them (tombstones included). With the user's lock held, as
         * {@link #holding}. For derived data that needs in one pass what reads serve of a scope and
         * when the passage of time alone changes it; {@code each} must not keep the versions' list.
         *
         * @throws MemoryException.AccessDenied when {@code scope} is not of the caller's tenant and user
         */
        void forEachKey(Caller caller, Scope scope, BiConsumer<KeyState, List<MemoryRecord>> each);

        /**
         * The log in readable form, one line per event. Values are redacted when sensitive or when
         * the caller's agent may not read them (another agent's private or protected record).
         */
        List<String> readableLog(Caller caller);

        /**
         * A fresh, read-only replay of the stored log, for the engine's own modules and tests: its type
         * is exported to the LangChain4j adapter only, so a user's module reads the log through
         * {@link #log} and the state through the engine's reads instead.
         */
        MemoryState replay(Caller caller);

        /**
         * Audits the user's memory: open conflicts, expired-but-active records, keys not updated
         * within {@code staleAfter}, ended tasks still referenced, pending actions, and whether the
         * live state equals a fresh replay of the stored log. State and log are of one sequence: on
         * a store other writers append to, the live state first catches up to the log the audit
         * read (the report's {@code seq}), so an append by another instance meanwhile is not a
         * difference.
         */
        AuditReport audit(Caller caller, Duration staleAfter);

        /**
         * Archives state no longer reachable from an active task or the user's persistent memory
         * (records of ended tasks). Nothing is deleted; returns the ids archived.
         */
        List<String> collect(Caller caller);

        /** How the current values of two of the caller's scopes differ. */
        ScopeDiff diff(Caller caller, Scope left, Scope right);

        /** Tenants' users that have a log, for tools that inspect a whole store. */
        List<Partition> users(String tenant);

        /**
         * The users whose state this engine holds in memory (loaded by a call since it started or
         * since {@link #invalidateCache}), for checks that compare that state with the log, such
         * as a health check's audit: auditing a user not held only loads it.
         */
        List<Partition> heldUsers();

        /**
         * Compacts the store, then every registered derived data ({@link DerivedData#compact}), so
         * that scrubbed bytes leave the storage medium.
         */
        void compact();

        /**
         * Drops the cached state of every user so that the next call reloads it from the store. Not
         * needed for instances sharing a database server: on a store
         * {@linkplain dev.agentmemory.core.spi.EventStore#sharedWithOtherWriters() shared with other
         * writers} every call catches up on their writes by itself (see {@link #sync}).
         */
        void invalidateCache();

        /**
         * Brings this engine's state of the caller's memory up to what the store holds now, and
         * returns its last sequence. Every call does this by itself on a store
         * {@linkplain dev.agentmemory.core.spi.EventStore#sharedWithOtherWriters() shared with other
         * writers} (another instance's acknowledged write is seen by this instance's next call); the
         * events this finds are told to the listeners and, when they forget something, to the derived
         * data, as if they had been committed here. For derived data that answers without a call to
         * the engine (a recall index), before it answers.
         *
         * @throws MemoryException when the store cannot be read
         */
        long sync(Caller caller);

        /**
         * Runs {@code work} with the caller's memory caught up once, at the start ({@link #sync}):
         * the engine calls {@code work} makes for that user on this thread then skip the per-call
         * check of a shared store, and see its state as of the start plus this thread's own writes (a
         * write that races another instance is still made again on its events). One round trip to
         * the database instead of one per call, for a read made of many calls (a retrieval); nothing
         * changes on a store that is not shared.
         */
        <T> T consistently(Caller caller, java.util.function.Supplier<T> work);

        /**
         * Runs {@code work} as the continuation of a unit of calls for the caller whose check of a
         * shared store was already made on this thread (by {@link #sync} or by any call outside such a
         * unit): as inside {@link #consistently}, the engine calls {@code work} makes for that user on
         * this thread skip the per-call check, but no check is made at the start either. They see
         * this engine's state of the user as of that check plus the writes made here since; a write
         * appends only after the sequence it decided on, so one that races another instance is
         * still refused by the store and made again on that instance's events. For an adapter whose
         * unit is made of calls it cannot nest in one block (a chat turn: the read of the chat
         * memory before the retrieval, the retrieval, the window changes, the reply); the unit's
         * reads do not see what another instance wrote after its check. Nothing changes on a store
         * that is not shared.
         */
        <T> T continuing(Caller caller, java.util.function.Supplier<T> work);

        /** Registers derived data that must forget what the engine forgets. */
        void register(DerivedData data);

        /** Removes derived data registered with {@link #register}; false when it was not registered. */
        boolean unregister(DerivedData data);

        /** The names of the registered derived data, in registration order (a name once per registration). */
        List<String> derivedDataNames();

        /**
         * Registers a listener told about every committed event. For our own adapter modules: the
         * listener type is exported to them only.
         */
        void addListener(EventListener listener);

        /** Removes a listener added with {@link #addListener}; false when it was not added. */
        boolean removeListener(EventListener listener);

        /**
         * Registers a redactor for messages in a format it knows, tried (in registration order)
         * before the engine's generic JSON redaction when a forget redacts messages that state a
         * forgotten value (see {@link MemoryEngine#forget}). For our own adapter modules: the
         * redactor type is exported to them only.
         */
        void addRedactor(MessageRedactor redactor);

        /** Removes a redactor added with {@link #addRedactor}; false when it was not added. */
        boolean removeRedactor(MessageRedactor redactor);

        /**
         * Whether embedding vectors of the user's texts are kept in the store, next to the events
         * (the store keeps them, {@link EventStore#keepsVectors}, and payloads are not encrypted:
         * a vector in the clear would tell about a sealed text). When false, the vector calls
         * below keep and find nothing.
         */
        boolean keepsVectors();

        /**
         * The caller's stored vectors of {@code items} made by {@code model}, by item (one round
         * trip); items without one are missing. For derived data (an episodic index) that embeds
         * the log's texts: another instance, or this one after a restart, loads them instead of
         * embedding again.
         */
        Map<String, StoredVector> storedVectors(Caller caller, VectorModel model, Collection<String> items);

        /** Keeps vectors of the caller's texts (see {@link EventStore#saveVectors}). */
        void storeVectors(Caller caller, VectorModel model, List<StoredVector> vectors);

        /**
         * Deletes the caller's stored vectors of {@code items}, in every model: derived data that
         * drops a forgotten item calls it (a forget of the whole user deletes all of them itself).
         */
        void deleteStoredVectors(Caller caller, Collection<String> items);
    }
}

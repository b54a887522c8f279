package dev.agentmemory.core;

import dev.agentmemory.core.internal.Ids;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;
import dev.agentmemory.core.MemoryRecord.Access;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.core.MemoryRecord.Trust;
import dev.agentmemory.core.MemoryRecord.Kind;
import java.util.Optional;

/**
 * A proposed write. Whoever writes (application code, a tool, a model) proposes; the engine
 * validates each proposal against the scope, the caller's permissions and the kind rules, and
 * applies it or rejects it with a reason. Build one with {@link #set}, {@link #append} or
 * {@link #invalidate}.
 *
 * @param op         what to do
 * @param scope      where
 * @param key        which value
 * @param value      the new value (for {@code SET}) or the element to add (for {@code APPEND}); null for {@code INVALIDATE}
 * @param kind       what sort of statement it is
 * @param source     who it comes from
 * @param sourceRef  the message or tool call it comes from
 * @param trust      how far to trust it; defaults to the source's default trust
 * @param confidence 0..1
 * @param observedAt when it was observed; null means now
 * @param validFrom  start of the interval it applies to, or open
 * @param validTo    end of the interval it applies to, or open
 * @param ttl        re-verify after this long; null means the engine's default for the kind
 * @param access     which agents may read it
 * @param ownerAgent the agent it belongs to; null means the writing agent
 * @param tags       free labels
 * @param extraction for model-extracted records: which model and prompt produced it
 * @param sensitive  redact the value from readable logs (the engine may also mark it by kind or key)
 * @param reason     why, for invalidations
 * @param expectedVersion the version the key's current value must have for the write to be made
 *                   (compare-and-set), 0 for "the key has no current value"; null for no expectation.
 *                   See {@link Builder#expectVersion}
 */
public record Proposal(
        Op op,
        Scope scope,
        MemoryKey key,
        @Nullable MemoryValue value,
        Kind kind,
        Source source,
        @Nullable String sourceRef,
        Trust trust,
        double confidence,
        @Nullable Instant observedAt,
        @Nullable Instant validFrom,
        @Nullable Instant validTo,
        @Nullable Duration ttl,
        Access access,
        @Nullable String ownerAgent,
        Set<String> tags,
        MemoryRecord.@Nullable Extraction extraction,
        boolean sensitive,
        @Nullable String reason,
        @Nullable Long expectedVersion) {

    /** What a proposal does. */
    public enum Op {
        /** Write a new version of the key. */
        SET,
        /** Add an element to the key's list value (a new version holding the longer list). */
        APPEND,
        /** End the key's current value (a soft forget of the key). */
        INVALIDATE
    }

    public Proposal {
        Objects.requireNonNull(op, "op");
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(trust, "trust");
        Objects.requireNonNull(access, "access");
        if (op != Op.INVALIDATE && value == null) {
            throw new IllegalArgumentException(op + " of " + key + " needs a value");
        }
        if (!(confidence >= 0.0 && confidence <= 1.0)) {
            throw new IllegalArgumentException("confidence must be within 0..1: " + confidence);
        }
        if (validFrom != null && validTo != null && !validFrom.isBefore(validTo)) {
            throw new IllegalArgumentException("validFrom must be before validTo: " + validFrom + " >= " + validTo);
        }
        if (ttl != null && (ttl.isNegative() || ttl.isZero())) {
            throw new IllegalArgumentException("ttl must be positive: " + ttl);
        }
        if (ownerAgent != null) {
            Ids.check(ownerAgent, "ownerAgent");
        }
        if (sourceRef != null && sourceRef.length() > 512) {
            throw new IllegalArgumentException("sourceRef longer than 512 characters");
        }
        for (String tag : tags) {
            if (tag == null || tag.isBlank() || tag.length() > 64) {
                throw new IllegalArgumentException("tags must be 1-64 characters: " + (tag == null ? "null" : Ids.quote(tag)));
            }
        }
        if (expectedVersion != null && expectedVersion < 0) {
            throw new IllegalArgumentException("expected version of " + key + " must be 0 (absent) or more: "
                    + expectedVersion);
        }
        tags = Set.copyOf(tags);
    }

    /** A proposal without an expected version (the form before {@code expectedVersion} existed). */
    public Proposal(Op op, Scope scope, MemoryKey key, @Nullable MemoryValue value, Kind kind, Source source,
                    @Nullable String sourceRef, Trust trust, double confidence, @Nullable Instant observedAt,
                    @Nullable Instant validFrom, @Nullable Instant validTo, @Nullable Duration ttl, Access access,
                    @Nullable String ownerAgent, Set<String> tags, MemoryRecord.@Nullable Extraction extraction,
                    boolean sensitive, @Nullable String reason) {
        this(op, scope, key, value, kind, source, sourceRef, trust, confidence, observedAt, validFrom, validTo, ttl,
                access, ownerAgent, tags, extraction, sensitive, reason, null);
    }

    /** Proposes a new value for {@code key}. */
    public static Builder set(Scope scope, MemoryKey key, MemoryValue value) {
        return new Builder(Op.SET, scope, key, Objects.requireNonNull(value, "value"));
    }

    /** Proposes a new string value for {@code key}. */
    public static Builder set(Scope scope, String key, String value) {
        return set(scope, MemoryKey.of(key), MemoryValue.of(value));
    }

    /** Proposes adding {@code element} to the list held by {@code key}. */
    public static Builder append(Scope scope, MemoryKey key, MemoryValue element) {
        return new Builder(Op.APPEND, scope, key, Objects.requireNonNull(element, "element"));
    }

    /** Proposes ending the current value of {@code key}. */
    public static Builder invalidate(Scope scope, MemoryKey key) {
        return new Builder(Op.INVALIDATE, scope, key, null);
    }

    /** A builder starting from this proposal. */
    public Builder toBuilder() {
        Builder b = new Builder(op, scope, key, value);
        b.kind = kind;
        b.source = source;
        b.sourceRef = sourceRef;
        b.trust = trust;
        b.trustSet = true;
        b.confidence = confidence;
        b.observedAt = observedAt;
        b.validFrom = validFrom;
        b.validTo = validTo;
        b.ttl = ttl;
        b.access = access;
        b.ownerAgent = ownerAgent;
        b.tags.addAll(tags);
        b.extraction = extraction;
        b.sensitive = sensitive;
        b.reason = reason;
        b.expectedVersion = expectedVersion;
        return b;
    }

    /**
     * The kind rule this proposal breaks whoever proposes it (an untrusted source writing a
     * preference, a decision or a rule-like tag, and the like), as the reason the engine would
     * reject it with; empty when the kind rules allow it. Scope, permission, conflict and size
     * checks are not part of it: they depend on the engine's state and settings.
     */
    public java.util.Optional<String> ruleViolation() {
        return KindRules.violation(this);
    }

    /** {@link #ruleViolation()}, instruction-like text recognized by {@code detector} (the engine's). */
    public java.util.Optional<String> ruleViolation(dev.agentmemory.core.policy.InstructionDetector detector) {
        return KindRules.violation(this, detector);
    }

    /** Builds a {@link Proposal}. Defaults: kind TASK_FACT, source USER, trust from source, confidence 1, public. */
    public static final class Builder {
        private final Op op;
        private final Scope scope;
        private final MemoryKey key;
        private final @Nullable MemoryValue value;
        private Kind kind = Kind.TASK_FACT;
        private Source source = Source.USER;
        private @Nullable String sourceRef;
        private Trust trust = Trust.TRUSTED;
        private boolean trustSet;
        private double confidence = 1.0;
        private @Nullable Instant observedAt;
        private @Nullable Instant validFrom;
        private @Nullable Instant validTo;
        private @Nullable Duration ttl;
        private Access access = Access.PUBLIC;
        private @Nullable String ownerAgent;
        private final Set<String> tags = new LinkedHashSet<>();
        private MemoryRecord.@Nullable Extraction extraction;
        private boolean sensitive;
        private @Nullable String reason;
        private @Nullable Long expectedVersion;

        private Builder(Op op, Scope scope, MemoryKey key, @Nullable MemoryValue value) {
            this.op = op;
            this.scope = Objects.requireNonNull(scope, "scope");
            this.key = Objects.requireNonNull(key, "key");
            this.value = value;
        }

        public Builder kind(Kind kind) {
            this.kind = Objects.requireNonNull(kind, "kind");
            return this;
        }

        /** Who it comes from; also sets the trust to the source's default unless trust was set. */
        public Builder source(Source source) {
            this.source = Objects.requireNonNull(source, "source");
            return this;
        }

        public Builder source(Source source, String sourceRef) {
            this.sourceRef = Objects.requireNonNull(sourceRef, "sourceRef");
            return source(source);
        }

        public Builder trust(Trust trust) {
            this.trust = Objects.requireNonNull(trust, "trust");
            this.trustSet = true;
            return this;
        }

        public Builder confidence(double confidence) {
            this.confidence = confidence;
            return this;
        }

        public Builder observedAt(Instant observedAt) {
            this.observedAt = Objects.requireNonNull(observedAt, "observedAt");
            return this;
        }

        /** The interval the value applies to; either end may be null for open. */
        public Builder validity(@Nullable Instant from, @Nullable Instant to) {
            this.validFrom = from;
            this.validTo = to;
            return this;
        }

        public Builder ttl(Duration ttl) {
            this.ttl = Objects.requireNonNull(ttl, "ttl");
            return this;
        }

        public Builder access(Access access) {
            this.access = Objects.requireNonNull(access, "access");
            return this;
        }

        public Builder owner(String ownerAgent) {
            this.ownerAgent = Objects.requireNonNull(ownerAgent, "ownerAgent");
            return this;
        }

        public Builder tag(String tag) {
            this.tags.add(Objects.requireNonNull(tag, "tag"));
            return this;
        }

        public Builder extractedBy(String model, String promptVersion) {
            this.extraction = new MemoryRecord.Extraction(model, promptVersion);
            return this;
        }

        public Builder sensitive() {
            this.sensitive = true;
            return this;
        }

        public Builder reason(String reason) {
            this.reason = Objects.requireNonNull(reason, "reason");
            return this;
        }

        /**
         * Makes the write conditional (compare-and-set): it is made only if the key's current
         * value in this scope has version {@code version} ({@link MemoryRecord#version()}, as
         * {@code current} or {@code keyState} shows it; a value past its re-verify deadline
         * counts), and {@code 0} means "the key has no current value" (never written, or
         * invalidated or forgotten since). Otherwise the call throws
         * {@link StaleVersionException} naming the key, the expected and the actual version, and
         * writes nothing: in a {@code propose} batch a single mismatch fails the whole batch,
         * nothing of it is written (each proposal is checked against the state after the
         * batch's earlier proposals). The usual optimistic update: read the current record,
         * compute the new value, write it with {@code expectVersion(read.version())}, and on
         * {@code StaleVersionException} read again and retry.
         *
         * @throws IllegalArgumentException when {@code version} is negative
         */
        public Builder expectVersion(long version) {
            if (version < 0) {
                throw new IllegalArgumentException("expected version of " + key + " must be 0 (absent) or more: " + version);
            }
            this.expectedVersion = version;
            return this;
        }

        public Proposal build() {
            Trust t = trustSet ? trust : source.defaultTrust();
            return new Proposal(op, scope, key, value, kind, source, sourceRef, t, confidence, observedAt, validFrom,
                    validTo, ttl, access, ownerAgent, tags, extraction, sensitive, reason, expectedVersion);
        }
    }

    /**
     * What became of one proposal.
     *
     * @param proposal the proposal
     * @param result   applied, recorded as a conflict, or rejected
     * @param record   the record written (for applied and conflict results); for an applied
     *                 {@linkplain Proposal#invalidate invalidation}, the version it ended, as the
     *                 tombstone the state holds from then on (status forgotten, no value)
     * @param reason   why it was rejected or recorded as a conflict
     */
    public record Outcome(Proposal proposal, Result result, @Nullable MemoryRecord record, @Nullable String reason) {

        /** The three ends of a proposal. */
        public enum Result {
            /** Written as the current version. */
            APPLIED,
            /** Written as a conflict candidate beside the current version; reads surface it. */
            CONFLICT,
            /** Not written. */
            REJECTED
        }

        public Outcome {
            Objects.requireNonNull(proposal, "proposal");
            Objects.requireNonNull(result, "result");
            if (result == Result.REJECTED && reason == null) {
                throw new IllegalArgumentException("a rejection needs a reason");
            }
        }

        /** A proposal applied as {@code r}. */
        public static Outcome applied(Proposal p, MemoryRecord r) {
            return new Outcome(p, Result.APPLIED, r, null);
        }

        /** A proposal held as a conflict with the current value, as {@code r}. */
        public static Outcome conflict(Proposal p, MemoryRecord r, String reason) {
            return new Outcome(p, Result.CONFLICT, r, reason);
        }

        /** A proposal rejected for {@code reason}. */
        public static Outcome rejected(Proposal p, String reason) {
            return new Outcome(p, Result.REJECTED, null, reason);
        }

        public boolean isApplied() {
            return result == Result.APPLIED;
        }

        public boolean isRejected() {
            return result == Result.REJECTED;
        }

        /** The written record, for applied and conflict results (for an invalidation, the version it ended). */
        public Optional<MemoryRecord> written() {
            return Optional.ofNullable(record);
        }
    }
}

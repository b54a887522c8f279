package dev.agentmemory.core;

import org.jspecify.annotations.Nullable;

import java.time.Instant;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import dev.agentmemory.core.internal.Ids;

/**
 * One version of a remembered value, with everything needed to judge it: where it lives, who
 * said it, how far to trust it, when it applies and what became of it. Immutable.
 *
 * @param id           unique id of this version
 * @param scope        where the record lives
 * @param key          the name of the value
 * @param value        the value; {@code null} only for a forgotten record (a tombstone)
 * @param kind         what sort of statement this is
 * @param source       who it came from
 * @param sourceRef    the message or tool call it came from, when known
 * @param trust        whether it may steer the assistant
 * @param confidence   the writer's confidence, 0..1
 * @param observedAt   when the fact was observed
 * @param validFrom    start of the interval the value applies to (inclusive), or open
 * @param validTo      end of the interval the value applies to (exclusive), or open
 * @param expiresAt    re-verify deadline; after it the value is not served as current
 * @param status       lifecycle status as recorded in the log
 * @param version      1 for the first version of a key in its scope, then +1 per version
 * @param supersedes   id of the version this one replaced, if any
 * @param conflictsWith id of the current version this one disagrees with, for conflicts
 * @param access       which agents may read it
 * @param ownerAgent   the agent the record belongs to
 * @param writerAgent  the agent that wrote it
 * @param tags         free labels
 * @param extraction   the model and prompt version that extracted it, for extracted records
 * @param verification whether it was checked
 * @param evidence     what the confirmation or verifier said
 * @param sensitive    whether the value is redacted from readable logs
 * @param archived     whether the collector moved it out of the active view
 * @param recordedAt   when the engine recorded it
 * @param seq          log sequence number of the event that wrote it
 */
public record MemoryRecord(
        String id,
        Scope scope,
        MemoryKey key,
        @Nullable MemoryValue value,
        Kind kind,
        Source source,
        @Nullable String sourceRef,
        Trust trust,
        double confidence,
        Instant observedAt,
        @Nullable Instant validFrom,
        @Nullable Instant validTo,
        @Nullable Instant expiresAt,
        Status status,
        long version,
        @Nullable String supersedes,
        @Nullable String conflictsWith,
        Access access,
        String ownerAgent,
        String writerAgent,
        Set<String> tags,
        @Nullable Extraction extraction,
        Verification verification,
        @Nullable String evidence,
        boolean sensitive,
        boolean archived,
        Instant recordedAt,
        long seq) {

    public MemoryRecord {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(trust, "trust");
        Objects.requireNonNull(observedAt, "observedAt");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(access, "access");
        Objects.requireNonNull(ownerAgent, "ownerAgent");
        Objects.requireNonNull(writerAgent, "writerAgent");
        Objects.requireNonNull(verification, "verification");
        Objects.requireNonNull(recordedAt, "recordedAt");
        if (value == null && status != Status.FORGOTTEN) {
            throw new IllegalArgumentException("only a forgotten record has no value: " + id);
        }
        if (!(confidence >= 0.0 && confidence <= 1.0)) {
            throw new IllegalArgumentException("confidence must be within 0..1: " + confidence);
        }
        if (version < 1) {
            throw new IllegalArgumentException("version must be >= 1: " + version);
        }
        if (validFrom != null && validTo != null && !validFrom.isBefore(validTo)) {
            throw new IllegalArgumentException("validFrom must be before validTo: " + validFrom + " >= " + validTo);
        }
        tags = tags.isEmpty() ? Set.of() : Set.copyOf(new TreeSet<>(tags));
    }

    /** The entity this record is about, when its key names one. */
    public @Nullable String entity() {
        return key.entity().orElse(null);
    }

    /** Whether the re-verify deadline has passed at {@code now}. */
    public boolean isExpiredAt(Instant now) {
        return status == Status.EXPIRED || (expiresAt != null && !now.isBefore(expiresAt));
    }

    /** Whether the validity interval contains {@code date}. */
    public boolean appliesAt(Instant date) {
        return (validFrom == null || !date.isBefore(validFrom)) && (validTo == null || date.isBefore(validTo));
    }

    /** The value's text, or an empty string for a tombstone. */
    public String text() {
        return value == null ? "" : value.text();
    }

    /** The record's fields; a sensitive record's value is redacted, so logging a record cannot leak it. */
    @Override
    public String toString() {
        return "MemoryRecord[" + "id=" + id + ", "
                + "scope=" + scope + ", "
                + "key=" + key + ", "
                + "value=" + (sensitive && value != null ? "[redacted]" : value) + ", "
                + "kind=" + kind + ", "
                + "source=" + source + ", "
                + "sourceRef=" + sourceRef + ", "
                + "trust=" + trust + ", "
                + "confidence=" + confidence + ", "
                + "observedAt=" + observedAt + ", "
                + "validFrom=" + validFrom + ", "
                + "validTo=" + validTo + ", "
                + "expiresAt=" + expiresAt + ", "
                + "status=" + status + ", "
                + "version=" + version + ", "
                + "supersedes=" + supersedes + ", "
                + "conflictsWith=" + conflictsWith + ", "
                + "access=" + access + ", "
                + "ownerAgent=" + ownerAgent + ", "
                + "writerAgent=" + writerAgent + ", "
                + "tags=" + tags + ", "
                + "extraction=" + extraction + ", "
                + "verification=" + verification + ", "
                + "evidence=" + evidence + ", "
                + "sensitive=" + sensitive + ", "
                + "archived=" + archived + ", "
                + "recordedAt=" + recordedAt + ", "
                + "seq=" + seq + "]";
    }

    /** Whether {@code agent} may read this record. */
    public boolean readableBy(String agent) {
        return switch (access) {
            case PUBLIC -> true;
            case PROTECTED -> agent.equals(ownerAgent) || agent.equals(writerAgent);
            case PRIVATE -> agent.equals(writerAgent);
        };
    }

    MemoryRecord withStatus(Status newStatus) {
        return new MemoryRecord(id, scope, key, value, kind, source, sourceRef, trust, confidence, observedAt,
                validFrom, validTo, expiresAt, newStatus, version, supersedes, conflictsWith, access, ownerAgent,
                writerAgent, tags, extraction, verification, evidence, sensitive, archived, recordedAt, seq);
    }

    /** A copy with the given status (used by replay). */
    public MemoryRecord status(Status newStatus) {
        return withStatus(newStatus);
    }

    /** A tombstone of this record: same metadata, no value. */
    public MemoryRecord tombstone() {
        return new MemoryRecord(id, scope, key, null, kind, source, sourceRef, trust, confidence, observedAt,
                validFrom, validTo, expiresAt, Status.FORGOTTEN, version, supersedes, conflictsWith, access,
                ownerAgent, writerAgent, tags, extraction, verification, null, sensitive, archived, recordedAt, seq);
    }

    /** A copy carrying a verification verdict. */
    public MemoryRecord verified(Verification newVerification, @Nullable String newEvidence) {
        return new MemoryRecord(id, scope, key, value, kind, source, sourceRef, trust, confidence, observedAt,
                validFrom, validTo, expiresAt, status, version, supersedes, conflictsWith, access, ownerAgent,
                writerAgent, tags, extraction, newVerification, newEvidence, sensitive, archived, recordedAt, seq);
    }

    /** A copy moved out of (or back into) the active view. */
    public MemoryRecord archived(boolean isArchived) {
        return new MemoryRecord(id, scope, key, value, kind, source, sourceRef, trust, confidence, observedAt,
                validFrom, validTo, expiresAt, status, version, supersedes, conflictsWith, access, ownerAgent,
                writerAgent, tags, extraction, verification, evidence, sensitive, isArchived, recordedAt, seq);
    }

    /** The model and prompt version that produced an extracted record. */
    public record Extraction(String model, String promptVersion) {
        public Extraction {
            Objects.requireNonNull(model, "model");
            Objects.requireNonNull(promptVersion, "promptVersion");
        }
    }

    /** Which agents of the same user may read a record. */
    public enum Access {
        /** Every agent acting for the user. */
        PUBLIC,
        /** Only the record's owner agent (and its writer). */
        PROTECTED,
        /** Only the agent that wrote it. */
        PRIVATE
    }

    /** Lifecycle status of one version of a record, as recorded in the log. */
    public enum Status {
        /** The current version of its key. */
        ACTIVE,
        /** Replaced by a newer version; kept in history, never read as current. */
        SUPERSEDED,
        /** Disagrees with the current version and was not allowed to replace it; surfaced on read. */
        CONFLICT,
        /** Past its re-verify deadline; not served as current. */
        EXPIRED,
        /** Forgotten: a tombstone without its value. */
        FORGOTTEN
    }

    /** Whether a record's content was checked. */
    public enum Verification {
        /** Not subject to verification (stated by a trusted source, or an observation). */
        NONE,
        /** Extracted by a model; waits for the user's confirmation or a verifier. */
        CANDIDATE,
        /** Confirmed by the user. */
        CONFIRMED,
        /** Checked by a registered verifier and found true. */
        VERIFIED,
        /** Checked by a registered verifier and found false; never served as current. */
        REFUTED;

        /** Whether a read asking for verified records only may return a record in this state. */
        public boolean countsAsVerified(Trust trust) {
            return this == CONFIRMED || this == VERIFIED || (this == NONE && trust == Trust.TRUSTED);
        }
    }

    /** Who a record came from. */
    public enum Source {
        /** Stated by the user in a message. Trusted by default. */
        USER,
        /** Returned by a tool or read from a document. Untrusted by default. */
        TOOL,
        /** Extracted or concluded by a model. Untrusted by default and a candidate until verified. */
        MODEL,
        /** Written by the application itself. Trusted by default. */
        SYSTEM;

        /** The trust a record from this source gets when the writer does not say. */
        public Trust defaultTrust() {
            return this == USER || this == SYSTEM ? Trust.TRUSTED : Trust.UNTRUSTED;
        }
    }

    /** Whether a record may steer the assistant. Untrusted records are data, never rules. */
    public enum Trust {
        UNTRUSTED,
        TRUSTED;

        /** Whether this trust is at least {@code other}. */
        public boolean atLeast(Trust other) {
            return compareTo(other) >= 0;
        }
    }

    /** What sort of statement a record is; write rules differ by kind. */
    public enum Kind {
        /** How the user wants to be served ("answer in Chinese"); only trusted sources may write one. */
        PREFERENCE,
        /** A fact about the current task ("this trip is to Hailan"); never persistent by itself. */
        TASK_FACT,
        /** What a tool or document returned; untrusted unless the application vouches for it. */
        OBSERVATION,
        /** Something a model concluded; never overwrites what the user stated. */
        INFERENCE,
        /** A choice made in the conversation ("exchange, not refund"). */
        DECISION,
        /** A pointer to an outside resource (a policy document, an order). */
        REFERENCE;

        /**
         * The kind a name denotes, ignoring case and accepting {@code -} or a space for {@code _}
         * ({@code "task-fact"}, {@code "Task fact"}); fails naming the unknown name and the known ones.
         */
        public static Kind parse(String name) {
            java.util.Objects.requireNonNull(name, "name");
            String normalized = name.trim().replace('-', '_').replace(' ', '_').toUpperCase(java.util.Locale.ROOT);
            for (Kind k : values()) {
                if (k.name().equals(normalized)) {
                    return k;
                }
            }
            throw new IllegalArgumentException("unknown kind " + Ids.quote(name) + ": expected one of "
                    + java.util.Arrays.stream(values()).map(k -> k.name().toLowerCase(java.util.Locale.ROOT)).toList());
        }
    }
}

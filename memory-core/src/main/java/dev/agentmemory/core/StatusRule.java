package dev.agentmemory.core;

import org.jspecify.annotations.Nullable;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import dev.agentmemory.core.MemoryRecord.Status;
import dev.agentmemory.core.MemoryRecord.Verification;
import dev.agentmemory.core.Scope.Layer;
import java.util.Locale;

/**
 * The one rule that decides what an item shown to the model is at the time of a read: from the
 * record (or the records a message or summary states), its key's history, its task's status and
 * holder, its validity window and re-verify deadline, and the time of the read. Every read path
 * uses it: {@link dev.agentmemory.core.engine.MemoryEngine#current}, {@link dev.agentmemory.core.engine.MemoryEngine#view}, {@link dev.agentmemory.core.engine.MemoryEngine#keyState},
 * {@link dev.agentmemory.core.engine.MemoryEngine#asOf} and, through {@link dev.agentmemory.core.engine.MemoryEngine#judge}, the layers of the LangChain4j
 * adapter's block and its tools.
 *
 * <p><b>Which version applies.</b> Of a key's versions up to its newest current one (status
 * active or expired, not refuted; none after an invalidation or a forget), the newest whose
 * validity window contains the time of the read applies: the same version
 * {@link dev.agentmemory.core.engine.MemoryEngine#applicableAt} returns for that time. A newer version whose window has not
 * begun is {@link ItemStatus#UPCOMING}; one whose window has ended is
 * {@link ItemStatus#NO_LONGER_VALID}; an older one is {@link ItemStatus#SUPERSEDED}.
 *
 * <p><b>One record</b>, in this order: refuted or replaced by the version that applies:
 * superseded; archived by the collector, or state of a task that ended (or is unknown): archived;
 * a conflict candidate: conflict unless its own window rules it out (upcoming, no longer valid);
 * a newer version out of its window: upcoming or no longer valid; the version that applies, past
 * its re-verify deadline: needs re-verification; otherwise current, except that state of a
 * suspended task is past (and not served as a record while the asking session, or the session
 * holding the task, has an active task).
 *
 * <p><b>A past message</b> is past, unless a record it states is stronger: superseded (unless the
 * message also states the version that applies), archived, no longer valid, needs
 * re-verification, upcoming, conflict, in that order. <b>A summary</b> is current unless a record
 * it was built from is stronger (superseded even when the summary also states what applies: it is
 * read as a whole). Pure functions; thread-safe.
 */
public final class StatusRule {

    private StatusRule() {
    }

    /** How an item reaches the model. */
    public enum Form {
        /** A record itself: session or task state, persistent memory, an episodic record hit. */
        RECORD,
        /** A past message that states records (their source message, or their value in its words). */
        MESSAGE,
        /** A summary built from records. */
        SUMMARY
    }

    /**
     * A record an item states, with what its status depends on.
     *
     * @param record  the record (not forgotten)
     * @param history every version of its key in its scope, oldest first (tombstones included)
     * @param task    the task whose scope holds it, for task state; null outside the task layer or when the task is unknown
     */
    public record Stated(MemoryRecord record, List<MemoryRecord> history, @Nullable TaskInfo task) {
        public Stated {
            Objects.requireNonNull(record, "record");
            history = List.copyOf(history);
            if (record.value() == null) {
                throw new IllegalArgumentException("a forgotten record is not stated by anything: " + record.id());
            }
        }
    }

    /**
     * Who reads, and when.
     *
     * @param now                    the time of the read
     * @param askingSession          the session the read is for, if any
     * @param sessionsWithActiveTask the sessions of the user holding an active task
     */
    public record Reader(Instant now, @Nullable String askingSession, Set<String> sessionsWithActiveTask) {
        public Reader {
            Objects.requireNonNull(now, "now");
            sessionsWithActiveTask = Set.copyOf(sessionsWithActiveTask);
        }

        /** A reader at {@code now} outside any session. */
        public static Reader at(Instant now) {
            return new Reader(now, null, Set.of());
        }
    }

    /**
     * What an item is.
     *
     * @param status     its status
     * @param served     false when it must not reach the model as a record (state of a suspended task while a task is active)
     * @param decidedBy  the stated record whose status is the item's (null when it states none)
     * @param task       the task of {@code decidedBy}, or of a task record the item states, when known
     * @param replacedBy for a superseded item, the versions that apply now in place of what it states
     */
    public record Judgement(ItemStatus status, boolean served, @Nullable MemoryRecord decidedBy,
                            @Nullable TaskInfo task, List<MemoryRecord> replacedBy) {
        public Judgement {
            Objects.requireNonNull(status, "status");
            replacedBy = List.copyOf(replacedBy);
        }
    }

    /** The status of one record of a key with {@code history}, in the scope of {@code task}, at {@code now}. */
    public static ItemStatus of(MemoryRecord record, List<MemoryRecord> history, @Nullable TaskInfo task, Instant now) {
        return Timeline.of(history, now).status(record, task, now);
    }

    /** The version of a key with {@code history} that applies at {@code now}, if any. */
    public static Optional<MemoryRecord> applying(List<MemoryRecord> history, Instant now) {
        return Optional.ofNullable(Timeline.of(history, now).applying());
    }

    /** What an item of {@code form} that states {@code stated} is for {@code reader}. */
    public static Judgement judge(Form form, List<Stated> stated, Reader reader) {
        Objects.requireNonNull(form, "form");
        Objects.requireNonNull(reader, "reader");
        if (form == Form.RECORD && stated.size() != 1) {
            throw new IllegalArgumentException("a record item states exactly one record: " + stated.size());
        }
        Set<String> statedIds = new HashSet<>();
        stated.forEach(s -> statedIds.add(s.record().id()));
        ItemStatus best = form == Form.SUMMARY || form == Form.RECORD ? ItemStatus.CURRENT : ItemStatus.PAST;
        Stated decided = null;
        Stated aboutTask = null;
        Map<String, MemoryRecord> replacedBy = new LinkedHashMap<>();
        for (Stated s : stated) {
            Timeline t = Timeline.of(s.history(), reader.now());
            ItemStatus status = t.status(s.record(), s.task(), reader.now());
            MemoryRecord applying = t.applying();
            if (status == ItemStatus.SUPERSEDED) {
                if (form == Form.MESSAGE && applying != null && statedIds.contains(applying.id())) {
                    continue; // "German, not French": a message that also states what applies is not stale
                }
                if (applying != null && !applying.id().equals(s.record().id())) {
                    replacedBy.put(applying.id(), applying);
                }
            }
            if (form == Form.MESSAGE && status == ItemStatus.CURRENT) {
                status = ItemStatus.PAST; // a message is never the current value itself
            }
            if (status.strongerThan(best) || (status == best && decided == null)) {
                best = status;
                decided = s;
            }
            if (aboutTask == null && s.record().scope().layer() == Layer.TASK && status != ItemStatus.SUPERSEDED) {
                aboutTask = s;
            }
        }
        if (decided != null && decided.record().scope().layer() != Layer.TASK && aboutTask != null
                && (best == ItemStatus.PAST || best == ItemStatus.CURRENT)) {
            decided = aboutTask;
        }
        boolean served = true;
        TaskInfo task = decided == null ? null : decided.task();
        if (form == Form.RECORD && best == ItemStatus.PAST && task != null && task.status() == TaskInfo.Status.SUSPENDED) {
            Set<String> busy = reader.sessionsWithActiveTask();
            served = !(reader.askingSession() != null && busy.contains(reader.askingSession())) && !busy.contains(task.heldBy());
        }
        return new Judgement(best, served, decided == null ? null : decided.record(), task,
                best == ItemStatus.SUPERSEDED ? new ArrayList<>(replacedBy.values()) : List.of());
    }

    /**
     * One key's versions read at one time: its newest current version and the version that
     * applies. For the engine's reads; the statuses it gives are those of {@link #of(MemoryRecord, List, Instant)}.
     */
    public static final class Timeline {
        /** Histories up to this long are searched for a version rather than indexed by id. */
        private static final int SEARCHED_UP_TO = 8;

        /** Each version's position by id, for a longer history; null for a short one. */
        private final @Nullable Map<String, Integer> index;
        private final int head;
        private final int applying;
        private final List<MemoryRecord> history;

        private Timeline(List<MemoryRecord> history, @Nullable Map<String, Integer> index, int head, int applying) {
            this.history = history;
            this.index = index;
            this.head = head;
            this.applying = applying;
        }

        /** The timeline of {@code history} (a key's versions, oldest first) at {@code now}. */
        public static Timeline of(List<MemoryRecord> history, Instant now) {
            Map<String, Integer> index = history.size() > SEARCHED_UP_TO ? new HashMap<>() : null;
            int head = -1;
            for (int i = 0; i < history.size(); i++) {
                MemoryRecord r = history.get(i);
                if (index != null) {
                    index.put(r.id(), i);
                }
                if ((r.status() == Status.ACTIVE || r.status() == Status.EXPIRED) && r.value() != null
                        && r.verification() != Verification.REFUTED) {
                    head = i;
                }
            }
            int applying = -1;
            for (int i = head; i >= 0; i--) {
                MemoryRecord r = history.get(i);
                if (isVersion(r) && r.appliesAt(now)) {
                    applying = i;
                    break;
                }
            }
            return new Timeline(history, index, head, applying);
        }

        private static boolean isVersion(MemoryRecord r) {
            return (r.status() == Status.ACTIVE || r.status() == Status.EXPIRED || r.status() == Status.SUPERSEDED)
                    && r.value() != null && r.verification() != Verification.REFUTED;
        }

        @Nullable MemoryRecord applying() {
            return applying < 0 ? null : history.get(applying);
        }

        ItemStatus status(MemoryRecord r, @Nullable TaskInfo task, Instant now) {
            ItemStatus own = own(r, now);
            if (own == ItemStatus.SUPERSEDED) {
                return own;
            }
            boolean taskLayer = r.scope().layer() == Layer.TASK;
            if (r.archived() || (taskLayer && (task == null || task.status() == TaskInfo.Status.ENDED))) {
                return ItemStatus.ARCHIVED;
            }
            if (own == ItemStatus.CURRENT && taskLayer && task != null && task.status() == TaskInfo.Status.SUSPENDED) {
                return ItemStatus.PAST;
            }
            return own;
        }

        /**
         * The status from the key's history and the record's window and deadline alone, without
         * its task: what a read of the record's own scope sees (a suspended task's frame as it
         * will be when resumed; an ended task's state when archived state is asked for).
         */
        /** The status of version {@code r} of this key at {@code now}, by its own record alone. */
        public ItemStatus own(MemoryRecord r, Instant now) {
            if (r.verification() == Verification.REFUTED) {
                return ItemStatus.SUPERSEDED;
            }
            if (r.status() == Status.CONFLICT) {
                return window(r, now, ItemStatus.CONFLICT);
            }
            int at = positionOf(r);
            if (at < 0 || !isVersion(r) || head < 0 || at > head) {
                return ItemStatus.SUPERSEDED;
            }
            if (at == applying) {
                return r.isExpiredAt(now) ? ItemStatus.NEEDS_REVERIFICATION : ItemStatus.CURRENT;
            }
            return at > applying ? window(r, now, ItemStatus.SUPERSEDED) : ItemStatus.SUPERSEDED;
        }

        /** The position of the last version with {@code r}'s id, or -1. */
        private int positionOf(MemoryRecord r) {
            if (index != null) {
                Integer at = index.get(r.id());
                return at == null ? -1 : at;
            }
            for (int i = history.size() - 1; i >= 0; i--) {
                if (history.get(i).id().equals(r.id())) {
                    return i;
                }
            }
            return -1;
        }

        private static ItemStatus window(MemoryRecord r, Instant now, ItemStatus inside) {
            if (r.validFrom() != null && now.isBefore(r.validFrom())) {
                return ItemStatus.UPCOMING;
            }
            if (r.validTo() != null && !now.isBefore(r.validTo())) {
                return ItemStatus.NO_LONGER_VALID;
            }
            return inside;
        }
    }

    /**
     * What an item the model may be shown is at the time of a read, as {@link StatusRule} decides it
     * (the README's table "How a read labels an item" gives the precedence). The constants are listed
     * from the strongest to the weakest: when an item states several records (a message, a summary),
     * the strongest status among them is the item's.
     */
    public enum ItemStatus {
        /** States a version replaced by a newer one that applies now, or refuted. */
        SUPERSEDED,
        /** State of a task that ended (or a record the collector archived): history only. */
        ARCHIVED,
        /** A version whose validity window has ended and that nothing newer replaced. */
        NO_LONGER_VALID,
        /** The version that applies now, past its re-verify deadline: check before relying on it. */
        NEEDS_REVERIFICATION,
        /** A version whose validity window has not begun yet ("not yet valid"). */
        UPCOMING,
        /** Disagrees with the current version and was not allowed to replace it. */
        CONFLICT,
        /** State of a task put aside (suspended), or a past message stating what holds now. */
        PAST,
        /** The version that applies now. */
        CURRENT;

        /** The label framed for the model: lower case, words joined by {@code -} ({@code needs-reverification}). */
        public String label() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }

        /** Whether this status wins over {@code other} when an item states both. */
        public boolean strongerThan(ItemStatus other) {
            return ordinal() < other.ordinal();
        }
    }
}

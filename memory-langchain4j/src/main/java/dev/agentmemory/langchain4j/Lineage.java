package dev.agentmemory.langchain4j;

import dev.agentmemory.langchain4j.internal.EnumText;
import com.fasterxml.jackson.databind.JsonNode;
import dev.agentmemory.core.Caller;
import dev.agentmemory.core.KeyState;
import dev.agentmemory.core.Layer;
import dev.agentmemory.core.MemoryEngine;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.ReadOptions;
import dev.agentmemory.core.Scope;
import dev.agentmemory.core.Status;
import dev.agentmemory.core.TaskInfo;
import dev.agentmemory.core.Verification;
import dev.agentmemory.core.event.TaskStatus;
import dev.agentmemory.langchain4j.tools.Summarizer;
import org.jspecify.annotations.Nullable;

import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Labels every derived copy by what became of the records it came from, asked of the engine at
 * the moment of retrieval, so a label never lags the state it describes:
 * <ul>
 *   <li><b>Task state</b> carries its task and the task's status. State of an active task is
 *       served as it is; state of a suspended task is not served while a task is active in the
 *       asking session or in its own session, and otherwise only as {@code past}; state of an
 *       ended task is {@code archived} (history only).</li>
 *   <li><b>A summary</b> records the records it was built from (see {@link Summarizer}). When one
 *       of them has since been superseded or refuted, the summary is labelled {@code superseded}
 *       with {@code superseded-by} naming the key's current version; when one was archived (its
 *       task ended), {@code archived}; when one passed its re-verify deadline,
 *       {@code needs-reverification}. Summaries are relabelled rather than rebuilt: rebuilding
 *       would need a model call on the read path (or inside the writer's commit), could fail or
 *       disagree, and would lose the history the summary holds ("French was asked for, then
 *       German"); the label is computed from the engine's state at the moment it is framed, so it
 *       cannot lag, and the current value is framed beside it. A forgotten source still drops the
 *       summary (the summarizer's forget cascade).</li>
 *   <li><b>A past message</b> states the records it is the source message of, and those whose
 *       value it contains as whole words ({@link dev.agentmemory.langchain4j.internal.Statements}).
 *       When it states a version that has been superseded or refuted and not the key's current
 *       version, it is {@code superseded} with {@code superseded-by}; when it states state of an
 *       ended task, {@code archived} with the task; otherwise {@code past}, with the task and its
 *       status when it states task state.</li>
 * </ul>
 * Stateless apart from a per-retrieval task cache; thread-safe.
 */
final class Lineage {

    static final String CURRENT = "current";
    static final String PAST = "past";
    static final String CONFLICT = "conflict";
    static final String SUPERSEDED = "superseded";
    static final String ARCHIVED = "archived";
    static final String NEEDS_REVERIFICATION = "needs-reverification";

    /** A status and the attributes (keys of {@link MemoryContent}) that go with it. */
    record Label(String status, Map<String, String> attributes) {
        Label {
            Objects.requireNonNull(status, "status");
            attributes = Map.copyOf(attributes);
        }
    }

    private final MemoryEngine engine;

    Lineage(MemoryEngine engine) {
        this.engine = engine;
    }

    /**
     * The user's tasks, read once per retrieval. A task's state lives in the scope of the session
     * that started it; the session holding it now may be another one (a task resumed elsewhere).
     */
    final class Tasks {
        private final Caller caller;
        private @Nullable List<TaskInfo> all;

        Tasks(Caller caller) {
            this.caller = caller;
        }

        /** The task whose state {@code scope} holds. */
        Optional<TaskInfo> of(Scope scope) {
            if (scope.layer() != Layer.TASK) {
                return Optional.empty();
            }
            return all().stream().filter(t -> t.task().equals(scope.task()) && t.session().equals(scope.session()))
                    .findFirst();
        }

        /** Whether {@code session} holds an active task. */
        boolean hasActive(@Nullable String session) {
            return session != null && all().stream()
                    .anyMatch(t -> t.heldBy().equals(session) && t.status() == TaskStatus.ACTIVE);
        }

        /** Whether the session holding the task of {@code scope} has an active task. */
        boolean holderHasActive(Scope scope) {
            return of(scope).map(t -> hasActive(t.heldBy())).orElse(false);
        }

        List<TaskInfo> all() {
            if (all == null) {
                all = engine.tasks().userTasks(caller);
            }
            return all;
        }
    }

    Tasks tasks(Caller caller) {
        return new Tasks(caller);
    }

    /** The task attributes of a record's scope (empty outside the task layer). */
    static Map<String, String> taskAttributes(Scope scope, @Nullable TaskInfo task) {
        if (scope.layer() != Layer.TASK) {
            return Map.of();
        }
        Map<String, String> out = new LinkedHashMap<>();
        out.put(MemoryContent.TASK, Objects.requireNonNull(scope.task()));
        out.put(MemoryContent.TASK_STATUS, task == null ? EnumText.label(TaskStatus.ENDED) : EnumText.label(task.status()));
        return out;
    }

    /**
     * The label of a record about to be served with {@code status} (current, conflict or
     * needs-reverification) to a retrieval for {@code askingSession}, or empty when it must not
     * be served there (state of a suspended task while a task is active).
     */
    Optional<Label> record(MemoryRecord r, String status, @Nullable String askingSession, Tasks tasks) {
        if (r.scope().layer() != Layer.TASK) {
            return Optional.of(new Label(status, Map.of()));
        }
        TaskInfo task = tasks.of(r.scope()).orElse(null);
        Map<String, String> attrs = taskAttributes(r.scope(), task);
        if (task == null || task.status() == TaskStatus.ENDED || r.archived()) {
            Map<String, String> ended = new LinkedHashMap<>(attrs);
            ended.put(MemoryContent.TASK_STATUS, EnumText.label(TaskStatus.ENDED));
            return Optional.of(new Label(ARCHIVED, ended));
        }
        if (task.status() == TaskStatus.SUSPENDED) {
            if (tasks.hasActive(askingSession) || tasks.holderHasActive(r.scope())) {
                return Optional.empty();
            }
            return Optional.of(new Label(PAST, attrs));
        }
        return Optional.of(new Label(status, attrs));
    }

    /** The label of a summary record about to be served with {@code status}. */
    Label summary(Caller caller, MemoryRecord summary, String status, Tasks tasks) {
        List<String> ids = new java.util.ArrayList<>();
        if (summary.value() != null) {
            for (JsonNode link : summary.value().node().path("records")) {
                ids.add(link.path("id").asText());
            }
        }
        Set<String> supersededBy = new LinkedHashSet<>();
        boolean superseded = false;
        boolean expired = false;
        boolean conflict = false;
        Map<String, String> archived = null;
        Map<String, String> suspended = null;
        Instant now = engine.clock().instant();
        for (String id : ids) {
            Optional<MemoryRecord> live = engine.record(caller, id);
            if (live.isEmpty() || live.get().value() == null) {
                continue; // forgotten: the summarizer's cascade drops the summary
            }
            MemoryRecord r = live.get();
            if (isReplaced(r)) {
                // even when it also states what holds now: a summary is read as a whole, and one
                // saying "French, Swedish" must not pass off the replaced French as current
                superseded = true;
                currentOf(caller, r).ifPresent(c -> supersededBy.add(ref(c)));
            } else if (r.scope().layer() == Layer.TASK && (r.archived() || tasks.of(r.scope())
                    .map(t -> t.status() == TaskStatus.ENDED).orElse(true))) {
                if (archived == null) {
                    archived = new LinkedHashMap<>(taskAttributes(r.scope(), null));
                }
            } else if (r.scope().layer() == Layer.TASK && tasks.of(r.scope())
                    .map(t -> t.status() == TaskStatus.SUSPENDED).orElse(false)) {
                if (suspended == null) {
                    suspended = taskAttributes(r.scope(), tasks.of(r.scope()).orElse(null));
                }
            } else if (r.status() == Status.CONFLICT) {
                conflict = true;
            } else if (r.status() == Status.EXPIRED || r.isExpiredAt(now)) {
                expired = true;
            }
        }
        if (superseded) {
            return new Label(SUPERSEDED, supersededBy.isEmpty() ? Map.of()
                    : Map.of(MemoryContent.SUPERSEDED_BY, String.join(",", supersededBy)));
        }
        if (archived != null) {
            return new Label(ARCHIVED, archived);
        }
        if (suspended != null) {
            // states the state of a task put aside: history until the task is resumed
            return new Label(PAST, suspended);
        }
        if (conflict) {
            return new Label(CONFLICT, Map.of());
        }
        return new Label(expired ? NEEDS_REVERIFICATION : status, Map.of());
    }

    /** The label of a past message that states the records {@code stated} (ids). */
    Label message(Caller caller, Collection<String> stated, Tasks tasks) {
        Map<String, MemoryRecord> live = new LinkedHashMap<>();
        for (String id : stated) {
            engine.record(caller, id).filter(r -> r.value() != null).ifPresent(r -> live.put(id, r));
        }
        Set<String> supersededBy = new LinkedHashSet<>();
        boolean superseded = false;
        boolean expired = false;
        Instant now = engine.clock().instant();
        Map<String, String> archived = null;
        Map<String, String> task = null;
        boolean conflict = false;
        for (MemoryRecord r : live.values()) {
            if (!isReplaced(r) && (r.status() == Status.EXPIRED || r.isExpiredAt(now))) {
                expired = true;
            }
            if (r.status() == Status.CONFLICT) {
                conflict = true;
            }
            if (isReplaced(r)) {
                Optional<MemoryRecord> current = currentOf(caller, r);
                // A message that also states what holds now ("German, not French") is not stale.
                if (current.isEmpty() || !live.containsKey(current.get().id())) {
                    superseded = true;
                    current.ifPresent(c -> supersededBy.add(ref(c)));
                }
                continue;
            }
            if (r.scope().layer() == Layer.TASK) {
                TaskInfo t = tasks.of(r.scope()).orElse(null);
                if (t == null || t.status() == TaskStatus.ENDED || r.archived()) {
                    if (archived == null) {
                        archived = new LinkedHashMap<>(taskAttributes(r.scope(), null));
                    }
                } else if (task == null) {
                    task = taskAttributes(r.scope(), t);
                }
            }
        }
        if (superseded) {
            return new Label(SUPERSEDED, supersededBy.isEmpty() ? Map.of()
                    : Map.of(MemoryContent.SUPERSEDED_BY, String.join(",", supersededBy)));
        }
        if (archived != null) {
            return new Label(ARCHIVED, archived);
        }
        if (expired) {
            return new Label(NEEDS_REVERIFICATION, task == null ? Map.of() : task);
        }
        if (conflict) {
            return new Label(CONFLICT, task == null ? Map.of() : task);
        }
        return new Label(PAST, task == null ? Map.of() : task);
    }

    private static boolean isReplaced(MemoryRecord r) {
        return r.status() == Status.SUPERSEDED || r.verification() == Verification.REFUTED;
    }

    /** What holds now for a record's key: its current version, or the one past its re-verify deadline. */
    private Optional<MemoryRecord> currentOf(Caller caller, MemoryRecord r) {
        KeyState k = engine.keyState(caller, r.scope(), r.key(), ReadOptions.DEFAULT);
        MemoryRecord now = k.current() != null ? k.current() : k.needsReverification();
        return Optional.ofNullable(now).filter(c -> !c.id().equals(r.id()));
    }

    /** What a label adds to an item's "why", in words ("" when it adds nothing). */
    static String why(Label label) {
        String by = label.attributes().get(MemoryContent.SUPERSEDED_BY);
        String task = label.attributes().get(MemoryContent.TASK);
        return switch (label.status()) {
            case SUPERSEDED -> "; states a value replaced since" + (by == null ? " (refuted)" : " by " + by);
            case ARCHIVED -> "; state of ended task " + task + ", history only";
            case PAST -> task == null ? "" : "; about task " + task + " ("
                    + label.attributes().get(MemoryContent.TASK_STATUS) + ")";
            default -> "";
        };
    }

    static String ref(MemoryRecord r) {
        return r.key().path() + "@v" + r.version();
    }
}

package dev.agentmemory.langchain4j;

import dev.agentmemory.langchain4j.internal.EnumText;
import com.fasterxml.jackson.databind.JsonNode;
import dev.agentmemory.core.Caller;
import dev.agentmemory.core.StatusRule.ItemStatus;
import dev.agentmemory.core.Scope.Layer;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.Scope;
import dev.agentmemory.core.StatusRule;
import dev.agentmemory.core.TaskInfo;
import dev.agentmemory.langchain4j.tools.Summarizer;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Labels every item of the block, and every derived copy, by the engine's one status rule
 * ({@link StatusRule}, through {@link MemoryEngine#judge}), asked at the moment of retrieval so a
 * label never lags the state it describes, and puts the rule's verdict in the block's words:
 * <ul>
 *   <li><b>A record</b> (session or task state, persistent memory, an episodic record hit) gets
 *       its own status; task state carries its task and the task's status; state of a suspended
 *       task is not served while a task is active in the asking session or in the session holding
 *       it, and otherwise only as {@code past}.</li>
 *   <li><b>A summary</b> records the records it was built from (see {@link Summarizer}) and takes
 *       the strongest of their statuses. Summaries are relabelled rather than rebuilt: rebuilding
 *       would need a model call on the read path (or inside the writer's commit), could fail or
 *       disagree, and would lose the history the summary holds ("French was asked for, then
 *       German"); the current value is framed beside it. A forgotten source still drops the
 *       summary (the summarizer's forget cascade).</li>
 *   <li><b>A past message</b> states the records it is the source message of, and those whose
 *       value it contains as whole words ({@link dev.agentmemory.langchain4j.internal.Statements}),
 *       and is {@code past} unless one of them gives it a stronger status.</li>
 * </ul>
 * A superseded item names what applies in its place ({@code superseded-by}); an upcoming one its
 * {@code valid-from}, one no longer valid its {@code valid-to}. Stateless apart from a
 * per-retrieval task cache; thread-safe.
 */
final class Lineage {

    static final String CURRENT = "current";
    static final String PAST = "past";
    static final String CONFLICT = "conflict";
    static final String SUPERSEDED = "superseded";
    static final String ARCHIVED = "archived";
    static final String NEEDS_REVERIFICATION = "needs-reverification";
    static final String UPCOMING = "upcoming";
    static final String NO_LONGER_VALID = "no-longer-valid";

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
                    .anyMatch(t -> t.heldBy().equals(session) && t.status() == TaskInfo.Status.ACTIVE);
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
        out.put(MemoryContent.TASK_STATUS, task == null ? EnumText.label(TaskInfo.Status.ENDED) : EnumText.label(task.status()));
        return out;
    }

    /**
     * The label of a record about to be served to a retrieval for {@code askingSession}, or empty
     * when it must not be served there (state of a suspended task while a task is active, or a
     * record forgotten meanwhile).
     */
    Optional<Label> record(Caller caller, MemoryRecord r, @Nullable String askingSession) {
        StatusRule.Judgement j;
        try {
            j = engine.judge(caller, StatusRule.Form.RECORD, List.of(r.id()), askingSession);
        } catch (IllegalArgumentException forgottenMeanwhile) {
            return Optional.empty();
        }
        return j.served() ? Optional.of(label(j)) : Optional.empty();
    }

    /** The label of a summary record: by what became of the records it was built from (see {@link Summarizer}). */
    Label summary(Caller caller, MemoryRecord summary) {
        List<String> ids = new ArrayList<>();
        if (summary.value() != null) {
            for (JsonNode link : summary.value().node().path("records")) {
                ids.add(link.path("id").asText());
            }
        }
        return label(engine.judge(caller, StatusRule.Form.SUMMARY, ids, null));
    }

    /** The label of a past message that states the records {@code stated} (ids). */
    Label message(Caller caller, Collection<String> stated) {
        return label(engine.judge(caller, StatusRule.Form.MESSAGE, stated, null));
    }

    /** A judgement in the block's words: its status and the attributes that explain it. */
    static Label label(StatusRule.Judgement j) {
        ItemStatus status = j.status();
        Map<String, String> attrs = new LinkedHashMap<>();
        MemoryRecord by = j.decidedBy();
        if (by != null && status != ItemStatus.SUPERSEDED) {
            attrs.putAll(taskAttributes(by.scope(), status == ItemStatus.ARCHIVED ? null : j.task()));
        }
        if (status == ItemStatus.SUPERSEDED && !j.replacedBy().isEmpty()) {
            attrs.put(MemoryContent.SUPERSEDED_BY, String.join(",", j.replacedBy().stream().map(Lineage::ref).toList()));
        }
        if (by != null && status == ItemStatus.UPCOMING && by.validFrom() != null) {
            attrs.put(MemoryContent.VALID_FROM, by.validFrom().toString());
        }
        if (by != null && status == ItemStatus.NO_LONGER_VALID && by.validTo() != null) {
            attrs.put(MemoryContent.VALID_TO, by.validTo().toString());
        }
        if (by != null && status == ItemStatus.NEEDS_REVERIFICATION && by.expiresAt() != null) {
            attrs.put(MemoryContent.EXPIRES_AT, by.expiresAt().toString());
        }
        return new Label(status.label(), attrs);
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
            case UPCOMING -> "; applies from " + label.attributes().get(MemoryContent.VALID_FROM) + ", not yet";
            case NO_LONGER_VALID -> "; applied until " + label.attributes().get(MemoryContent.VALID_TO) + ", no longer";
            default -> "";
        };
    }

    static String ref(MemoryRecord r) {
        return r.key().path() + "@v" + r.version();
    }
}

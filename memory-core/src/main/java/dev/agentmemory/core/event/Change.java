package dev.agentmemory.core.event;

import dev.agentmemory.core.TaskInfo;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.MemoryValue;
import dev.agentmemory.core.MemoryRecord.Verification;
import org.jspecify.annotations.Nullable;

import java.util.List;
import java.util.Objects;

/**
 * One change to a user's memory, as appended to the log. Replaying every change of a user in
 * sequence order rebuilds that user's state ({@code MemoryState} of the engine).
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
        @JsonSubTypes.Type(value = Change.RecordWritten.class, name = "record-written"),
        @JsonSubTypes.Type(value = Change.RecordsExpired.class, name = "records-expired"),
        @JsonSubTypes.Type(value = Change.RecordsForgotten.class, name = "records-forgotten"),
        @JsonSubTypes.Type(value = Change.RecordVerified.class, name = "record-verified"),
        @JsonSubTypes.Type(value = Change.RecordsArchived.class, name = "records-archived"),
        @JsonSubTypes.Type(value = Change.TaskChanged.class, name = "task-changed"),
        @JsonSubTypes.Type(value = Change.TaskMoved.class, name = "task-moved"),
        @JsonSubTypes.Type(value = Change.AliasRegistered.class, name = "alias-registered"),
        @JsonSubTypes.Type(value = Change.ActionIntended.class, name = "action-intended"),
        @JsonSubTypes.Type(value = Change.ActionCompleted.class, name = "action-completed"),
        @JsonSubTypes.Type(value = Change.MessagesAppended.class, name = "messages-appended"),
        @JsonSubTypes.Type(value = Change.MessagesEvicted.class, name = "messages-evicted"),
        @JsonSubTypes.Type(value = Change.MessagesForgotten.class, name = "messages-forgotten"),
        @JsonSubTypes.Type(value = Change.MessagesRedacted.class, name = "messages-redacted"),
        @JsonSubTypes.Type(value = Change.UserForgotten.class, name = "user-forgotten")
})
public sealed interface Change {

    /** The short name stored beside the payload. */
    default String type() {
        JsonSubTypes.Type[] types = Change.class.getAnnotation(JsonSubTypes.class).value();
        for (JsonSubTypes.Type t : types) {
            if (t.value() == getClass()) {
                return t.name();
            }
        }
        throw new IllegalStateException("unregistered change " + getClass());
    }

    /** A new version of a key; {@code superseded} lists the versions it replaced. */
    record RecordWritten(MemoryRecord record, List<String> superseded) implements Change {
        public RecordWritten {
            Objects.requireNonNull(record, "record");
            superseded = List.copyOf(superseded);
        }
    }

    /** Records whose re-verify deadline passed. */
    record RecordsExpired(List<String> ids) implements Change {
        public RecordsExpired {
            ids = List.copyOf(ids);
        }
    }

    /**
     * Records forgotten; their values are gone from the state (and, when hard, from the log).
     * {@code erased} marks a forget the user asked for: the values then also stay out of reads of
     * the past ({@code asOf}); an invalidation or an eviction leaves the past as it was.
     * {@code endedBy} names the statement an invalidation came from (a message or tool call), when known.
     */
    record RecordsForgotten(List<String> ids, boolean hard, @Nullable String reason, boolean erased,
                            @Nullable String endedBy) implements Change {
        public RecordsForgotten {
            ids = List.copyOf(ids);
        }

        /** A forget, an invalidation or an eviction that names no statement. */
        public RecordsForgotten(List<String> ids, boolean hard, @Nullable String reason, boolean erased) {
            this(ids, hard, reason, erased, null);
        }

        /** An invalidation or eviction: the past keeps the values. */
        public RecordsForgotten(List<String> ids, boolean hard, @Nullable String reason) {
            this(ids, hard, reason, false, null);
        }
    }

    /** A confirmation or a verifier's verdict on a record. */
    record RecordVerified(String id, Verification verification, @Nullable String evidence) implements Change {
        public RecordVerified {
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(verification, "verification");
        }
    }

    /** Records the collector moved out of the active view (nothing is deleted). */
    record RecordsArchived(List<String> ids) implements Change {
        public RecordsArchived {
            ids = List.copyOf(ids);
        }
    }

    /** A task started, was suspended, resumed or ended. */
    record TaskChanged(String session, String task, TaskInfo.Status status, @Nullable String title) implements Change {
        public TaskChanged {
            Objects.requireNonNull(session, "session");
            Objects.requireNonNull(task, "task");
            Objects.requireNonNull(status, "status");
        }
    }

    /**
     * A task is now held by another session of its user: that session treats it as its own (its
     * active task, suspend, resume, end); the one that held it no longer does. Its state stays
     * in the scope of the session that started it ({@code session}).
     */
    record TaskMoved(String session, String task, String to) implements Change {
        public TaskMoved {
            Objects.requireNonNull(session, "session");
            Objects.requireNonNull(task, "task");
            Objects.requireNonNull(to, "to");
        }
    }

    /** An alias now names an entity. */
    record AliasRegistered(String alias, String entity) implements Change {
        public AliasRegistered {
            Objects.requireNonNull(alias, "alias");
            Objects.requireNonNull(entity, "entity");
        }
    }

    /** A side-effecting action is about to be performed. */
    record ActionIntended(String operationId, String action, MemoryValue params) implements Change {
        public ActionIntended {
            Objects.requireNonNull(operationId, "operationId");
            Objects.requireNonNull(action, "action");
            Objects.requireNonNull(params, "params");
        }
    }

    /** The outcome of an intended action. */
    record ActionCompleted(String operationId, boolean success, MemoryValue outcome) implements Change {
        public ActionCompleted {
            Objects.requireNonNull(operationId, "operationId");
            Objects.requireNonNull(outcome, "outcome");
        }
    }

    /** Messages added to a session's history (and to its window). */
    record MessagesAppended(String session, List<StoredMessage> messages) implements Change {
        public MessagesAppended {
            Objects.requireNonNull(session, "session");
            messages = List.copyOf(messages);
        }
    }

    /** Messages that left a session's window; they stay in its history. */
    record MessagesEvicted(String session, List<Long> indices) implements Change {
        public MessagesEvicted {
            Objects.requireNonNull(session, "session");
            indices = List.copyOf(indices);
        }
    }

    /** Messages forgotten: out of the window and without content. */
    record MessagesForgotten(String session, List<Long> indices, boolean hard) implements Change {
        public MessagesForgotten {
            Objects.requireNonNull(session, "session");
            indices = List.copyOf(indices);
        }
    }

    /**
     * Messages that stated a forgotten value, replaced by their redacted form (same index, order
     * and type; see {@code MessageRedactor}): they keep their place in the history and, when there,
     * in the window, so the message list stays valid (tool calls keep their results). The event
     * holds only the redacted messages; when {@code hard}, the originals are also scrubbed from
     * the log.
     */
    record MessagesRedacted(String session, List<StoredMessage> messages, boolean hard) implements Change {
        public MessagesRedacted {
            Objects.requireNonNull(session, "session");
            messages = List.copyOf(messages);
            for (StoredMessage m : messages) {
                if (m.forgotten()) {
                    throw new IllegalArgumentException("a redacted message keeps content: message " + m.index());
                }
            }
        }
    }

    /** Everything the user had is forgotten. */
    record UserForgotten(boolean hard) implements Change {
    }
}

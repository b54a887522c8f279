package dev.agentmemory.core;

import dev.agentmemory.core.event.TaskStatus;
import org.jspecify.annotations.Nullable;

import java.time.Instant;
import java.util.Objects;

/** A task inside a session and where it is in its life. */
public record TaskInfo(String session, String task, @Nullable String title, TaskStatus status, Instant changedAt) {
    public TaskInfo {
        Objects.requireNonNull(session, "session");
        Objects.requireNonNull(task, "task");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(changedAt, "changedAt");
    }
}

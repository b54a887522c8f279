package dev.agentmemory.core;

import dev.agentmemory.core.event.Change;
import dev.agentmemory.core.event.TaskStatus;
import dev.agentmemory.core.internal.state.PartitionState;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/** The task lifecycle ({@link Tasks}): which transitions a task's status allows and which session holds it. */
final class TaskLifecycle implements Tasks {

    private final PartitionRuntime runtime;

    TaskLifecycle(PartitionRuntime runtime) {
        this.runtime = runtime;
    }

    @Override
    public TaskInfo start(Caller caller, String session, String task, @Nullable String title) {
        Objects.requireNonNull(caller, "caller");
        Scope scope = Scope.task(caller.tenant(), caller.user(), session, task);
        return runtime.write(caller, (s, tx) -> {
            TaskInfo existing = heldTask(s, session, task);
            if (existing == null) {
                existing = s.task(session, task);
            }
            if (existing != null) {
                throw new IllegalStateException("task " + task + " already exists in session " + session
                        + " (" + existing.status().name().toLowerCase(Locale.ROOT) + "); resume it instead");
            }
            suspendActive(s, tx, session, task);
            tx.add(s, new Change.TaskChanged(session, task, TaskStatus.ACTIVE, title));
            return Objects.requireNonNull(s.task(session, task), "the task just started");
        });
    }

    @Override
    public TaskInfo suspend(Caller caller, String session, String task) {
        return changeTask(caller, session, task, TaskStatus.SUSPENDED, EnumSet.of(TaskStatus.ACTIVE));
    }

    @Override
    public TaskInfo resume(Caller caller, String session, String task) {
        return resume(caller, session, null, task);
    }

    @Override
    public TaskInfo resume(Caller caller, String session, @Nullable String startedIn, String task) {
        Objects.requireNonNull(caller, "caller");
        Ids.check(session, "session");
        Ids.check(task, "task");
        if (startedIn != null) {
            Ids.check(startedIn, "session");
        }
        return runtime.write(caller, (s, tx) -> {
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
            return Objects.requireNonNull(s.task(t.session(), task), "the task just resumed");
        });
    }

    @Override
    public TaskInfo end(Caller caller, String session, String task) {
        return changeTask(caller, session, task, TaskStatus.ENDED, EnumSet.of(TaskStatus.ACTIVE, TaskStatus.SUSPENDED));
    }

    private TaskInfo changeTask(Caller caller, String session, String task, TaskStatus to, Set<TaskStatus> from) {
        Objects.requireNonNull(caller, "caller");
        Scope.task(caller.tenant(), caller.user(), session, task);
        return runtime.write(caller, (s, tx) -> {
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
            return Objects.requireNonNull(s.task(t.session(), task), "the task just changed");
        });
    }

    private static void suspendActive(PartitionState s, PartitionRuntime.Tx tx, String session, String except) {
        for (TaskInfo t : s.tasksHeldBy(session)) {
            if (t.status() == TaskStatus.ACTIVE && !t.task().equals(except)) {
                tx.add(s, new Change.TaskChanged(t.session(), t.task(), TaskStatus.SUSPENDED, null));
            }
        }
    }

    /** The task a session holds under {@code task}, if any. */
    private static @Nullable TaskInfo heldTask(PartitionState s, String session, String task) {
        for (TaskInfo t : s.tasksHeldBy(session)) {
            if (t.task().equals(task)) {
                return t;
            }
        }
        return null;
    }

    /** The one open task of that id held by another session; fails when there are several. */
    private static @Nullable TaskInfo openElsewhere(PartitionState s, String session, String task) {
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

    @Override
    public Optional<TaskInfo> active(Caller caller, String session) {
        Ids.check(session, "session");
        return runtime.read(caller, s -> s.tasksHeldBy(session).stream().filter(t -> t.status() == TaskStatus.ACTIVE).findFirst());
    }

    @Override
    public List<TaskInfo> list(Caller caller, String session) {
        Ids.check(session, "session");
        return runtime.read(caller, s -> List.copyOf(s.tasksHeldBy(session)));
    }

    @Override
    public List<TaskInfo> userTasks(Caller caller) {
        return runtime.read(caller, s -> List.copyOf(s.allTasks()));
    }
}

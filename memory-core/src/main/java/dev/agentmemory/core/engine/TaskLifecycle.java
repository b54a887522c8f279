package dev.agentmemory.core.engine;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.Scope;
import dev.agentmemory.core.TaskInfo;
import dev.agentmemory.core.internal.Ids;
import dev.agentmemory.core.event.Change;
import dev.agentmemory.core.internal.state.PartitionState;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import dev.agentmemory.core.engine.MemoryEngine.Tasks;

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
            tx.add(s, new Change.TaskChanged(session, task, TaskInfo.Status.ACTIVE, title));
            return Objects.requireNonNull(s.task(session, task), "the task just started");
        });
    }

    @Override
    public TaskInfo suspend(Caller caller, String session, String task) {
        return suspend(caller, session, null, task);
    }

    @Override
    public TaskInfo suspend(Caller caller, String session, @Nullable String startedIn, String task) {
        return changeTask(caller, session, startedIn, task, TaskInfo.Status.SUSPENDED, EnumSet.of(TaskInfo.Status.ACTIVE));
    }

    @Override
    public TaskInfo resume(Caller caller, String session, String task) {
        return resume(caller, session, null, task);
    }

    @Override
    public TaskInfo resume(Caller caller, String session, @Nullable String startedIn, String task) {
        check(caller, session, startedIn, task);
        return runtime.write(caller, (s, tx) -> {
            TaskInfo t = find(s, session, startedIn, task);
            if (t.status() == TaskInfo.Status.ENDED) {
                throw new IllegalStateException("task " + task + " is ended; cannot make it active");
            }
            if (t.status() == TaskInfo.Status.ACTIVE && t.heldBy().equals(session)) {
                return t;
            }
            suspendActive(s, tx, session, task);
            if (!t.heldBy().equals(session)) {
                tx.add(s, new Change.TaskMoved(t.session(), task, session));
            }
            tx.add(s, new Change.TaskChanged(t.session(), task, TaskInfo.Status.ACTIVE, null));
            return Objects.requireNonNull(s.task(t.session(), task), "the task just resumed");
        });
    }

    @Override
    public TaskInfo end(Caller caller, String session, String task) {
        return end(caller, session, null, task);
    }

    @Override
    public TaskInfo end(Caller caller, String session, @Nullable String startedIn, String task) {
        return changeTask(caller, session, startedIn, task, TaskInfo.Status.ENDED,
                EnumSet.of(TaskInfo.Status.ACTIVE, TaskInfo.Status.SUSPENDED));
    }

    /** Suspends or ends a task of the user wherever it is held; it stays held where it is. */
    private TaskInfo changeTask(Caller caller, String session, @Nullable String startedIn, String task, TaskInfo.Status to,
                                Set<TaskInfo.Status> from) {
        check(caller, session, startedIn, task);
        return runtime.write(caller, (s, tx) -> {
            TaskInfo t = find(s, session, startedIn, task);
            if (!from.contains(t.status())) {
                throw new IllegalStateException("task " + task + " is " + t.status().name().toLowerCase(Locale.ROOT)
                        + "; cannot make it " + to.name().toLowerCase(Locale.ROOT));
            }
            tx.add(s, new Change.TaskChanged(t.session(), task, to, null));
            return Objects.requireNonNull(s.task(t.session(), task), "the task just changed");
        });
    }

    private static void check(Caller caller, String session, @Nullable String startedIn, String task) {
        Objects.requireNonNull(caller, "caller");
        Ids.check(session, "session");
        Ids.check(task, "task");
        if (startedIn != null) {
            Ids.check(startedIn, "session");
        }
    }

    /**
     * The task of the user that {@code task} names, asked from {@code session}: the one started in
     * {@code startedIn} when given; else the one this session holds; else the one open (active or
     * suspended) task of that id in the user's other sessions, or else the one ended task of that
     * id (for the caller to refuse by its status). Fails naming the candidates when several are
     * open, and naming the session when there is none. Only the caller's partition is searched:
     * never another user's or tenant's tasks.
     */
    private static TaskInfo find(PartitionState s, String session, @Nullable String startedIn, String task) {
        if (startedIn != null) {
            TaskInfo t = s.task(startedIn, task);
            if (t == null) {
                throw new IllegalStateException("no task " + task + " started in session " + startedIn + " of this user");
            }
            return t;
        }
        TaskInfo held = heldTask(s, session, task);
        if (held != null) {
            return held;
        }
        List<TaskInfo> open = new ArrayList<>();
        List<TaskInfo> ended = new ArrayList<>();
        for (TaskInfo t : s.allTasks()) {
            if (t.task().equals(task)) {
                (t.status() == TaskInfo.Status.ENDED ? ended : open).add(t);
            }
        }
        if (open.size() > 1) {
            open.sort(Comparator.comparing(TaskInfo::session));
            throw new IllegalStateException("task " + task + " is open in several sessions of this user: "
                    + open.stream().map(TaskLifecycle::describe).collect(Collectors.joining("; "))
                    + "; name the session it was started in");
        }
        if (open.size() == 1) {
            return open.get(0);
        }
        if (ended.size() == 1) {
            return ended.get(0); // the caller's transition check names its status
        }
        if (ended.size() > 1) {
            throw new IllegalStateException("task " + task + " is ended in sessions "
                    + ended.stream().map(TaskInfo::session).sorted().toList() + " of this user");
        }
        throw new IllegalStateException("no task " + task + " in session " + session + " or another session of this user");
    }

    /** A candidate as an ambiguity error names it: where it was started, its title, who holds it, its status. */
    private static String describe(TaskInfo t) {
        return "started in " + t.session() + (t.title() != null ? " (\"" + t.title() + "\")" : "") + ", held by "
                + t.heldBy() + ", " + t.status().name().toLowerCase(Locale.ROOT);
    }

    private static void suspendActive(PartitionState s, PartitionRuntime.Tx tx, String session, String except) {
        for (TaskInfo t : s.tasksHeldBy(session)) {
            if (t.status() == TaskInfo.Status.ACTIVE && !t.task().equals(except)) {
                tx.add(s, new Change.TaskChanged(t.session(), t.task(), TaskInfo.Status.SUSPENDED, null));
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

    @Override
    public Optional<TaskInfo> active(Caller caller, String session) {
        Ids.check(session, "session");
        return runtime.read(caller, s -> s.tasksHeldBy(session).stream().filter(t -> t.status() == TaskInfo.Status.ACTIVE).findFirst());
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

package dev.agentmemory.core.engine;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.internal.Ids;
import dev.agentmemory.core.event.Change;
import dev.agentmemory.core.event.StoredMessage;

import java.util.List;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.BiFunction;
import java.util.function.Function;
import dev.agentmemory.core.engine.MemoryEngine.Messages;

/** The sessions' message windows and histories ({@link Messages}). */
final class MessageWindow implements Messages {

    private final PartitionRuntime runtime;
    private final EngineConfig config;

    MessageWindow(PartitionRuntime runtime, EngineConfig config) {
        this.runtime = runtime;
        this.config = config;
    }

    @Override
    public int maxMessageChars() {
        return config.maxMessageChars();
    }

    @Override
    public List<StoredMessage> window(Caller caller, String session) {
        Ids.check(session, "session");
        return runtime.read(caller, s -> s.window(session));
    }

    @Override
    public NavigableMap<Long, StoredMessage> history(Caller caller, String session) {
        Ids.check(session, "session");
        return runtime.read(caller, s -> new TreeMap<>(s.history(session)));
    }

    @Override
    public Messages.WindowChange change(Caller caller, String session, Function<List<StoredMessage>, Messages.WindowChange> compute) {
        Objects.requireNonNull(compute, "compute");
        return changeIndexed(caller, session, (window, next) -> compute.apply(window));
    }

    @Override
    public Messages.WindowChange changeIndexed(Caller caller, String session,
                                            BiFunction<List<StoredMessage>, Long, Messages.WindowChange> compute) {
        Ids.check(session, "session");
        Objects.requireNonNull(compute, "compute");
        return runtime.write(caller, (s, tx) -> {
            long first = s.history(session).isEmpty() ? 0 : s.history(session).lastKey() + 1;
            Messages.WindowChange change = Objects.requireNonNull(compute.apply(s.window(session), first), "window change");
            if (!change.evicted().isEmpty()) {
                tx.add(s, new Change.MessagesEvicted(session, change.evicted()));
            }
            if (!change.appended().isEmpty()) {
                long next = s.history(session).isEmpty() ? 0 : s.history(session).lastKey() + 1;
                for (StoredMessage m : change.appended()) {
                    if (m.json() != null && m.json().length() > config.maxMessageChars()) {
                        throw new IllegalArgumentException("message " + m.index() + " of session " + session + " is "
                                + m.json().length() + " characters serialized, over the limit of " + config.maxMessageChars()
                                + " (MemoryEngine.Builder#maxMessageChars)");
                    }
                    if (m.index() != next++) {
                        throw new IllegalArgumentException("appended message index " + m.index()
                                + " does not continue the history (expected " + (next - 1) + ")");
                    }
                }
                tx.add(s, new Change.MessagesAppended(session, change.appended()));
            }
            return change;
        });
    }
}

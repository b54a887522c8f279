package dev.agentmemory.core.engine;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryException;
import dev.agentmemory.core.Scope;
import dev.agentmemory.core.audit.AuditReport;
import dev.agentmemory.core.audit.ScopeDiff;
import dev.agentmemory.core.event.LoggedEvent;
import dev.agentmemory.core.spi.DerivedData;
import dev.agentmemory.core.internal.hooks.EventListener;
import dev.agentmemory.core.internal.hooks.MessageRedactor;
import dev.agentmemory.core.spi.Partition;

import java.time.Duration;
import java.util.List;
import dev.agentmemory.core.internal.state.MemoryState;

/**
 * Operator tools and extension points, from {@link MemoryEngine#admin()}: the raw and readable
 * log, replay and audit, the collector, scope diffs, store-wide listing and compaction, and the
 * registration of derived data, listeners and message redactors. Unlike the other reads,
 * {@link #log}, {@link #replay} and {@link #audit} are views of the whole user and are not
 * filtered by agent.
 */
public interface Admin {

    /** The user's log, decoded, in sequence order. */
    List<LoggedEvent> log(Caller caller);

    /**
     * The log in readable form, one line per event. Values are redacted when sensitive or when
     * the caller's agent may not read them (another agent's private or protected record).
     */
    List<String> readableLog(Caller caller);

    /**
     * A fresh, read-only replay of the stored log, for the engine's own modules and tests: its type
     * is exported to the LangChain4j adapter only, so a user's module reads the log through
     * {@link #log} and the state through the engine's reads instead.
     */
    MemoryState replay(Caller caller);

    /**
     * Audits the user's memory: open conflicts, expired-but-active records, keys not updated
     * within {@code staleAfter}, ended tasks still referenced, pending actions, and whether the
     * live state equals a fresh replay of the stored log. State and log are of one sequence: on
     * a store other writers append to, the live state first catches up to the log the audit
     * read (the report's {@code seq}), so an append by another instance meanwhile is not a
     * difference.
     */
    AuditReport audit(Caller caller, Duration staleAfter);

    /**
     * Archives state no longer reachable from an active task or the user's persistent memory
     * (records of ended tasks). Nothing is deleted; returns the ids archived.
     */
    List<String> collect(Caller caller);

    /** How the current values of two of the caller's scopes differ. */
    ScopeDiff diff(Caller caller, Scope left, Scope right);

    /** Tenants' users that have a log, for tools that inspect a whole store. */
    List<Partition> users(String tenant);

    /**
     * Compacts the store, then every registered derived data ({@link DerivedData#compact}), so
     * that scrubbed bytes leave the storage medium.
     */
    void compact();

    /**
     * Drops the cached state of every user so that the next call reloads it from the store. Not
     * needed for instances sharing a database server: on a store
     * {@linkplain dev.agentmemory.core.spi.EventStore#sharedWithOtherWriters() shared with other
     * writers} every call catches up on their writes by itself (see {@link #sync}).
     */
    void invalidateCache();

    /**
     * Brings this engine's state of the caller's memory up to what the store holds now, and
     * returns its last sequence. Every call does this by itself on a store
     * {@linkplain dev.agentmemory.core.spi.EventStore#sharedWithOtherWriters() shared with other
     * writers} (another instance's acknowledged write is seen by this instance's next call); the
     * events this finds are told to the listeners and, when they forget something, to the derived
     * data, as if they had been committed here. For derived data that answers without a call to
     * the engine (a recall index), before it answers.
     *
     * @throws MemoryException when the store cannot be read
     */
    long sync(Caller caller);

    /**
     * Runs {@code work} with the caller's memory caught up once, at the start ({@link #sync}):
     * the engine calls {@code work} makes for that user on this thread then skip the per-call
     * check of a shared store, and see its state as of the start plus this thread's own writes (a
     * write that races another instance is still made again on its events). One round trip to
     * the database instead of one per call, for a read made of many calls (a retrieval); nothing
     * changes on a store that is not shared.
     */
    <T> T consistently(Caller caller, java.util.function.Supplier<T> work);

    /** Registers derived data that must forget what the engine forgets. */
    void register(DerivedData data);

    /** Removes derived data registered with {@link #register}; false when it was not registered. */
    boolean unregister(DerivedData data);

    /** The names of the registered derived data, in registration order (a name once per registration). */
    List<String> derivedDataNames();

    /**
     * Registers a listener told about every committed event. For our own adapter modules: the
     * listener type is exported to them only.
     */
    void addListener(EventListener listener);

    /** Removes a listener added with {@link #addListener}; false when it was not added. */
    boolean removeListener(EventListener listener);

    /**
     * Registers a redactor for messages in a format it knows, tried (in registration order)
     * before the engine's generic JSON redaction when a forget redacts messages that state a
     * forgotten value (see {@link MemoryEngine#forget}). For our own adapter modules: the
     * redactor type is exported to them only.
     */
    void addRedactor(MessageRedactor redactor);

    /** Removes a redactor added with {@link #addRedactor}; false when it was not added. */
    boolean removeRedactor(MessageRedactor redactor);
}

package dev.agentmemory.core.engine;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ForgetMode;
import dev.agentmemory.core.ForgetReceipt;
import dev.agentmemory.core.ForgetTarget;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.Scope.Layer;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.MemoryValue;
import dev.agentmemory.core.MemoryRecord.Status;
import dev.agentmemory.core.TaskInfo;
import dev.agentmemory.core.event.Change;
import dev.agentmemory.core.event.LoggedEvent;
import dev.agentmemory.core.event.StoredMessage;
import dev.agentmemory.core.internal.codec.JsonMessageRedactor;
import dev.agentmemory.core.internal.state.PartitionState;
import dev.agentmemory.core.spi.DerivedData;
import dev.agentmemory.core.spi.DerivedData.ForgetRequest;
import dev.agentmemory.core.internal.hooks.MessageRedactor;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.core.spi.StatedValues;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import dev.agentmemory.core.engine.MemoryEngine.Messages;

/**
 * Forgets what a {@link ForgetTarget} names (see {@link MemoryEngine#forget}): picks the records
 * and messages, redacts the messages of every session that state a forgotten value, logs the
 * forget, scrubs the stored log in hard mode and tells every derived data. Runs through the
 * partition runtime, which holds the user's lock for the whole forget.
 */
final class Forgetter {

    private static final String FORGOTTEN_TEXT = "[forgotten]";
    private static final MessageRedactor GENERIC_REDACTOR = new JsonMessageRedactor();

    private final PartitionRuntime runtime;
    private final List<MessageRedactor> redactors = new CopyOnWriteArrayList<>();

    Forgetter(PartitionRuntime runtime, List<MessageRedactor> redactors) {
        this.runtime = runtime;
        this.redactors.addAll(redactors);
    }

    void addRedactor(MessageRedactor redactor) {
        redactors.add(redactor);
    }

    boolean removeRedactor(MessageRedactor redactor) {
        return redactors.remove(redactor);
    }

    /**
     * Forgets {@code target}. When another engine on the same store appended first, the runtime
     * makes the whole forget again on the state caught up with those events, as it makes a write
     * again (nothing of the lost attempt was stored, rewritten or told to derived data, so a
     * forget is applied once); a hard forget's rewrite that races an append is made again by
     * itself, from a fresh read of the log.
     */
    ForgetReceipt forget(Caller caller, ForgetTarget target, ForgetMode mode) {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(mode, "mode");
        if (target instanceof ForgetTarget.Key k) {
            ScopeGuard.check(caller, k.scope());
        } else if (target instanceof ForgetTarget.WholeScope w) {
            ScopeGuard.check(caller, w.scope());
        }
        boolean hard = mode == ForgetMode.HARD;
        return runtime.exclusive(caller, held -> {
            Partition partition = held.partition();
            PartitionState s = held.state();
            Set<String> ids = new LinkedHashSet<>();
            List<String> keys = new ArrayList<>();
            Map<String, List<Long>> messages = new LinkedHashMap<>();
            for (MemoryRecord r : s.records()) {
                if ((r.status() != Status.FORGOTTEN || hard) && targets(target, r)) {
                    ids.add(r.id());
                    String name = r.scope() + " " + r.key();
                    if (!keys.contains(name)) {
                        keys.add(name);
                    }
                }
            }
            for (String session : s.messageSessions()) {
                List<Long> idx = new ArrayList<>();
                for (StoredMessage m : s.history(session).values()) {
                    if ((!m.forgotten() || hard) && targetsMessage(target, session, m.index())) {
                        idx.add(m.index());
                    }
                }
                if (!idx.isEmpty()) {
                    messages.put(session, idx);
                }
            }
            StatedValues values = StatedValues.of(List.of());
            Map<String, List<StoredMessage>> redacted = new LinkedHashMap<>();
            if (!ids.isEmpty() && !(target instanceof ForgetTarget.User)) {
                values = forgottenValues(held, s, ids);
                redacted = redactions(s, ids, values, messages);
            }
            PartitionRuntime.Tx tx = held.newTx();
            if (!ids.isEmpty()) {
                tx.add(s, new Change.RecordsForgotten(List.copyOf(ids), hard, null, true));
            }
            messages.forEach((session, idx) -> tx.add(s, new Change.MessagesForgotten(session, idx, hard)));
            redacted.forEach((session, list) -> tx.add(s, new Change.MessagesRedacted(session, list, hard)));
            if (target instanceof ForgetTarget.User) {
                tx.add(s, new Change.UserForgotten(hard));
            }
            if (target instanceof ForgetTarget.WholeScope w && w.scope().layer() == Layer.SESSION) {
                String session = Objects.requireNonNull(w.scope().session(), "a session scope names its session");
                for (TaskInfo t : List.copyOf(s.tasks(session))) {
                    if (t.status() != TaskInfo.Status.ENDED) {
                        tx.add(s, new Change.TaskChanged(t.session(), t.task(), TaskInfo.Status.ENDED, null));
                    }
                }
            }
            held.commit(tx);
            Map<String, List<StoredMessage>> redactedForms = redacted;
            StatedValues forgottenValues = values;
            int scrubbed = hard ? held.rewrite(() -> scrubbed(held, ids, messages, redactedForms, forgottenValues,
                    target instanceof ForgetTarget.User)) : 0;
            Map<String, List<Long>> redactedIndices = new LinkedHashMap<>();
            redacted.forEach((session, list) -> redactedIndices.put(session,
                    list.stream().map(StoredMessage::index).toList()));
            ForgetRequest request = new ForgetRequest(partition, ids, messages, target instanceof ForgetTarget.User, hard,
                    redactedIndices, values);
            Map<String, Integer> removed = new TreeMap<>();
            for (DerivedData d : held.derived()) {
                removed.merge(d.name(), d.forget(request), Integer::sum);
            }
            if (target instanceof ForgetTarget.User) {
                // the stored embeddings of everything the user said go with the user, after the
                // derived data (an episodic index that deletes the ones of single items it drops,
                // and whose queued work may still have kept some) are done
                runtime.deleteVectors(partition, null);
            }
            int messageCount = messages.values().stream().mapToInt(List::size).sum();
            int redactedCount = redacted.values().stream().mapToInt(List::size).sum();
            return new ForgetReceipt(target, mode, List.copyOf(ids), keys, messageCount, redactedCount, scrubbed, removed);
        });
    }

    /**
     * The values of the records about to be forgotten; for records already (softly) forgotten,
     * which a hard forget reaches again, the values still held by the log.
     */
    private static StatedValues forgottenValues(PartitionRuntime.Held held, PartitionState s, Set<String> ids) {
        List<MemoryValue> values = new ArrayList<>();
        Set<String> valueless = new HashSet<>();
        for (String id : ids) {
            MemoryRecord r = s.record(id);
            if (r != null && r.kind() == Kind.REFERENCE) {
                // a pointer or a derived record (a summary's value holds its sources' keys, ids and
                // statuses): nothing a message restates; it reaches messages only as their source
                continue;
            }
            if (r != null && r.value() != null) {
                values.add(r.value());
            } else {
                valueless.add(id);
            }
        }
        if (!valueless.isEmpty()) {
            for (LoggedEvent e : held.storedLog("record-written")) {
                if (e.change() instanceof Change.RecordWritten w
                        && valueless.contains(w.record().id()) && w.record().value() != null) {
                    values.add(w.record().value());
                }
            }
        }
        return StatedValues.of(values);
    }

    /**
     * The redacted forms of the messages of every session that state a forgotten value (see
     * {@link #forget}), by session. Messages no redactor can rewrite are added to {@code forgotten}.
     */
    private Map<String, List<StoredMessage>> redactions(PartitionState s, Set<String> ids, StatedValues values,
                                                        Map<String, List<Long>> forgotten) {
        Map<String, Set<Long>> sources = sourceMessages(s, ids);
        Map<String, List<StoredMessage>> out = new LinkedHashMap<>();
        for (String session : s.messageSessions()) {
            Set<Long> gone = new HashSet<>(forgotten.getOrDefault(session, List.of()));
            Set<Long> sourced = sources.getOrDefault(session, Set.of());
            List<StoredMessage> redacted = new ArrayList<>();
            List<Long> unredactable = new ArrayList<>();
            for (StoredMessage m : s.history(session).values()) {
                if (m.forgotten() || gone.contains(m.index()) || m.type().equals("SYSTEM")) {
                    continue;
                }
                boolean source = sourced.contains(m.index());
                if (!source && !values.mayBeIn(Objects.requireNonNull(m.json()))
                        && (m.text() == null || !values.statedIn(m.text()))) {
                    continue;
                }
                Optional<StoredMessage> r = redact(m, source, values);
                if (r.isEmpty()) {
                    unredactable.add(m.index());
                } else if (!Objects.equals(r.get().json(), m.json()) || !Objects.equals(r.get().text(), m.text())) {
                    StoredMessage done = r.get();
                    redacted.add(new StoredMessage(m.index(), m.order(), m.type(),
                            Objects.requireNonNull(done.json(), "redacted json"), done.text()));
                }
            }
            if (!redacted.isEmpty()) {
                out.put(session, redacted);
            }
            if (!unredactable.isEmpty()) {
                List<Long> all = new ArrayList<>(forgotten.getOrDefault(session, List.of()));
                all.addAll(unredactable);
                forgotten.put(session, all);
            }
        }
        return out;
    }

    private Optional<StoredMessage> redact(StoredMessage m, boolean source, StatedValues values) {
        for (MessageRedactor r : redactors) {
            Optional<StoredMessage> done = r.redact(m, source, values::statedIn);
            if (done.isPresent()) {
                return done;
            }
        }
        return GENERIC_REDACTOR.redact(m, source, values::statedIn);
    }

    /** The messages the records name as their source, by session. */
    private static Map<String, Set<Long>> sourceMessages(PartitionState s, Set<String> ids) {
        Map<String, Set<Long>> sources = new HashMap<>();
        for (String id : ids) {
            MemoryRecord r = s.record(id);
            if (r != null) {
                sourceMessage(r.sourceRef()).ifPresent(src -> sources.computeIfAbsent(src.getKey(), k -> new HashSet<>())
                        .add(src.getValue()));
            }
        }
        return sources;
    }

    /** The session and index a source reference {@code message:<session>#<index>} names. */
    private static Optional<Map.Entry<String, Long>> sourceMessage(@Nullable String ref) {
        if (ref == null || !ref.startsWith("message:")) {
            return Optional.empty();
        }
        int hash = ref.lastIndexOf('#');
        if (hash <= "message:".length()) {
            return Optional.empty();
        }
        try {
            return Optional.of(Map.entry(ref.substring("message:".length(), hash), Long.parseLong(ref.substring(hash + 1))));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    private static boolean targets(ForgetTarget target, MemoryRecord r) {
        if (target instanceof ForgetTarget.Key k) {
            return r.scope().equals(k.scope()) && r.key().equals(k.key());
        }
        if (target instanceof ForgetTarget.WholeScope w) {
            return r.scope().within(w.scope());
        }
        return target instanceof ForgetTarget.User;
    }

    private static boolean targetsMessage(ForgetTarget target, String session, long index) {
        if (target instanceof ForgetTarget.Messages m) {
            return m.session().equals(session) && m.indices().contains(index);
        }
        if (target instanceof ForgetTarget.WholeScope w) {
            return w.scope().layer() == Layer.SESSION && session.equals(w.scope().session());
        }
        return target instanceof ForgetTarget.User;
    }

    /**
     * The rewritten forms of the stored events (by sequence, read from the log now) that
     * forgotten values, verification evidence (which may quote the value) and messages leave
     * the log in; for a whole
     * user also alias texts and task titles (the replayed end state is unchanged: the user's
     * aliases and tasks are cleared by the forget). The action ledger is kept, so that a
     * side effect is never submitted twice.
     */
    private static Map<Long, Change> scrubbed(PartitionRuntime.Held held, Set<String> ids, Map<String, List<Long>> messages,
                                              Map<String, List<StoredMessage>> redacted, StatedValues values,
                                              boolean wholeUser) {
        PartitionState state = held.state();
        Map<String, Set<Long>> sources = wholeUser ? Map.of() : sourceMessages(state, ids);
        Map<String, Map<Long, StoredMessage>> redactedBySession = new HashMap<>();
        redacted.forEach((session, list) -> list.forEach(m ->
                redactedBySession.computeIfAbsent(session, k -> new HashMap<>()).put(m.index(), m)));
        Map<Long, Change> rewritten = new HashMap<>();
        for (LoggedEvent e : held.storedLog()) {
            Change scrubbed = null;
            if (e.change() instanceof Change.RecordWritten w && ids.contains(w.record().id()) && w.record().value() != null) {
                scrubbed = new Change.RecordWritten(w.record().tombstone(), w.superseded());
            } else if (e.change() instanceof Change.MessagesAppended m) {
                List<Long> gone = messages.getOrDefault(m.session(), List.of());
                Map<Long, StoredMessage> rewrite = redactedBySession.getOrDefault(m.session(), Map.of());
                Set<Long> sourced = sources.getOrDefault(m.session(), Set.of());
                NavigableMap<Long, StoredMessage> now = state.history(m.session());
                List<StoredMessage> kept = new ArrayList<>();
                boolean any = false;
                for (StoredMessage msg : m.messages()) {
                    StoredMessage r = rewrite.get(msg.index());
                    if (r == null && !msg.forgotten() && (sourced.contains(msg.index()) || values.mayBeIn(Objects.requireNonNull(msg.json())))) {
                        // redacted by an earlier (soft) forget of these values: the original goes now
                        StoredMessage current = now.get(msg.index());
                        if (current != null && !current.forgotten() && !Objects.equals(current.json(), msg.json())) {
                            r = current;
                        }
                    }
                    if (gone.contains(msg.index()) && !msg.forgotten()) {
                        kept.add(msg.tombstone());
                        any = true;
                    } else if (r != null && !msg.forgotten() && !Objects.equals(r.json(), msg.json())) {
                        // the original with the value goes; replaying still ends at the redacted form
                        kept.add(new StoredMessage(msg.index(), msg.order(), msg.type(), r.json(), r.text()));
                        any = true;
                    } else {
                        kept.add(msg);
                    }
                }
                if (any) {
                    scrubbed = new Change.MessagesAppended(m.session(), kept);
                }
            } else if (e.change() instanceof Change.MessagesRedacted m
                    && (messages.containsKey(m.session()) || redactedBySession.containsKey(m.session()))) {
                // an earlier redaction may still state what is forgotten now, or hold a message now forgotten
                List<Long> gone = messages.getOrDefault(m.session(), List.of());
                Map<Long, StoredMessage> rewrite = redactedBySession.getOrDefault(m.session(), Map.of());
                List<StoredMessage> kept = new ArrayList<>();
                boolean any = false;
                for (StoredMessage msg : m.messages()) {
                    StoredMessage r = rewrite.get(msg.index());
                    if (gone.contains(msg.index())) {
                        any = true;
                    } else if (r != null && !Objects.equals(r.json(), msg.json())) {
                        kept.add(r);
                        any = true;
                    } else {
                        kept.add(msg);
                    }
                }
                if (any) {
                    scrubbed = new Change.MessagesRedacted(m.session(), kept, m.hard());
                }
            }
            if (e.change() instanceof Change.RecordVerified v && ids.contains(v.id()) && v.evidence() != null) {
                scrubbed = new Change.RecordVerified(v.id(), v.verification(), null);
            }
            if (wholeUser && e.change() instanceof Change.AliasRegistered a && !a.alias().equals(FORGOTTEN_TEXT)) {
                scrubbed = new Change.AliasRegistered(FORGOTTEN_TEXT, FORGOTTEN_TEXT);
            } else if (wholeUser && e.change() instanceof Change.TaskChanged t && t.title() != null) {
                scrubbed = new Change.TaskChanged(t.session(), t.task(), t.status(), null);
            }
            if (scrubbed != null) {
                rewritten.put(e.seq(), scrubbed);
            }
        }
        return rewritten;
    }
}

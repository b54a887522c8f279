package dev.agentmemory.store.jdbc.reliability;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentmemory.core.Caller;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.MemoryRecord.Status;
import dev.agentmemory.core.audit.AuditReport;
import dev.agentmemory.core.event.Change;
import dev.agentmemory.core.event.LoggedEvent;
import dev.agentmemory.store.jdbc.reliability.InstanceJournal.Entries;
import dev.agentmemory.store.jdbc.reliability.InstanceJournal.Forget;
import dev.agentmemory.store.jdbc.reliability.InstanceJournal.Read;
import dev.agentmemory.store.jdbc.reliability.InstanceJournal.Write;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Checks what the instances' journals say against the stored log, read by a fresh engine, and
 * collects every violation (an empty list: all good):
 * <ul>
 *   <li>the log's sequence is 1..n, each once;</li>
 *   <li>every acknowledged write is in the log exactly once, with its key, value and version, and
 *       no two acknowledged writes of a key claim the same version (a lost update);</li>
 *   <li>every batch in the log is there whole, in one append (one trace, contiguous sequence);</li>
 *   <li>every acknowledged forget is in the log;</li>
 *   <li>every read (and every forget, which reads the key it forgets) saw a state that was still
 *       current at or after the newest change of that key acknowledged, by any instance, before
 *       the read began; a record it saw is one the log holds and whose write began before the
 *       read ended, and "nothing" is the key's initial state or one left by a forget that began
 *       before the read ended;</li>
 *   <li>the audit of every user (fresh engine, and each instance that ended by itself) is clean.</li>
 * </ul>
 * The order of changes is the log's; "before" is a write's return before the read's start, on
 * the clock all processes share.
 */
final class MultiInstanceCheck {

    /** A record write as the log holds it. */
    private record Stored(String key, String recordId, long version, String w, @Nullable String batch, int parts,
                          long seq, String trace) {
    }

    /** One state of a key in the log: from {@code seq} on, {@code recordId} is current (null: none). */
    private record State(long seq, @Nullable String recordId) {
    }

    /** An acknowledged change of a key: its place in the log and when its call began and returned. */
    private record Acked(long seq, long start, long end, int instance, String what) {
    }

    final List<String> violations = new ArrayList<>();
    /** How many violations of each kind (stale read, lost write, partial batch, audit...). */
    final Map<String, Integer> violationsByKind = new java.util.TreeMap<>();
    long logEvents;
    long readChecks;
    long readChecksAfterAnotherInstance;
    long acknowledgedWrites;
    long unacknowledgedWritesInLog;

    private final Map<String, Map<String, Stored>> storedByUser = new HashMap<>();
    private final Map<String, Map<String, List<State>>> timelineByUser = new HashMap<>();
    private final Map<String, Map<String, Long>> forgetSeqByUser = new HashMap<>();
    private final Map<String, Write> ackedById = new HashMap<>();

    void check(MemoryEngine fresh, List<Caller> users, Entries journal) {
        for (Caller user : users) {
            readLog(fresh, user);
            AuditReport audit = fresh.admin().audit(user, Duration.ofDays(365));
            if (!audit.consistent() || !audit.conflictingKeys().isEmpty()) {
                violation("audit", "audit of %s by a fresh engine: %s", user.user(), audit.lines());
            }
        }
        for (InstanceJournal.Audit a : journal.audits) {
            if (!a.consistent()) {
                violation("audit", "audit of %s by instance %d at its end: %s", a.user(), a.instance(), a.summary());
            }
        }
        checkWrites(journal);
        Map<String, List<Acked>> acked = ackedChanges(journal);
        for (Read r : journal.reads) {
            checkRead(r, acked);
        }
        for (Forget f : journal.forgets) {
            checkForgetAsRead(f, acked);
        }
    }

    private void readLog(MemoryEngine fresh, Caller user) {
        List<LoggedEvent> log = fresh.admin().log(user);
        logEvents += log.size();
        Map<String, Stored> stored = new HashMap<>();
        Map<String, Stored> byW = new HashMap<>();
        Map<String, List<State>> timeline = new HashMap<>();
        Map<String, String> current = new HashMap<>();
        Map<String, Long> forgetSeq = new HashMap<>();
        Map<String, List<Stored>> batches = new HashMap<>();
        for (int i = 0; i < log.size(); i++) {
            LoggedEvent e = log.get(i);
            if (e.seq() != i + 1L) {
                violation("log sequence", "log of %s: event %d has sequence %d", user.user(), i + 1, e.seq());
            }
            if (e.change() instanceof Change.RecordWritten written) {
                MemoryRecord r = written.record();
                String key = r.key().path();
                if (r.status() != Status.ACTIVE) {
                    violation("log", "log of %s: %s written with status %s", user.user(), r.id(), r.status());
                }
                JsonNode v = Objects.requireNonNull(r.value()).node();
                String batch = v.path("batch").asText("-");
                Stored s = new Stored(key, r.id(), r.version(), v.path("w").asText(), batch.equals("-") ? null : batch,
                        v.path("parts").asInt(), e.seq(), e.traceId());
                if (stored.put(r.id(), s) != null) {
                    violation("doubled write", "log of %s: record %s written twice", user.user(), r.id());
                }
                Stored same = byW.put(s.w(), s);
                if (same != null) {
                    violation("doubled write", "log of %s: write %s stored twice, at %d and %d", user.user(), s.w(), same.seq(), s.seq());
                }
                List<State> states = timeline.computeIfAbsent(key, k -> new ArrayList<>());
                String before = current.get(key);
                Stored previous = before == null ? null : stored.get(before);
                if (previous != null && previous.version() >= s.version()) {
                    violation("log versions", "log of %s: %s version %d at %d after version %d", user.user(), key, s.version(), s.seq(),
                            previous.version());
                }
                states.add(new State(e.seq(), r.id()));
                current.put(key, r.id());
                if (s.batch() != null) {
                    batches.computeIfAbsent(s.batch(), b -> new ArrayList<>()).add(s);
                }
            } else if (e.change() instanceof Change.RecordsForgotten forgotten) {
                for (String id : forgotten.ids()) {
                    forgetSeq.putIfAbsent(id, e.seq());
                    Stored s = stored.get(id);
                    if (s != null && id.equals(current.get(s.key()))) {
                        current.remove(s.key());
                        timeline.get(s.key()).add(new State(e.seq(), null));
                    }
                }
            }
        }
        // no batch in part, each in one append
        for (Map.Entry<String, List<Stored>> b : batches.entrySet()) {
            List<Stored> parts = b.getValue();
            Stored first = parts.get(0);
            if (parts.size() != first.parts()) {
                violation("partial batch", "batch %s of %s: %d of %d parts in the log", b.getKey(), user.user(), parts.size(), first.parts());
            }
            for (int i = 0; i < parts.size(); i++) {
                if (!parts.get(i).trace().equals(first.trace()) || parts.get(i).seq() != first.seq() + i) {
                    violation("partial batch", "batch %s of %s: not one append (part %d at %d, trace %s)", b.getKey(), user.user(), i,
                            parts.get(i).seq(), parts.get(i).trace());
                }
            }
        }
        // the timeline reads as the engine does: its last states are what a fresh engine serves
        for (int k = 0; k < InstanceWorker.KEYS; k++) {
            String key = "k" + k;
            Optional<MemoryRecord> served = fresh.current(user, user.persistent(), MemoryKey.of(key));
            String expected = current.get(key);
            if (!Objects.equals(served.map(MemoryRecord::id).orElse(null), expected)) {
                violation("check reads the log wrong", "%s %s: a fresh engine serves %s, the log's last write not forgotten is %s", user.user(), key,
                        served.map(MemoryRecord::id).orElse("nothing"), expected);
            }
        }
        storedByUser.put(user.user(), stored);
        timelineByUser.put(user.user(), timeline);
        forgetSeqByUser.put(user.user(), forgetSeq);
    }

    private void checkWrites(Entries journal) {
        Map<String, Write> byVersion = new HashMap<>();
        long inLog = storedByUser.values().stream().mapToLong(Map::size).sum();
        for (Write w : journal.writes) {
            acknowledgedWrites++;
            ackedById.put(w.recordId(), w);
            Stored s = storedByUser.getOrDefault(w.user(), Map.of()).get(w.recordId());
            if (s == null) {
                violation("lost write", "acknowledged write %s (%s %s v%d, instance %d) is not in the log", w.w(), w.user(), w.key(),
                        w.version(), w.instance());
                continue;
            }
            if (!s.w().equals(w.w()) || !s.key().equals(w.key()) || s.version() != w.version()) {
                violation("lost write", "acknowledged write %s (%s %s v%d) is stored as %s %s v%d", w.w(), w.user(), w.key(),
                        w.version(), s.w(), s.key(), s.version());
            }
            Write other = byVersion.put(w.user() + "/" + w.key() + "/" + w.version(), w);
            if (other != null) {
                violation("lost update", "%s %s version %d acknowledged twice: %s (instance %d) and %s (instance %d)", w.user(), w.key(),
                        w.version(), other.w(), other.instance(), w.w(), w.instance());
            }
        }
        unacknowledgedWritesInLog = inLog - journal.writes.size();
        for (Forget f : journal.forgets) {
            for (String id : f.ids()) {
                if (!forgetSeqByUser.getOrDefault(f.user(), Map.of()).containsKey(id)) {
                    violation("lost forget", "acknowledged forget of %s %s (instance %d): %s is not forgotten in the log", f.user(),
                            f.key(), f.instance(), id);
                }
            }
        }
    }

    /** Every acknowledged change by user and key, with its sequence in the log. */
    private Map<String, List<Acked>> ackedChanges(Entries journal) {
        Map<String, List<Acked>> acked = new HashMap<>();
        for (Write w : journal.writes) {
            Stored s = storedByUser.getOrDefault(w.user(), Map.of()).get(w.recordId());
            if (s != null) {
                acked.computeIfAbsent(w.user() + "/" + w.key(), k -> new ArrayList<>())
                        .add(new Acked(s.seq(), w.start(), w.end(), w.instance(), "write " + w.w()));
            }
        }
        for (Forget f : journal.forgets) {
            Map<String, Long> seqs = forgetSeqByUser.getOrDefault(f.user(), Map.of());
            f.ids().stream().map(seqs::get).filter(Objects::nonNull).max(Long::compare).ifPresent(seq ->
                    acked.computeIfAbsent(f.user() + "/" + f.key(), k -> new ArrayList<>())
                            .add(new Acked(seq, f.start(), f.end(), f.instance(), "forget at " + seq)));
        }
        return acked;
    }

    private void checkRead(Read r, Map<String, List<Acked>> acked) {
        String what = "read of " + r.user() + " " + r.key() + " by instance " + r.instance();
        if (r.recordId() != null) {
            Stored s = storedByUser.getOrDefault(r.user(), Map.of()).get(r.recordId());
            if (s == null) {
                violation("dirty read", "%s saw %s (%s), which the log does not hold", what, r.recordId(), r.w());
                return;
            }
            if (!s.w().equals(r.w())) {
                violation("dirty read", "%s saw %s with value %s, stored with %s", what, r.recordId(), r.w(), s.w());
            }
            Write w = ackedById.get(r.recordId());
            if (w != null && w.start() > r.end()) {
                violation("read from the future", "%s saw %s, whose write began after the read returned", what, w.w());
            }
        }
        checkObserved(what, r.user(), r.key(), r.recordId(), r.start(), r.end(), r.instance(), acked);
    }

    /** A forget reads the key it forgets: it saw the newest of the records it forgot, or nothing. */
    private void checkForgetAsRead(Forget f, Map<String, List<Acked>> acked) {
        Map<String, Stored> stored = storedByUser.getOrDefault(f.user(), Map.of());
        String seen = f.ids().stream().map(stored::get).filter(Objects::nonNull)
                .max((a, b) -> Long.compare(a.version(), b.version())).map(Stored::recordId).orElse(null);
        checkObserved("forget of " + f.user() + " " + f.key() + " by instance " + f.instance(), f.user(), f.key(), seen,
                f.start(), f.end(), f.instance(), acked);
    }

    /**
     * The state seen ({@code recordId}, null: none) must still have been current at the newest
     * change of the key that was acknowledged before {@code start}; when it is "none", it must be
     * a state whose change (a forget) began before {@code end}, or the key's initial state.
     */
    private void checkObserved(String what, String user, String key, @Nullable String recordId, long start, long end,
                               int instance, Map<String, List<Acked>> acked) {
        readChecks++;
        Acked newest = null;
        Map<Long, Acked> bySeq = new HashMap<>();
        for (Acked a : acked.getOrDefault(user + "/" + key, List.of())) {
            bySeq.put(a.seq(), a);
            if (a.end() < start && (newest == null || a.seq() > newest.seq())) {
                newest = a;
            }
        }
        if (newest == null) {
            return;
        }
        if (newest.instance() != instance) {
            readChecksAfterAnotherInstance++;
        }
        List<State> states = timelineByUser.getOrDefault(user, Map.of()).getOrDefault(key, List.of());
        // the initial state (nothing) lasts until the first change
        boolean fresh = recordId == null && (states.isEmpty() || states.get(0).seq() > newest.seq());
        for (int i = 0; i < states.size() && !fresh; i++) {
            State state = states.get(i);
            long until = i + 1 < states.size() ? states.get(i + 1).seq() : Long.MAX_VALUE;
            Acked by = bySeq.get(state.seq());
            boolean couldBeSeen = recordId != null || by == null || by.start() < end;
            fresh = Objects.equals(state.recordId(), recordId) && until > newest.seq() && couldBeSeen;
        }
        if (!fresh) {
            violation("stale read", "%s saw %s, but %s (instance %d, log seq %d) was acknowledged before the read began", what,
                    recordId == null ? "nothing" : recordId, newest.what(), newest.instance(), newest.seq());
        }
    }

    private void violation(String kind, String format, Object... args) {
        violations.add(String.format(format, args));
        violationsByKind.merge(kind, 1, Integer::sum);
    }
}

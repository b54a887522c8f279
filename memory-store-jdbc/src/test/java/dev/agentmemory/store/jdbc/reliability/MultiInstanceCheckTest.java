package dev.agentmemory.store.jdbc.reliability;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ForgetMode;
import dev.agentmemory.core.ForgetTarget;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.MemoryValue;
import dev.agentmemory.core.Proposal.Outcome;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.store.jdbc.reliability.InstanceJournal.Entries;
import dev.agentmemory.store.jdbc.reliability.InstanceJournal.Read;
import dev.agentmemory.store.jdbc.reliability.InstanceJournal.Write;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link MultiInstanceCheck} finds what it is there to find: given a real log and journals that
 * claim what the log contradicts (a lost write, a stale read, a read of a forgotten value, a
 * read of a value never stored or not written yet, a partial batch, a version acknowledged twice,
 * a failed audit), it reports each; given journals
 * that agree with the log, nothing.
 */
class MultiInstanceCheckTest {

    private static final Caller U = InstanceWorker.shared(0);
    private final MemoryEngine engine = MemoryEngine.builder().build();
    private final Entries journal = new Entries();

    @AfterEach
    void close() {
        engine.close();
    }

    private static Proposal proposal(String key, String w, String batch, int parts) {
        return Proposal.set(U.persistent(), MemoryKey.of(key),
                        MemoryValue.parse("{\"w\":\"" + w + "\",\"batch\":\"" + batch + "\",\"parts\":" + parts + "}"))
                .kind(Kind.DECISION).source(Source.SYSTEM).build();
    }

    /** Writes {@code w} to {@code key} and journals it as acknowledged by instance 1 between the times. */
    private MemoryRecord write(String key, String w, long start, long end) {
        MemoryRecord r = engine.write(U, proposal(key, w, "-", 1));
        journal.writes.add(new Write(1, U.user(), key, r.id(), r.version(), w, null, start, end));
        return r;
    }

    private void read(String key, MemoryRecord seen, long start, long end) {
        journal.reads.add(new Read(2, U.user(), key, seen == null ? null : seen.id(),
                seen == null ? null : InstanceJournal.w(seen), start, end));
    }

    private List<String> violations() {
        MultiInstanceCheck check = new MultiInstanceCheck();
        check.check(engine, List.of(U), journal);
        return check.violations;
    }

    @Test
    void should_find_nothing_when_the_journals_agree_with_the_log() {
        MemoryRecord first = write("k0", "a", 10, 20);
        read("k0", first, 15, 16);   // during the write: may or may not see it
        read("k0", first, 25, 26);
        MemoryRecord second = write("k0", "b", 30, 40);
        read("k0", first, 35, 45);   // the second write was not acknowledged yet when the read began
        read("k0", second, 50, 51);
        engine.forget(U, ForgetTarget.key(U.persistent(), MemoryKey.of("k0")), ForgetMode.SOFT);
        journal.forgets.add(new InstanceJournal.Forget(1, U.user(), "k0", List.of(first.id(), second.id()), 60, 70));
        read("k0", null, 80, 81);
        List<Outcome> batch = engine.propose(U, List.of(proposal("k1", "c0", "c", 2), proposal("k2", "c1", "c", 2)));
        for (Outcome o : batch) {
            MemoryRecord r = o.record();
            journal.writes.add(new Write(1, U.user(), r.key().path(), r.id(), r.version(), InstanceJournal.w(r), "c", 90, 95));
        }

        assertThat(violations()).isEmpty();
    }

    @Test
    void should_report_a_read_that_missed_a_write_or_a_forget_acknowledged_before_it_began() {
        MemoryRecord first = write("k0", "a", 10, 20);
        write("k0", "b", 30, 40);
        read("k0", first, 50, 51);
        read("k0", null, 52, 53);
        engine.forget(U, ForgetTarget.key(U.persistent(), MemoryKey.of("k0")), ForgetMode.SOFT);
        MemoryRecord forgotten = engine.history(U, U.persistent(), MemoryKey.of("k0")).get(1);
        journal.forgets.add(new InstanceJournal.Forget(1, U.user(), "k0", List.of(first.id(), forgotten.id()), 60, 70));
        journal.reads.add(new Read(2, U.user(), "k0", forgotten.id(), "b", 80, 81));

        assertThat(violations()).hasSize(3)
                .anyMatch(v -> v.contains("saw " + first.id() + ", but write b (instance 1, log seq 2)"))
                .anyMatch(v -> v.contains("saw nothing, but write b"))
                .anyMatch(v -> v.contains("saw " + forgotten.id() + ", but forget at 3"));
    }

    @Test
    void should_report_a_lost_write_a_version_acknowledged_twice_a_partial_batch_and_a_failed_audit() {
        MemoryRecord stored = write("k0", "a", 10, 20);
        journal.writes.add(new Write(2, U.user(), "k0", "no-such-record", 2, "lost", null, 30, 40));
        journal.writes.add(new Write(3, U.user(), "k0", stored.id(), stored.version(), "a", null, 10, 20));
        engine.propose(U, List.of(proposal("k1", "c0", "c", 3), proposal("k2", "c1", "c", 3)));
        journal.audits.add(new InstanceJournal.Audit(2, U.user(), false, "state == replay(log): NO"));
        journal.reads.add(new Read(2, U.user(), "k0", "ghost", "g", 50, 51));
        read("k0", stored, 5, 6);

        assertThat(violations()).hasSize(6)
                .anyMatch(v -> v.endsWith("saw ghost (g), which the log does not hold"))
                .anyMatch(v -> v.endsWith("saw a, whose write began after the read returned"))
                .anyMatch(v -> v.startsWith("acknowledged write lost"))
                .anyMatch(v -> v.contains("k0 version 1 acknowledged twice"))
                .anyMatch(v -> v.startsWith("batch c of shared0: 2 of 3 parts"))
                .anyMatch(v -> v.startsWith("audit of shared0 by instance 2"));
    }
}

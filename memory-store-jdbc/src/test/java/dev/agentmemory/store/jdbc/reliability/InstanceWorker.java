package dev.agentmemory.store.jdbc.reliability;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ForgetMode;
import dev.agentmemory.core.ForgetReceipt;
import dev.agentmemory.core.ForgetTarget;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.MemoryValue;
import dev.agentmemory.core.Proposal.Outcome;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.core.StaleVersionException;
import dev.agentmemory.core.audit.AuditReport;
import dev.agentmemory.store.jdbc.JdbcStores;

import java.io.BufferedReader;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The child process of {@link MultiInstanceTest}: one application instance with its own
 * {@link MemoryEngine} over the shared PostgreSQL database, serving the users of its slot and
 * the users every instance shares. Not a test by itself.
 *
 * <p>Prints {@code READY}, waits for {@code GO} on stdin (EOF there, the parent gone, halts it),
 * then runs a fixed number of random operations per thread (writes, batches, reads, forgets),
 * printing {@code P <n>} after each so the parent can kill it mid-run, and {@code DONE} at the
 * end. Every operation goes to the journal file, one line each, written with one unbuffered
 * write as soon as the engine returned (see {@link InstanceJournal} for the format): the parent
 * reads the journals after the run and checks them against the stored log. At the end, the
 * instance audits its own view of every user it served (live state == replay of the log).
 *
 * <p>Arguments: JDBC URL (user and password from the environment, as {@link CrashWriter}),
 * instance number, slot, threads, operations per thread, journal path.
 */
final class InstanceWorker {

    static final String TENANT = "multi";
    static final int SHARED_USERS = 2;
    static final int KEYS = 5;

    private final MemoryEngine engine;
    private final int instance;
    private final int slot;
    private final FileOutputStream journal;
    private final PrintStream out;
    private final AtomicInteger done = new AtomicInteger();

    private InstanceWorker(MemoryEngine engine, int instance, int slot, FileOutputStream journal, PrintStream out) {
        this.engine = engine;
        this.instance = instance;
        this.slot = slot;
        this.journal = journal;
        this.out = out;
    }

    static Caller shared(int u) {
        return Caller.of(TENANT, "shared" + u);
    }

    static Caller own(int slot) {
        return Caller.of(TENANT, "slot" + slot);
    }

    public static void main(String[] args) throws Exception {
        String url = args[0];
        int instance = Integer.parseInt(args[1]);
        int slot = Integer.parseInt(args[2]);
        int threads = Integer.parseInt(args[3]);
        int ops = Integer.parseInt(args[4]);
        PrintStream out = System.out;
        MemoryEngine engine = MemoryEngine.builder()
                .store(JdbcStores.connect(url, CrashWriter.env("AGENTMEMORY_TEST_PG_USER"), CrashWriter.env("AGENTMEMORY_TEST_PG_PASSWORD")))
                .snapshotEvery(40)
                .build();
        try (FileOutputStream journal = new FileOutputStream(args[5], true)) {
            InstanceWorker worker = new InstanceWorker(engine, instance, slot, journal, out);
            worker.say("READY " + instance);
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            if (!"GO".equals(in.readLine())) {
                Runtime.getRuntime().halt(3);
            }
            Thread watchdog = new Thread(() -> {
                try {
                    while (in.readLine() != null) {
                        // keep waiting
                    }
                } catch (IOException e) {
                    // parent gone
                }
                Runtime.getRuntime().halt(3);
            });
            watchdog.setDaemon(true);
            watchdog.start();
            CrashWriter.runThreads(threads, thread -> worker.run(thread, ops));
            worker.auditAll();
            worker.say("DONE " + instance);
        }
        engine.close();
    }

    private void run(int thread, int ops) {
        Random random = new Random(instance * 7919L + thread);
        for (int n = 0; n < ops; n++) {
            Caller user = random.nextInt(10) < 6 ? shared(random.nextInt(SHARED_USERS)) : own(slot);
            String op = "i" + instance + "t" + thread + "n" + n;
            int dice = random.nextInt(100);
            if (dice < 35) {
                writeOne(user, key(random), op);
            } else if (dice < 50) {
                writeBatch(user, random, op);
            } else if (dice < 60) {
                forget(user, key(random));
            } else {
                read(user, key(random));
            }
            say("P " + done.incrementAndGet());
        }
    }

    private static MemoryKey key(Random random) {
        return MemoryKey.of("k" + random.nextInt(KEYS));
    }

    private static Proposal proposal(Caller user, MemoryKey key, String write, String batch, int parts) {
        MemoryValue value = MemoryValue.parse("{\"w\":\"" + write + "\",\"batch\":\"" + batch + "\",\"parts\":" + parts + "}");
        return Proposal.set(user.persistent(), key, value).kind(Kind.DECISION).source(Source.SYSTEM).build();
    }

    private void writeOne(Caller user, MemoryKey key, String write) {
        long start = System.nanoTime();
        try {
            Outcome o = engine.propose(user, proposal(user, key, write, "-", 1));
            long end = System.nanoTime();
            MemoryRecord r = applied(o);
            journal(InstanceJournal.write(user.user(), key.path(), r.id(), r.version(), write, start, end));
        } catch (StaleVersionException e) {
            journal(InstanceJournal.failed("write", user.user(), e));
        }
    }

    private void writeBatch(Caller user, Random random, String batch) {
        int parts = 2 + random.nextInt(3);
        List<Integer> keys = new ArrayList<>();
        for (int k = 0; k < KEYS; k++) {
            keys.add(k);
        }
        java.util.Collections.shuffle(keys, random);
        List<Proposal> proposals = new ArrayList<>();
        for (int i = 0; i < parts; i++) {
            proposals.add(proposal(user, MemoryKey.of("k" + keys.get(i)), batch + "p" + i, batch, parts));
        }
        long start = System.nanoTime();
        try {
            List<Outcome> outcomes = engine.propose(user, proposals);
            long end = System.nanoTime();
            List<MemoryRecord> records = outcomes.stream().map(InstanceWorker::applied).toList();
            journal(InstanceJournal.batch(user.user(), batch, records, start, end));
        } catch (StaleVersionException e) {
            journal(InstanceJournal.failed("batch", user.user(), e));
        }
    }

    private void forget(Caller user, MemoryKey key) {
        long start = System.nanoTime();
        try {
            ForgetReceipt receipt = engine.forget(user, ForgetTarget.key(user.persistent(), key), ForgetMode.SOFT);
            long end = System.nanoTime();
            journal(InstanceJournal.forget(user.user(), key.path(), receipt.recordIds(), start, end));
        } catch (StaleVersionException e) {
            journal(InstanceJournal.failed("forget", user.user(), e));
        }
    }

    private void read(Caller user, MemoryKey key) {
        long start = System.nanoTime();
        Optional<MemoryRecord> seen = engine.current(user, user.persistent(), key);
        long end = System.nanoTime();
        journal(InstanceJournal.read(user.user(), key.path(), seen.orElse(null), start, end));
    }

    private void auditAll() {
        List<Caller> users = new ArrayList<>();
        for (int u = 0; u < SHARED_USERS; u++) {
            users.add(shared(u));
        }
        users.add(own(slot));
        for (Caller user : users) {
            AuditReport audit = engine.admin().audit(user, Duration.ofDays(365));
            journal(InstanceJournal.audit(user.user(), audit));
        }
    }

    private static MemoryRecord applied(Outcome o) {
        if (!o.isApplied() || o.record() == null) {
            throw new IllegalStateException(o.proposal().key() + " not applied: " + o.result() + " " + o.reason());
        }
        return o.record();
    }

    /** One journal line, in one write (no buffer: a kill loses at most the line being written). */
    private void journal(String line) {
        byte[] bytes = (line + "\n").getBytes(StandardCharsets.UTF_8);
        synchronized (journal) {
            try {
                journal.write(bytes);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private void say(String line) {
        synchronized (out) {
            out.println(line);
            out.flush();
        }
    }
}

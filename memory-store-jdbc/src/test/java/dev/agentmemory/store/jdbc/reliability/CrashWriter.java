package dev.agentmemory.store.jdbc.reliability;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.engine.MemoryEngine.Messages;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryValue;
import dev.agentmemory.core.Proposal.Outcome;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.core.event.StoredMessage;
import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.store.jdbc.JdbcStores;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The child process of {@link CrashConsistencyTest}: writes proposal batches to a store (an H2
 * file, or a JDBC URL such as PostgreSQL's) from several threads until it is killed, printing {@code ACK} lines for every batch the
 * engine acknowledged. Not a test by itself.
 *
 * <p>Each batch {@code b} of a thread holds {@code parts} records {@code b.<id>.p<i>} whose value
 * names the batch and its size, plus the thread's counter key set to the batch number, plus
 * one message in the thread's session: a batch applied in part is detectable after a crash.
 *
 * <p>Snapshots are taken every {@value #SNAPSHOT_EVERY} events, so kills also hit snapshot writes.
 *
 * <p>Arguments: the store (an H2 file path, or a JDBC URL whose user and password are the
 * environment's {@code AGENTMEMORY_TEST_PG_USER} and {@code AGENTMEMORY_TEST_PG_PASSWORD}), run
 * number, threads, users.
 */
final class CrashWriter {

    static final String TENANT = "crash";
    /** Events between snapshots in the child (the default is 1,000: far more than a run writes). */
    static final int SNAPSHOT_EVERY = 5;

    private CrashWriter() {
    }

    static Caller user(int u) {
        return Caller.of(TENANT, "u" + u);
    }

    static String batchId(int run, int thread, int n) {
        return "r" + run + "-t" + thread + "-n" + n;
    }

    public static void main(String[] args) throws Exception {
        String target = args[0];
        int run = Integer.parseInt(args[1]);
        int threads = Integer.parseInt(args[2]);
        int users = Integer.parseInt(args[3]);
        PrintStream out = System.out;
        // a snapshot every few events, so that kills land while snapshots are written too
        MemoryEngine engine = MemoryEngine.builder().store(open(target)).snapshotEvery(SNAPSHOT_EVERY).build();
        // A parent that died leaves our stdin at EOF: stop then instead of writing forever.
        Thread watchdog = new Thread(() -> {
            try {
                while (System.in.read() >= 0) {
                    // keep waiting
                }
            } catch (IOException e) {
                // parent gone
            }
            Runtime.getRuntime().halt(3);
        });
        watchdog.setDaemon(true);
        watchdog.start();
        synchronized (out) {
            out.println("READY " + run);
            out.flush();
        }
        runThreads(threads, thread -> writeForever(engine, out, run, thread, users));
        engine.close();
    }

    /**
     * Runs {@code body} on {@code threads} threads of a child JVM and waits for them; a thread
     * that throws ends the JVM at once with exit code 2 (the parent sees a failed child, not a
     * quietly smaller run).
     */
    static void runThreads(int threads, java.util.function.IntConsumer body) throws InterruptedException {
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            Thread w = new Thread(() -> body.accept(thread));
            w.setUncaughtExceptionHandler((th, e) -> {
                e.printStackTrace();
                Runtime.getRuntime().halt(2);
            });
            workers.add(w);
            w.start();
        }
        for (Thread w : workers) {
            w.join();
        }
    }

    /** The store {@code target} names: a JDBC URL (credentials from the environment) or an H2 file path. */
    static EventStore open(String target) {
        if (target.startsWith("jdbc:")) {
            return JdbcStores.connect(target, env("AGENTMEMORY_TEST_PG_USER"), env("AGENTMEMORY_TEST_PG_PASSWORD"));
        }
        return JdbcStores.h2File(Path.of(target));
    }

    static String env(String name) {
        String value = System.getenv(name);
        return value == null ? "" : value;
    }

    private static void writeForever(MemoryEngine engine, PrintStream out, int run, int thread, int users) {
        Random random = new Random(run * 1_000L + thread);
        for (int n = 1; n <= 100_000; n++) {
            int u = random.nextInt(users);
            Caller caller = user(u);
            String id = batchId(run, thread, n);
            int parts = 2 + random.nextInt(4);
            List<Proposal> batch = new ArrayList<>();
            for (int i = 0; i < parts; i++) {
                MemoryValue value = MemoryValue.parse("{\"batch\":\"" + id + "\",\"parts\":" + parts + ",\"i\":" + i
                        + ",\"pad\":\"" + "x".repeat(random.nextInt(200)) + "\"}");
                batch.add(Proposal.set(caller.persistent(), MemoryKey.of("b." + id + ".p" + i), value)
                        .kind(Kind.DECISION).source(Source.SYSTEM).build());
            }
            batch.add(Proposal.set(caller.persistent(), MemoryKey.of("counter.r" + run + "-t" + thread),
                    MemoryValue.of(n)).kind(Kind.DECISION).source(Source.SYSTEM).build());
            List<Outcome> outcomes = engine.propose(caller, batch);
            for (Outcome o : outcomes) {
                if (!o.isApplied()) {
                    throw new IllegalStateException("batch " + id + " not applied: " + o.result() + " " + o.reason());
                }
            }
            String session = "s-r" + run + "-t" + thread;
            int number = n;
            engine.messages().change(caller, session, window -> {
                long next = window.isEmpty() ? 0 : window.get(window.size() - 1).index() + 1;
                List<Long> evicted = window.size() >= 5 ? List.of(window.get(0).index()) : List.of();
                String text = "message of " + id;
                StoredMessage m = new StoredMessage(next, next, "USER",
                        "{\"text\":\"" + text + "\",\"n\":" + number + "}", text);
                return new Messages.WindowChange(evicted, List.of(m));
            });
            synchronized (out) {
                out.println("ACK u" + u + " " + id + " " + parts);
                out.flush();
            }
        }
    }
}

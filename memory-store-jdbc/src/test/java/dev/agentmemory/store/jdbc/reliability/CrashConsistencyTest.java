package dev.agentmemory.store.jdbc.reliability;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ScopeView.KeyState;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.MemoryRecord.Status;
import dev.agentmemory.core.audit.AuditReport;
import dev.agentmemory.core.event.LoggedEvent;
import dev.agentmemory.core.event.StoredMessage;
import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.core.spi.Partition;
import dev.agentmemory.store.jdbc.JdbcStores;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Issue 6, test 1: a child JVM writes proposal batches to an H2 file store from several threads
 * and is killed with SIGKILL at random moments, many times in a row on the same database. After
 * every kill the store is reopened and checked: every acknowledged batch is there in full, no
 * batch is there in part, message appends acknowledged are there, versions are contiguous,
 * the audit passes and the state equals a replay of the log. {@link PostgresCrashConsistencyTest}
 * runs the same on PostgreSQL.
 */
@Tag("slow")
class CrashConsistencyTest {

    /** Kills per run; {@code -Dcrash.kills=N} for a longer stress run. */
    private static final int KILLS = Integer.getInteger("crash.kills", 10);
    /**
     * Most acknowledgements before a kill; {@code -Dcrash.maxAcks=8} kills soon after each start,
     * which is when H2 lost acknowledged appends while it reused freed space in the file.
     */
    private static final int MAX_ACKS = Integer.getInteger("crash.maxAcks", 30);
    private static final int THREADS = 3;
    private static final int USERS = 3;
    /** Upper bound for waiting on the child; a hang fails the test instead of stalling the build. */
    private static final long CHILD_STALL_SECONDS = 60;

    private record Ack(String user, String batch, int parts) {
    }

    @Test
    void should_keep_every_acknowledged_batch_whole_when_the_writer_is_killed_repeatedly(@TempDir Path dir)
            throws Exception {
        Path db = dir.resolve("crash");
        // A close that leaves the file locked would stop the next process from opening it.
        // (H2's own asserts, when enabled, aborted SHUTDOWN in LOB cleanup after a kill.)
        runKills(dir, db.toString(), () -> JdbcStores.h2File(db),
                run -> assertThat(lockHolder(db)).as("the file after the checker closed it, run %d", run).isEqualTo("free"));
    }

    /** What a store-specific test checks after each run's check has closed its store. */
    @FunctionalInterface
    interface AfterCheck {
        void run(int run) throws Exception;
    }

    /**
     * The test on any store: {@code target} is what {@link CrashWriter} opens (an H2 file path or
     * a JDBC URL), {@code reopen} opens the same store in this JVM for the check after each kill.
     */
    void runKills(Path dir, String target, Supplier<EventStore> reopen, AfterCheck afterCheck) throws Exception {
        // given
        Random random = new Random(20241015L);
        List<Ack> acked = new ArrayList<>();
        int killed = 0;
        long batchesChecked = 0;
        long recordsChecked = 0;
        long messagesChecked = 0;
        long usersWithSnapshots = 0;
        for (int run = 1; run <= KILLS; run++) {
            // when: the child writes until it is killed after a random number of acknowledgements
            int killAfter = run % 5 == 0 ? 0 : 1 + random.nextInt(MAX_ACKS);
            long t0 = System.nanoTime();
            List<Ack> runAcks = runAndKill(dir, target, run, killAfter);
            long t1 = System.nanoTime();
            acked.addAll(runAcks);
            killed++;

            // then
            Stats s = check(reopen.get(), acked);
            afterCheck.run(run);
            System.out.printf("crash run %d: child %d ms, check %d ms%n", run, (t1 - t0) / 1_000_000,
                    (System.nanoTime() - t1) / 1_000_000);
            batchesChecked += s.batches;
            recordsChecked += s.records;
            messagesChecked += s.messages;
            usersWithSnapshots = Math.max(usersWithSnapshots, s.snapshots);
            System.out.printf("crash run %d: killed after %d acks (target %d); store holds %d batches, %d unacked,"
                            + " %d users with a snapshot%n",
                    run, runAcks.size(), killAfter, s.batchesPresent, s.batchesPresent - acked.size(), s.snapshots);
        }
        System.out.printf("CRASH CONSISTENCY (%s): kills survived=%d, acknowledged batches=%d, "
                        + "batch checks=%d, record checks=%d, message checks=%d%n", target.startsWith("jdbc:") ? "jdbc" : "H2 file",
                killed, acked.size(), batchesChecked, recordsChecked, messagesChecked);
        assertThat(killed).isEqualTo(KILLS);
        assertThat(acked).isNotEmpty();
        assertThat(usersWithSnapshots).as("users whose snapshot the checker read and audited").isPositive();
    }

    /** Who holds the lock of the H2 file now: "free", "this JVM" or "another process". */
    private static String lockHolder(Path db) throws IOException {
        Path file = db.resolveSibling(db.getFileName() + ".mv.db");
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(file,
                java.nio.file.StandardOpenOption.WRITE)) {
            java.nio.channels.FileLock lock = ch.tryLock();
            if (lock == null) {
                return "another process";
            }
            lock.release();
            return "free";
        } catch (java.nio.channels.OverlappingFileLockException e) {
            return "this JVM";
        }
    }

    /**
     * This JVM's class path, plus its module path when surefire runs the tests on it (memory-core
     * is a named module): the child runs everything from the class path.
     */
    static String childClassPath() {
        String modules = System.getProperty("jdk.module.path", "");
        String classes = System.getProperty("java.class.path", "");
        return modules.isEmpty() ? classes : modules + java.io.File.pathSeparator + classes;
    }

    private List<Ack> runAndKill(Path dir, String target, int run, int killAfter) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-cp", childClassPath(), CrashWriter.class.getName(),
                target, Integer.toString(run), Integer.toString(THREADS), Integer.toString(USERS));
        Path err = dir.resolve("child-" + run + ".err");
        pb.redirectError(err.toFile());
        Process child = pb.start();
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    lines.add(line);
                }
            } catch (IOException e) {
                // the child died; what was read stays in the queue
            } finally {
                lines.add("EOF");
            }
        });
        reader.start();
        List<Ack> acks = new ArrayList<>();
        boolean ready = false;
        try {
            while (!ready || acks.size() < killAfter) {
                String line = lines.poll(CHILD_STALL_SECONDS, TimeUnit.SECONDS);
                if (line == null) {
                    fail("child of run " + run + " made no progress for " + CHILD_STALL_SECONDS + " s");
                }
                if (line.equals("EOF")) {
                    fail("child of run " + run + " died by itself: " + Files.readString(err));
                }
                if (line.startsWith("READY")) {
                    ready = true;
                } else {
                    acks.add(parse(line));
                }
            }
        } finally {
            child.destroyForcibly();
            child.waitFor(CHILD_STALL_SECONDS, TimeUnit.SECONDS);
        }
        reader.join(TimeUnit.SECONDS.toMillis(CHILD_STALL_SECONDS));
        // acknowledgements printed before the kill but not read yet count too
        for (String line; (line = lines.poll()) != null && !line.equals("EOF"); ) {
            acks.add(parse(line));
        }
        assertThat(child.isAlive()).isFalse();
        return acks;
    }

    private static Ack parse(String line) {
        String[] f = line.split(" ");
        if (f.length != 4 || !f[0].equals("ACK")) {
            throw new AssertionError("unexpected child output: " + line);
        }
        return new Ack(f[1], f[2], Integer.parseInt(f[3]));
    }

    private static final class Stats {
        long batches;
        long records;
        long messages;
        long batchesPresent;
        long snapshots;
    }

    private static Stats check(EventStore store, List<Ack> acked) {
        Stats stats = new Stats();
        try (MemoryEngine engine = MemoryEngine.builder().store(store).build()) {
            Map<String, Map<String, Integer>> partsByBatchByUser = new HashMap<>();
            Map<String, Map<String, Long>> countersByUser = new HashMap<>();
            for (int u = 0; u < USERS; u++) {
                Caller caller = CrashWriter.user(u);
                boolean snapshot = store.snapshot(new Partition(caller.tenant(), caller.user())).isPresent();
                // (the audit also compares the snapshot the child wrote, plus the log after it, with a full replay)
                AuditReport audit = engine.admin().audit(caller, Duration.ofDays(365));
                assertThat(audit.consistent()).as("audit of %s: %s", caller.user(), audit.lines()).isTrue();
                if (snapshot) {
                    stats.snapshots++;
                }

                List<LoggedEvent> log = engine.admin().log(caller);
                for (int i = 0; i < log.size(); i++) {
                    assertThat(log.get(i).seq()).as("log sequence of %s", caller.user()).isEqualTo(i + 1L);
                }

                Map<String, Integer> present = new HashMap<>();
                Map<String, Integer> declared = new HashMap<>();
                Map<String, Long> counters = new HashMap<>();
                for (KeyState k : engine.view(caller, caller.persistent()).keys()) {
                    MemoryRecord r = k.current();
                    assertThat(r).as("current of %s", k.key()).isNotNull();
                    assertThat(r.status()).isEqualTo(Status.ACTIVE);
                    List<MemoryRecord> history = engine.history(caller, caller.persistent(), k.key());
                    for (int v = 0; v < history.size(); v++) {
                        assertThat(history.get(v).version()).as("versions of %s", k.key()).isEqualTo(v + 1L);
                    }
                    stats.records++;
                    String key = k.key().path();
                    if (key.startsWith("counter.")) {
                        counters.put(key.substring("counter.".length()), r.value().node().asLong());
                        continue;
                    }
                    JsonNode v = r.value().node();
                    String batch = v.get("batch").asText();
                    assertThat(key).startsWith("b." + batch + ".p");
                    present.merge(batch, 1, Integer::sum);
                    declared.put(batch, v.get("parts").asInt());
                }
                // no batch is visible in part
                for (Map.Entry<String, Integer> e : present.entrySet()) {
                    assertThat(e.getValue()).as("parts of batch %s of %s", e.getKey(), caller.user())
                            .isEqualTo(declared.get(e.getKey()));
                    stats.batches++;
                }
                // each thread's counter was written in the same append as its batch
                for (Map.Entry<String, Long> c : counters.entrySet()) {
                    String[] rt = c.getKey().split("-");
                    String batch = rt[0] + "-" + rt[1] + "-n" + c.getValue();
                    assertThat(present).as("batch of counter %s of %s", c.getKey(), caller.user()).containsKey(batch);
                }
                stats.batchesPresent += present.size();
                partsByBatchByUser.put(caller.user(), present);
                countersByUser.put(caller.user(), counters);

                Set<String> sessions = new HashSet<>();
                for (LoggedEvent e : log) {
                    if (e.change() instanceof dev.agentmemory.core.event.Change.MessagesAppended m) {
                        sessions.add(m.session());
                    }
                }
                Set<String> messageTexts = new HashSet<>();
                for (String session : sessions) {
                    List<Long> indices = new ArrayList<>(engine.messages().history(caller, session).keySet());
                    for (int i = 0; i < indices.size(); i++) {
                        assertThat(indices.get(i)).as("message indices of %s", session).isEqualTo((long) i);
                    }
                    for (StoredMessage msg : engine.messages().history(caller, session).values()) {
                        messageTexts.add(msg.text());
                    }
                }
                partsByBatchByUser.computeIfAbsent(caller.user() + "#messages", x -> new HashMap<>());
                for (String text : messageTexts) {
                    partsByBatchByUser.get(caller.user() + "#messages").put(text, 1);
                }
            }
            // every acknowledged batch is there in full, with its message
            for (Ack a : acked) {
                assertThat(partsByBatchByUser.get(a.user())).as("acknowledged batch %s of %s", a.batch(), a.user())
                        .containsEntry(a.batch(), a.parts());
                assertThat(partsByBatchByUser.get(a.user() + "#messages"))
                        .as("message of acknowledged batch %s", a.batch()).containsKey("message of " + a.batch());
                String[] f = a.batch().split("-");
                long n = Long.parseLong(f[2].substring(1));
                assertThat(countersByUser.values().stream()
                        .mapToLong(m -> m.getOrDefault(f[0] + "-" + f[1], 0L)).max().orElse(0))
                        .as("counter of %s-%s", f[0], f[1]).isGreaterThanOrEqualTo(n);
                stats.messages++;
            }
            assertThat(engine.current(CrashWriter.user(0), CrashWriter.user(0).persistent(), MemoryKey.of("none.here")))
                    .isEmpty();
        }
        return stats;
    }
}

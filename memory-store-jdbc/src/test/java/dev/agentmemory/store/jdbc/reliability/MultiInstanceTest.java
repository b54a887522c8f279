package dev.agentmemory.store.jdbc.reliability;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.store.jdbc.testing.PostgresTestDatabase;
import dev.agentmemory.store.jdbc.testing.RequiresPostgres;
import dev.agentmemory.store.jdbc.JdbcStores;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Several application instances, each a JVM with its own engine and pool ({@link InstanceWorker}),
 * share one memory on one fresh PostgreSQL database: three run at a time, on their own users and
 * on users they all serve, and some are killed with SIGKILL mid-run and replaced by new ones (a
 * replacement serves the killed instance's own users). Afterwards {@link MultiInstanceCheck}
 * holds their journals against the stored log: nothing acknowledged lost or stored twice, no
 * partial batch, every read saw every change acknowledged before it began, audits clean.
 */
@Tag("slow")
@ExtendWith(RequiresPostgres.class)
class MultiInstanceTest {

    /** Instances live at a time. */
    private static final int LIVE = 3;
    /** Instances started in all; {@code -Dmulti.instances=N} for a longer run. */
    private static final int INSTANCES = Integer.getInteger("multi.instances", 7);
    /** Instances (by number) killed mid-run; the others end by themselves. */
    private static final Set<Integer> KILLED = Set.of(0, 1, 3, 5);
    private static final int THREADS = 2;
    /** Operations per thread of an instance; {@code -Dmulti.ops=N}. */
    private static final int OPS = Integer.getInteger("multi.ops", 150);
    /** Longest wait for any instance to say anything; a hang fails the test instead of stalling the build. */
    private static final long STALL_SECONDS = 60;

    private record Line(int instance, String text) {
    }

    /** A running instance. */
    private static final class Child {
        final int instance;
        final int slot;
        final int killAt;
        final Process process;
        final Path err;
        boolean killed;
        boolean done;

        Child(int instance, int slot, int killAt, Process process, Path err) {
            this.instance = instance;
            this.slot = slot;
            this.killAt = killAt;
            this.process = process;
            this.err = err;
        }

        void go() throws IOException {
            OutputStream in = process.getOutputStream();
            in.write("GO\n".getBytes(StandardCharsets.UTF_8));
            in.flush();
        }
    }

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void should_share_one_memory_when_instances_write_read_forget_and_are_killed_and_replaced(@TempDir Path dir)
            throws Exception {
        PostgresTestDatabase pg = PostgresTestDatabase.require(getClass());
        String schema = pg.createSchema("multi");
        String url = pg.urlOf(schema);
        long t0 = System.nanoTime();
        Random random = new Random(20261202L);
        BlockingQueue<Line> lines = new LinkedBlockingQueue<>();
        Map<Integer, Child> live = new HashMap<>();
        int started = 0;
        int killed = 0;
        int endedByThemselves = 0;
        int ready = 0;
        try {
            // given: three instances, started together on the fresh database
            for (int slot = 0; slot < LIVE; slot++) {
                live.put(started, start(dir, url, started, slot, random, lines));
                started++;
            }
            // when: they run; some are killed mid-run, each replaced by a new instance on its slot
            while (!live.isEmpty()) {
                Line line = lines.poll(STALL_SECONDS, TimeUnit.SECONDS);
                if (line == null) {
                    fail("no instance said anything for " + STALL_SECONDS + " s; live: " + live.keySet());
                }
                Child c = live.get(line.instance());
                if (c == null) {
                    continue;
                }
                String text = line.text();
                if (text.startsWith("READY")) {
                    ready++;
                    if (c.instance >= LIVE) {
                        c.go();
                    } else if (ready == LIVE) {
                        for (Child first : live.values()) {
                            first.go();
                        }
                    }
                } else if (text.startsWith("P ")) {
                    if (c.killAt > 0 && !c.killed && Integer.parseInt(text.substring(2)) >= c.killAt) {
                        c.process.destroyForcibly();
                        c.killed = true;
                        killed++;
                    }
                } else if (text.startsWith("DONE")) {
                    c.done = true;
                } else if (text.equals("EOF")) {
                    if (!c.process.waitFor(STALL_SECONDS, TimeUnit.SECONDS)) {
                        fail("instance " + c.instance + " closed its output but did not exit");
                    }
                    if (!c.killed) {
                        assertThat(c.done && c.process.exitValue() == 0)
                                .as("instance %d ended by itself (exit %d): %s", c.instance, c.process.exitValue(),
                                        Files.readString(c.err)).isTrue();
                        endedByThemselves++;
                    }
                    live.remove(c.instance);
                    if (started < INSTANCES) {
                        live.put(started, start(dir, url, started, c.slot, random, lines));
                        started++;
                    }
                } else {
                    fail("instance " + c.instance + " said: " + text);
                }
            }
            long t1 = System.nanoTime();

            // then
            InstanceJournal.Entries journal = new InstanceJournal.Entries();
            for (int i = 0; i < started; i++) {
                InstanceJournal.parse(i, journalOf(dir, i), journal);
            }
            List<Caller> users = new ArrayList<>();
            for (int u = 0; u < InstanceWorker.SHARED_USERS; u++) {
                users.add(InstanceWorker.shared(u));
            }
            for (int slot = 0; slot < LIVE; slot++) {
                users.add(InstanceWorker.own(slot));
            }
            MultiInstanceCheck check = new MultiInstanceCheck();
            try (MemoryEngine fresh = MemoryEngine.builder().store(JdbcStores.connect(url, pg.user(), pg.password())).build()) {
                check.check(fresh, users, journal);
            }
            System.out.printf("MULTI INSTANCE: JVMs started=%d (%d live at a time), killed=%d, ended by themselves=%d,"
                            + " users=%d (%d shared), acknowledged writes=%d (batches=%d), forgets=%d, reads=%d,"
                            + " read checks=%d (after another instance's change=%d), failed ops (not acknowledged)=%d,"
                            + " unacknowledged writes in the log=%d, log events=%d, violations=%d %s; run %d ms, check %d ms%n",
                    started, LIVE, killed, endedByThemselves, users.size(), InstanceWorker.SHARED_USERS,
                    check.acknowledgedWrites, journal.batches, journal.forgets.size(), journal.reads.size(),
                    check.readChecks, check.readChecksAfterAnotherInstance, journal.failures.size(),
                    check.unacknowledgedWritesInLog, check.logEvents, check.violations.size(), check.violationsByKind,
                    (t1 - t0) / 1_000_000, (System.nanoTime() - t1) / 1_000_000);
            journal.failures.stream().limit(3).forEach(f -> System.out.println("  failed: " + f));
            check.violations.stream().limit(40).forEach(v -> System.out.println("  VIOLATION: " + v));
            assertThat(check.violations).as("violations (%d)", check.violations.size()).isEmpty();
            assertThat(started).isEqualTo(INSTANCES);
            assertThat(killed).isEqualTo((int) KILLED.stream().filter(i -> i < INSTANCES).count());
            assertThat(check.acknowledgedWrites).isPositive();
            assertThat(check.readChecksAfterAnotherInstance).as("reads checked against another instance's write")
                    .isPositive();
        } finally {
            for (Child c : live.values()) {
                c.process.destroyForcibly();
                c.process.waitFor(STALL_SECONDS, TimeUnit.SECONDS);
            }
            pg.dropSchema(schema);
        }
    }

    private static Path journalOf(Path dir, int instance) {
        return dir.resolve("instance-" + instance + ".journal");
    }

    private static Child start(Path dir, String url, int instance, int slot, Random random, BlockingQueue<Line> lines)
            throws IOException {
        int ops = THREADS * OPS;
        int killAt = KILLED.contains(instance) ? ops / 5 + random.nextInt(ops / 2) : 0;
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx192m", "-XX:TieredStopAtLevel=1", "-cp", CrashConsistencyTest.childClassPath(),
                InstanceWorker.class.getName(), url, Integer.toString(instance), Integer.toString(slot),
                Integer.toString(THREADS), Integer.toString(OPS), journalOf(dir, instance).toString());
        Path err = dir.resolve("instance-" + instance + ".err");
        pb.redirectError(err.toFile());
        Files.createFile(journalOf(dir, instance));
        Process process = pb.start();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    lines.add(new Line(instance, line));
                }
            } catch (IOException e) {
                // killed; what was read is in the queue
            } finally {
                lines.add(new Line(instance, "EOF"));
            }
        }, "instance-" + instance + "-output");
        reader.setDaemon(true);
        reader.start();
        return new Child(instance, slot, killAt, process, err);
    }
}

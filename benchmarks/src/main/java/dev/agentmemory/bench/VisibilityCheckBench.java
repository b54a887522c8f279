package dev.agentmemory.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.core.spi.EventStore;
import dev.agentmemory.store.jdbc.JdbcStores;
import dev.agentmemory.langchain4j.AgentMemory;
import dev.agentmemory.langchain4j.SessionRef;
import java.io.PrintStream;
import java.util.Random;

/**
 * Part c of {@code perf-postgres}: what the cross-instance visibility check (a read of the user's
 * stored head before every engine call, when the store has other writers) costs per call. Two
 * engines on the same PostgreSQL database, each with its own pool and users: one over the
 * the JDBC store ({@link JdbcStores}) as it is (the check on), one over the same kind of store wrapped in
 * {@link UnsharedEventStore} (the check off). Alternated call by call, the order swapped every
 * round: a write (one record), {@link #READS_PER_ROUND} reads ({@code engine.current} of one
 * key) and a whole {@link ChatTurns} turn per round. Reported per kind of call:
 * median and p99 with and without the check, the median's difference in microseconds and the
 * ratio with/without.
 */
final class VisibilityCheckBench {

    static final int READS_PER_ROUND = 5;

    private final PostgresPerfSuite.Server server;
    private final String tenant;
    private final int rounds;

    VisibilityCheckBench(PostgresPerfSuite.Server server, String tenant, int rounds) {
        this.server = server;
        this.tenant = tenant;
        this.rounds = rounds;
    }

    ObjectNode run(PrintStream out) {
        EventStore shared = JdbcStores.connect(server.url(), server.user(), server.password());
        if (!shared.sharedWithOtherWriters()) {
            shared.close();
            throw new IllegalStateException(server + " does not count as shared with other writers: no check to measure");
        }
        try (MemoryEngine on = MemoryEngine.builder().store(shared).build();
             MemoryEngine off = MemoryEngine.builder()
                     .store(new UnsharedEventStore(JdbcStores.connect(server.url(), server.user(), server.password())))
                     .build();
             AgentMemory checked = AgentMemory.builder().engine(on).build();
             AgentMemory unchecked = AgentMemory.builder().engine(off).build()) {
            return measure(new AgentMemory[] {checked, unchecked}, out);
        }
    }

    private ObjectNode measure(AgentMemory[] memories, PrintStream out) {
        String[] who = {"check-on", "check-off"};
        SessionRef[] sessions = new SessionRef[2];
        ChatTurns[] chats = new ChatTurns[2];
        Caller[] callers = new Caller[2];
        for (int s = 0; s < 2; s++) {
            sessions[s] = new SessionRef(tenant, "visibility-" + who[s], "chat-1");
            chats[s] = new ChatTurns(memories[s], "note.", 23);
            chats[s].preload(sessions[s], StoreSideBySideBench.RECORDS);
            callers[s] = memories[s].caller(sessions[s]);
        }
        Random random = new Random(3);
        int warmup = Math.max(5, rounds / 10);
        double[][] readUs = new double[2][rounds * READS_PER_ROUND];
        double[][] writeUs = new double[2][rounds];
        double[][] turnUs = new double[2][rounds];
        for (int r = 0; r < warmup + rounds; r++) {
            boolean keep = r >= warmup;
            int i = r - warmup;
            for (int k = 0; k < 2; k++) {
                int s = (r + k) % 2;
                MemoryEngine engine = memories[s].engine();
                // the write first: after the reads, only the checking engine's connection would be warm
                long t = System.nanoTime();
                engine.write(callers[s], Proposal.set(callers[s].persistent(), "check." + (r % 10), "value " + r)
                        .kind(Kind.DECISION).source(Source.USER).build());
                long wrote = System.nanoTime() - t;
                for (int q = 0; q < READS_PER_ROUND; q++) {
                    MemoryKey key = MemoryKey.of("fact." + random.nextInt(StoreSideBySideBench.RECORDS));
                    t = System.nanoTime();
                    engine.current(callers[s], callers[s].persistent(), key);
                    long took = System.nanoTime() - t;
                    if (keep) {
                        readUs[s][i * READS_PER_ROUND + q] = took / 1e3;
                    }
                }
                long turn = chats[s].turn(sessions[s]);
                if (keep) {
                    writeUs[s][i] = wrote / 1e3;
                    turnUs[s][i] = turn / 1e3;
                }
            }
        }
        ObjectNode json = JsonNodeFactory.instance.objectNode();
        json.put("rounds", rounds);
        json.put("check", "EventStore.lastSequence before each engine call (on), skipped by sharedWithOtherWriters()"
                + " = false (off)");
        json.set("read_us", compare(readUs));
        json.set("write_us", compare(writeUs));
        json.set("turn_us", compare(turnUs));
        out.printf("%nc. cross-instance visibility check on PostgreSQL, per call (microseconds)%n");
        out.printf("%-8s %8s %12s %12s %12s %12s %12s %10s%n", "call", "calls", "on median", "on p99", "off median",
                "off p99", "extra us", "on/off");
        row(out, "read", readUs[0].length, json.get("read_us"));
        row(out, "write", writeUs[0].length, json.get("write_us"));
        row(out, "turn", turnUs[0].length, json.get("turn_us"));
        return json;
    }

    /** With ({@code [0]}) and without ({@code [1]}) the check. */
    private static ObjectNode compare(double[][] us) {
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        double on = Stats.percentile(us[0], 50);
        double off = Stats.percentile(us[1], 50);
        o.set("with_check", Stats.latency(us[0]));
        o.set("without_check", Stats.latency(us[1]));
        o.put("extra_us_per_call", Stats.round(on - off));
        o.put("ratio_median", Stats.ratio(on, off));
        return o;
    }

    private static void row(PrintStream out, String what, int calls, JsonNode j) {
        out.printf("%-8s %8d %12s %12s %12s %12s %12s %10s%n", what, calls,
                Stats.f3(j.get("with_check").get("median").asDouble()), Stats.f3(j.get("with_check").get("p99").asDouble()),
                Stats.f3(j.get("without_check").get("median").asDouble()),
                Stats.f3(j.get("without_check").get("p99").asDouble()), Stats.f3(j.get("extra_us_per_call").asDouble()),
                Stats.f3(j.get("ratio_median").asDouble()));
    }
}

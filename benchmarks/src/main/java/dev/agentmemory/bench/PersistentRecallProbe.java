package dev.agentmemory.bench;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.core.MemoryValue;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.langchain4j.AgentMemory;
import dev.agentmemory.langchain4j.SessionRef;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.rag.query.Metadata;
import dev.langchain4j.rag.query.Query;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * What the persistent layer of a recall costs a user with many persistent keys, in CPU time of
 * the recalling thread (the machine is shared; wall times mostly measure waiting for a core):
 * <ul>
 *   <li>{@code first_recall_cpu_ms}: the user's first recall in this process (the engine already
 *       loaded), which builds the user's persistent index over every key;</li>
 *   <li>{@code warm_recall_cpu_ms}: a recall with nothing changed since the last one (median);</li>
 *   <li>{@code after_remember_cpu_ms}: the recall right after one new key is remembered, what a
 *       steady-state turn pays (median of {@code ROUNDS}; the write itself not counted).</li>
 * </ul>
 * In memory, without an embedding model, so that only the persistent layer (and the session
 * state) is measured. JIT warmed on another user first. Arguments: {@code <keys> [runs]}; one JSON
 * line per run.
 */
public final class PersistentRecallProbe {

    private static final int ROUNDS = 15;
    private static final String[] WORDS = {"delivery", "kitchen", "colour", "tuesday", "refund", "invoice", "shoes",
        "garden", "window", "budget", "flight", "hotel", "dentist", "school", "piano", "coffee", "running", "python",
        "meeting", "printer", "holiday", "insurance", "mortgage", "recipe", "allergy", "birthday", "parking"};

    private PersistentRecallProbe() {
    }

    public static void main(String[] args) {
        int keys = Integer.parseInt(args[0]);
        int runs = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        try (AgentMemory memory = AgentMemory.builder()
                .engineSettings(e -> e.maxRecordsPerUser(keys + 1_000, MemoryEngine.AtLimit.REJECT)).build()) {
            SessionRef warm = new SessionRef("acme", "warmup", "chat");
            fill(memory, warm, Math.min(keys, 5_000), 7);
            for (int i = 0; i < 5; i++) {
                remember(memory, warm, "warm.extra" + i, "coffee " + i);
                recall(memory, warm, "which coffee did I order?");
            }
            for (int run = 0; run < runs; run++) {
                SessionRef user = new SessionRef("acme", "user" + run, "chat");
                fill(memory, user, keys, run);
                memory.engine().admin().sync(memory.caller(user));
                ObjectNode out = JsonNodeFactory.instance.objectNode();
                out.put("keys", keys);
                out.put("run", run);
                out.put("first_recall_cpu_ms", ms(recall(memory, user, "What did we choose about the delivery?")));
                List<Long> warmRecalls = new ArrayList<>();
                List<Long> afterRemember = new ArrayList<>();
                for (int i = 0; i < ROUNDS; i++) {
                    warmRecalls.add(recall(memory, user, "Which colour did we settle on for the kitchen?"));
                    remember(memory, user, "new.key" + i, "the new " + WORDS[i % WORDS.length] + " plan " + i);
                    afterRemember.add(recall(memory, user, "What about the " + WORDS[(i + 3) % WORDS.length] + "?"));
                }
                out.put("warm_recall_cpu_ms", ms(median(warmRecalls)));
                out.put("after_remember_cpu_ms", ms(median(afterRemember)));
                System.out.println(out);
            }
        }
    }

    private static void fill(AgentMemory memory, SessionRef user, int keys, int seed) {
        Random random = new Random(seed);
        Caller caller = memory.caller(user);
        for (int i = 0; i < keys; i++) {
            String value = WORDS[random.nextInt(WORDS.length)] + " " + WORDS[random.nextInt(WORDS.length)] + " note "
                    + i;
            memory.engine().write(caller, Proposal.set(caller.persistent(), MemoryKey.of("fact.k" + i),
                            MemoryValue.of(value)).kind(i % 50 == 0 ? Kind.PREFERENCE : Kind.DECISION)
                    .source(Source.USER).build());
        }
    }

    private static void remember(AgentMemory memory, SessionRef user, String key, String value) {
        Caller caller = memory.caller(user);
        memory.engine().write(caller, Proposal.set(caller.persistent(), MemoryKey.of(key), MemoryValue.of(value))
                .kind(Kind.DECISION).source(Source.USER).build());
    }

    /** The CPU time of one recall, in nanoseconds. */
    private static long recall(AgentMemory memory, SessionRef user, String text) {
        Metadata md = Metadata.builder().chatMessage(UserMessage.from(text))
                .invocationContext(InvocationContext.builder().chatMemoryId(user).build()).build();
        long c = cpu();
        memory.contentRetriever().retrieve(Query.from(text, md));
        return cpu() - c;
    }

    private static long median(List<Long> values) {
        List<Long> sorted = new ArrayList<>(values);
        sorted.sort(null);
        return sorted.get(sorted.size() / 2);
    }

    private static long cpu() {
        return ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
    }

    private static double ms(long nanos) {
        return Math.round(nanos / 10_000.0) / 100.0;
    }
}

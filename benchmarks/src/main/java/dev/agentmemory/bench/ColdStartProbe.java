package dev.agentmemory.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentmemory.langchain4j.AgentMemory;
import dev.agentmemory.langchain4j.SessionRef;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.model.embedding.onnx.allminilml6v2.AllMiniLmL6V2EmbeddingModel;
import dev.langchain4j.rag.query.Metadata;
import dev.langchain4j.rag.query.Query;
import java.io.File;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The first recall of a user in a new process, the way an application meets it: a {@code main}
 * that opens the H2 file (its index directory next to it, the default), and asks one recall of the
 * user. Run by {@link ColdStartBench} in a child JVM; prints one JSON line with its phases:
 * <ul>
 *   <li>{@code jvm_ms}: the JVM's uptime when {@code main} starts;</li>
 *   <li>{@code open_ms}: building the {@link AgentMemory} (H2 file and Lucene index opened);</li>
 *   <li>{@code warm_*}, with {@code warm}: before the user, the first recall of another user of the
 *       same files ({@code perf/small}, the bench's user of ten): what an application that is up and
 *       has served someone meets (classes loaded, the JIT started); the phases below then time the
 *       user's own first load and recall in that warm process;</li>
 *   <li>{@code load_ms}, with {@code split}: the engine's load of the user ({@code admin().sync}), made
 *       before the recall so that the recall's own share shows; without it, the recall loads the user;</li>
 *   <li>{@code first_recall_ms}: the first {@code contentRetriever().retrieve} of the user (catch-up
 *       of the episodic index, query embedding with the hashing model, search, labelling);</li>
 *   <li>{@code second_recall_ms}: another question right after (what the first one costs beyond it
 *       is start-up: classes, JIT, the user's first load and catch-up);</li>
 *   <li>{@code model_first_call_ms}: with {@code model}, AllMiniLmL6V2 built and asked one question
 *       in the same process afterwards (the default model's own first call, which an application pays
 *       once, not per user);</li>
 *   <li>{@code heap_bytes}: after the recalls, the heap the open memory holds (used heap after full
 *       GCs, less that before it was built): with the user of ten beside it, the heap per memory of
 *       the default configuration.</li>
 * </ul>
 * Each phase also in CPU time of the main thread ({@code *_cpu_ms}): wall times on a loaded
 * machine are mostly waiting for a core.
 * Arguments: {@code <h2 file> <tenant> <user> [warm] [split] [model] [hold]} ({@code hold}: two minutes
 * open after the measurement, for a class histogram).
 */
final class ColdStartProbe {

    private ColdStartProbe() {
    }

    public static void main(String[] args) throws Exception {
        long jvm = ManagementFactory.getRuntimeMXBean().getUptime();
        Path file = Path.of(args[0]);
        SessionRef session = new SessionRef(args[1], args[2], "chat");
        boolean split = List.of(args).contains("split");
        boolean withModel = List.of(args).contains("model");
        ObjectNode out = JsonNodeFactory.instance.objectNode();
        out.put("jvm_ms", jvm);
        long before = usedHeap();
        long t = System.nanoTime();
        long c = cpu();
        try (AgentMemory memory = AgentMemory.builder().h2File(file)
                .embeddingModel(new TurnOverheadBench.HashingEmbeddingModel(ColdStartBench.DIMENSIONS)).build()) {
            out.put("open_ms", ms(System.nanoTime() - t));
            out.put("open_cpu_ms", ms(cpu() - c));
            if (List.of(args).contains("warm")) {
                SessionRef other = new SessionRef(args[1], "small", "chat");
                t = System.nanoTime();
                c = cpu();
                memory.contentRetriever().retrieve(query(other, "What did we choose about the delivery?"));
                out.put("warm_other_user_ms", ms(System.nanoTime() - t));
                out.put("warm_other_user_cpu_ms", ms(cpu() - c));
            }
            if (split) {
                t = System.nanoTime();
                c = cpu();
                memory.engine().admin().sync(memory.caller(session));
                out.put("load_ms", ms(System.nanoTime() - t));
                out.put("load_cpu_ms", ms(cpu() - c));
            }
            t = System.nanoTime();
            c = cpu();
            memory.contentRetriever().retrieve(query(session, "What did we choose about the delivery?"));
            out.put("first_recall_ms", ms(System.nanoTime() - t));
            out.put("first_recall_cpu_ms", ms(cpu() - c));
            t = System.nanoTime();
            memory.contentRetriever().retrieve(query(session, "Which colour did we settle on for the kitchen?"));
            out.put("second_recall_ms", ms(System.nanoTime() - t));
            // after the timings: the heap the open memory holds with the user loaded, less what the
            // JVM held before it was built
            out.put("heap_bytes", usedHeap() - before);
            if (List.of(args).contains("hold")) {
                // for a class histogram of the open memory (jcmd <pid> GC.class_histogram)
                System.out.println(new ObjectMapper().writeValueAsString(out));
                Thread.sleep(120_000);
            }
        }
        if (withModel) {
            t = System.nanoTime();
            new AllMiniLmL6V2EmbeddingModel().embed("What did we choose about the delivery?");
            out.put("model_first_call_ms", ms(System.nanoTime() - t));
        }
        System.out.println(new ObjectMapper().writeValueAsString(out));
    }

    /** CPU time of this thread (the main one: class loading and our work; not GC nor the JIT's threads). */
    private static long cpu() {
        return ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
    }

    private static long usedHeap() {
        Runtime rt = Runtime.getRuntime();
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return rt.totalMemory() - rt.freeMemory();
    }

    private static Query query(SessionRef session, String question) {
        return Query.from(question, Metadata.builder().chatMessage(UserMessage.from(question))
                .invocationContext(InvocationContext.builder().chatMemoryId(session).build()).build());
    }

    private static double ms(long nanos) {
        return Math.round(nanos / 1e4) / 100.0;
    }

    /** Runs the probe in a new JVM (this one's java and class path) and returns its JSON line. */
    static ObjectNode inNewProcess(Path file, SessionRef session, String... flags) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx" + Runtime.getRuntime().maxMemory() / (1024 * 1024) + "m");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(ColdStartProbe.class.getName());
        command.add(file.toString());
        command.add(session.tenant());
        command.add(session.user());
        command.addAll(List.of(flags));
        Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String line;
        try (var reader = new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream(),
                java.nio.charset.StandardCharsets.UTF_8))) {
            line = reader.lines().filter(l -> l.startsWith("{")).reduce((a, b) -> b).orElse("");
        }
        if (!p.waitFor(30, TimeUnit.MINUTES) || p.exitValue() != 0 || line.isEmpty()) {
            p.destroyForcibly();
            throw new IllegalStateException("the cold-start probe failed on " + file + File.pathSeparator + session);
        }
        return (ObjectNode) new ObjectMapper().readTree(line);
    }
}

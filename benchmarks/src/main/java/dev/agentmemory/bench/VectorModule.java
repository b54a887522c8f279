package dev.agentmemory.bench;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * Lucene 10 on Java 21+ computes vector distances with the JDK's Vector API only when the JVM
 * was started with {@code --add-modules jdk.incubator.vector}, which a jar's manifest cannot ask
 * for. So that {@code java -jar benchmarks.jar ...} measures what a tuned application gets, a
 * benchmark JVM started without it starts itself once more with it (same JVM options, class path
 * and arguments) and exits with that run's code. Not with Lucene 9 (it has no Vector API code for
 * Java 23+) nor below Java 21; {@code -Dbench.vectorModule=false} keeps the JVM as started.
 */
final class VectorModule {

    private static final String MODULE = "jdk.incubator.vector";

    private VectorModule() {
    }

    /** Runs {@code mainClass} again in a JVM with the module when it would help; the exit code, or empty. */
    static OptionalInt relaunchIfMissing(Class<?> mainClass, String[] args) throws Exception {
        if (ModuleLayer.boot().findModule(MODULE).isPresent() || Runtime.version().feature() < 21
                || org.apache.lucene.util.Version.LATEST.major < 10
                || !Boolean.parseBoolean(System.getProperty("bench.vectorModule", "true"))) {
            return OptionalInt.empty();
        }
        String java = ProcessHandle.current().info().command().orElse(null);
        if (java == null) {
            return OptionalInt.empty();
        }
        List<String> command = new ArrayList<>();
        command.add(java);
        command.add("--add-modules");
        command.add(MODULE);
        command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        command.add("-Dbench.vectorModule=false");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass.getName());
        command.addAll(List.of(args));
        System.err.println("starting the benchmark again with --add-modules " + MODULE
                + " (Lucene 10's vector distances; -Dbench.vectorModule=false runs it without)");
        return OptionalInt.of(new ProcessBuilder(command).inheritIO().start().waitFor());
    }
}

package dev.agentmemory.store.jdbc.modules;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The store on the module path, as a modular application meets it: the store's other tests run on
 * the class path (see the pom), so this one starts a JVM whose observable modules are limited to
 * {@code dev.agentmemory.store.jdbc}, what its descriptor requires (the core and Jackson, H2,
 * HikariCP and theirs) and the PostgreSQL driver, and runs {@link ModulePathProbe} there: an H2 file
 * written and reopened through the engine, an in-memory H2 database, and a pool on a server that is
 * not there. Before the store left memory-core its code ran on the module path with the core's
 * tests; this keeps a modular run of it (javac checks the descriptor at compile time, this the
 * module graph the JVM resolves from it: H2 as an automatic module, the driver found as a service).
 */
class ModulePathTest {

    @Test
    void the_store_runs_with_only_the_modules_its_descriptor_requires(@TempDir Path dir) throws Exception {
        List<String> modulePath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(ModulePathTest::isModule).toList();
        String probeClasses = Path.of(ModulePathProbe.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                .toString();
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "--module-path", String.join(File.pathSeparator, modulePath),
                "--limit-modules", "dev.agentmemory.store.jdbc,org.postgresql.jdbc",
                "--add-modules", "dev.agentmemory.store.jdbc,org.postgresql.jdbc",
                "-cp", probeClasses,
                ModulePathProbe.class.getName(), dir.resolve("memory").toString(),
                "jdbc:postgresql://127.0.0.1:" + closedPort() + "/nothing?connectTimeout=2")
                .redirectErrorStream(true);
        Process child = pb.start();
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(child.waitFor(120, TimeUnit.SECONDS)).as("the probe finished").isTrue();

        assertThat(child.exitValue()).as(output).isZero();
        assertThat(output.lines().filter(l -> l.contains(": ")).collect(Collectors.toList())).as(output)
                .containsSubsequence("h2File: Berlin", "history: 1", "h2InMemory: 0", "connect: refused");
    }

    /** Main code and libraries; not test classes, test jars or test tools (their packages split the core's). */
    private static boolean isModule(String entry) {
        String name = Path.of(entry).getFileName().toString();
        return !entry.contains("test-classes") && !name.endsWith("-tests.jar") && !entry.contains("memory-testing")
                && !name.startsWith("junit-") && !name.startsWith("assertj-") && !name.startsWith("jqwik")
                && !name.startsWith("opentest4j") && !name.startsWith("apiguardian") && !name.startsWith("byte-buddy");
    }

    /** A local port nothing listens on (bound, then released). */
    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}

package dev.agentmemory.bench;

import dev.agentmemory.testing.PackagedJar;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fat jar, run by the JVM that runs this test (Java 17, 21 or 25), opens an on-disk recall
 * index (see {@link PackagedJar}). Runs in the verify phase, after the jar is built.
 */
class PackagedJarTest {

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void should_open_an_on_disk_index_from_the_packaged_jar_on_this_java() throws IOException, InterruptedException {
        PackagedJar.assertOpensAnOnDiskIndex(PackagedJar.jar("target/benchmarks.jar"), dir);
    }

    /**
     * {@code java -jar benchmarks.jar} measures Lucene 10 with its Vector API: started without the
     * module on Java 21+ with Lucene 10 (the lucene10 profile), the jar starts itself again with
     * it; with Lucene 9 or below Java 21 it runs as started.
     */
    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void should_run_lucene_10_benchmarks_with_the_vector_module() throws IOException, InterruptedException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(List.of(java.toString(), "-jar",
                PackagedJar.jar("target/benchmarks.jar").toString(), "--help")).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(out).contains("usage: java -jar benchmarks.jar SUITE");
        boolean vectorised = Runtime.version().feature() >= 21 && org.apache.lucene.util.Version.LATEST.major >= 10;
        if (vectorised) {
            assertThat(out).contains("starting the benchmark again with --add-modules jdk.incubator.vector")
                    .contains("Using incubator modules: jdk.incubator.vector");
        } else {
            assertThat(out).doesNotContain("starting the benchmark again").doesNotContain("incubator");
        }
    }
}

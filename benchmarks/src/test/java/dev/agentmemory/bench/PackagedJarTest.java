package dev.agentmemory.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fat jar, run by the JVM that runs this test (Java 17, 21 or 25), opens an on-disk recall
 * index: guards the multi-release classes of Lucene that a jar without {@code Multi-Release: true}
 * loses ("LinkageError: MemorySegmentIndexInputProvider is missing in Lucene JAR file" on Java 21+).
 * Runs in the verify phase, after the jar is built.
 */
class PackagedJarTest {

    private static final String PROBE = """
            import dev.agentmemory.langchain4j.recall.HybridIndex;
            import java.nio.file.Path;

            public class IndexProbe {
                public static void main(String[] args) throws Exception {
                    Path dir = Path.of(args[0]);
                    try (HybridIndex index = HybridIndex.inDirectory(dir, 4)) {
                        index.size();
                    }
                    try (HybridIndex index = HybridIndex.inDirectory(dir, 4)) {
                        System.out.println("opened on-disk index on java " + System.getProperty("java.version")
                                + ", size " + index.size());
                    }
                }
            }
            """;

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void should_open_an_on_disk_index_from_the_packaged_jar_on_this_java() throws IOException, InterruptedException {
        Path jar = Path.of(System.getProperty("packaged.jar", "target/benchmarks.jar"));
        assertThat(jar).as("built by package").isRegularFile();
        Path probe = dir.resolve("IndexProbe.java");
        Files.writeString(probe, PROBE, StandardCharsets.UTF_8);
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(List.of(java.toString(), "-cp", jar.toString(), probe.toString(),
                dir.resolve("index").toString())).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(out).contains("opened on-disk index on java " + System.getProperty("java.version") + ", size 0")
                .doesNotContain("LinkageError");
        assertThat(p.exitValue()).as(out).isZero();
    }
}

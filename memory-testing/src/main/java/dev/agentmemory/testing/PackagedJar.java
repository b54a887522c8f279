package dev.agentmemory.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Checks a fat jar with the JVM that runs the test (Java 17, 21 or 25): a probe run from the jar
 * opens an on-disk recall index twice. Guards the multi-release classes of Lucene that a jar
 * without {@code Multi-Release: true} loses ("LinkageError: MemorySegmentIndexInputProvider is
 * missing in Lucene JAR file" on Java 21+).
 */
public final class PackagedJar {

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

    private PackagedJar() {
    }

    /**
     * The jar named by the system property {@code packaged.jar} (set by the build), else
     * {@code defaultPath}.
     */
    public static Path jar(String defaultPath) {
        return Path.of(System.getProperty("packaged.jar", defaultPath));
    }

    /** Asserts that {@code jar} opens an on-disk index on this JVM; {@code workDir} holds the probe and the index. */
    public static void assertOpensAnOnDiskIndex(Path jar, Path workDir) throws IOException, InterruptedException {
        assertThat(jar).as("built by package").isRegularFile();
        Path probe = workDir.resolve("IndexProbe.java");
        Files.writeString(probe, PROBE, StandardCharsets.UTF_8);
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(List.of(java.toString(), "-cp", jar.toString(), probe.toString(),
                workDir.resolve("index").toString())).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(out).contains("opened on-disk index on java " + System.getProperty("java.version") + ", size 0")
                .doesNotContain("LinkageError");
        assertThat(p.exitValue()).as(out).isZero();
    }
}

package dev.agentmemory.demo;

import dev.agentmemory.testing.PackagedJar;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

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
        PackagedJar.assertOpensAnOnDiskIndex(PackagedJar.jar("target/demo-agent.jar"), dir);
    }
}

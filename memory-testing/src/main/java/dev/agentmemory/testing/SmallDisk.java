package dev.agentmemory.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A 4 MiB tmpfs mounted on a new temporary folder, so that a test can fill a real disk. Mounting
 * needs Linux and root: where it cannot be mounted, {@link #mounted()} is false (the test should
 * skip, saying why) and the folder is an ordinary one. {@link #close()} unmounts it lazily (a
 * store a failed test left open must not hide that failure behind "device busy") and deletes it.
 */
public final class SmallDisk implements AutoCloseable {

    private final Path dir;
    private final boolean mounted;

    private SmallDisk(Path dir, boolean mounted) {
        this.dir = dir;
        this.mounted = mounted;
    }

    /** Makes a temporary folder named from {@code prefix} and tries to mount the tmpfs on it. */
    public static SmallDisk mount(String prefix) throws IOException {
        Path dir = Files.createTempDirectory(prefix);
        boolean linux = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux");
        return new SmallDisk(dir, linux && run("mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", dir.toString()));
    }

    /** The folder (the tmpfs when {@link #mounted()}). */
    public Path dir() {
        return dir;
    }

    /** Whether the tmpfs is mounted on {@link #dir()}. */
    public boolean mounted() {
        return mounted;
    }

    @Override
    public void close() throws IOException {
        if (mounted) {
            run("umount", "-l", dir.toString());
        }
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    private static boolean run(String... command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted running " + String.join(" ", command), e);
        }
    }
}

package dev.agentmemory.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** Scans the raw bytes of every file under a directory (to prove that a forgotten value is gone from disk). */
public final class DiskScan {

    private DiskScan() {
    }

    /** The files under {@code dir} whose bytes contain {@code text} in UTF-8. */
    public static List<Path> filesContaining(Path dir, String text) {
        byte[] needle = text.getBytes(StandardCharsets.UTF_8);
        List<Path> hits = new ArrayList<>();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                if (indexOf(Files.readAllBytes(f), needle) >= 0) {
                    hits.add(f);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return hits;
    }

    /** Total bytes of the files under {@code dir}. */
    public static long bytes(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            long total = 0;
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                total += Files.size(f);
            }
            return total;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The first index of {@code needle} in {@code hay}, or -1. */
    public static int indexOf(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}

package dev.agentmemory.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Where tests find the evaluation data, which is read by path and never copied into the
 * repository: the directory named by {@code -Dagentmemory.datasets}, else {@code ../shared/datasets}
 * next to the project root (as the README says), else {@code /work/shared/datasets}. Tests that
 * need a file assume it is there and are skipped otherwise.
 */
public final class Datasets {
    private Datasets() {
    }

    /** The first existing location of {@code relative} (e.g. {@code injection/injection-dev.jsonl}), or the preferred one. */
    public static Path path(String relative) {
        List<Path> roots = new ArrayList<>();
        String configured = System.getProperty("agentmemory.datasets");
        if (configured != null && !configured.isBlank()) {
            roots.add(Path.of(configured));
        }
        roots.add(Path.of("..", "..", "shared", "datasets"));   // from a module directory (Maven's working directory)
        roots.add(Path.of("..", "shared", "datasets"));         // from the project root
        roots.add(Path.of("/work/shared/datasets"));
        for (Path root : roots) {
            Path p = root.resolve(relative);
            if (Files.isRegularFile(p)) {
                return p;
            }
        }
        return roots.get(0).resolve(relative);
    }

    /** The injection strings. */
    public static Path injection() {
        return path("injection/injection-dev.jsonl");
    }
}

package dev.agentmemory.demo;

import dev.agentmemory.core.engine.MemoryEngine;
import dev.agentmemory.store.jdbc.JdbcStores;
import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.Locale;

/**
 * Where the demo keeps its memory: {@code --db} is a name prefix (H2 adds {@code .mv.db}; the shop's
 * orders go to {@code PREFIX-shop.mv.db}); the file name itself ({@code x.mv.db}) is accepted too.
 * Every problem with the path becomes a {@link DemoError} naming the path and what to do.
 */
record StoreLocation(Path prefix) {

    private static final String SUFFIX = ".mv.db";
    private static final int H2_FILE_LOCKED = 90020;

    /** The location of {@code given} (a prefix or a {@code .mv.db} file), made absolute. */
    static StoreLocation of(Path given) {
        Path p = given.toAbsolutePath().normalize();
        String name = p.getFileName() == null ? "" : p.getFileName().toString();
        if (name.toLowerCase(Locale.ROOT).endsWith(SUFFIX)) {
            name = name.substring(0, name.length() - SUFFIX.length());
            p = p.resolveSibling(name);
        }
        if (name.isEmpty() || p.getParent() == null) {
            throw DemoError.usage("--db needs a file name prefix such as ./demo-data/agent-memory, not \"" + given + "\"");
        }
        return new StoreLocation(p);
    }

    /** The memory store's H2 file. */
    Path file() {
        return prefix.resolveSibling(prefix.getFileName() + SUFFIX);
    }

    /** The memory store's high-water mark beside its file. */
    Path highWaterMark() {
        return prefix.resolveSibling(prefix.getFileName() + ".hwm");
    }

    /** The shop's H2 file beside it. */
    Path shopFile() {
        return prefix.resolveSibling(prefix.getFileName() + "-shop" + SUFFIX);
    }

    boolean exists() {
        return Files.exists(file());
    }

    /** Fails unless the store exists (for {@code inspect} and {@code audit}). */
    void requireExisting() {
        checkFolder();
        if (!exists()) {
            throw new DemoError(DemoError.NO_STORE, "no memory store at " + file()
                    + " (run chat or scenario --keep first, or pass the right --db)");
        }
    }

    /** Creates the folder when missing; fails when it cannot be created or written. */
    void prepareForWriting() {
        checkFolder();
        Path folder = prefix.getParent();
        try {
            Files.createDirectories(folder);
        } catch (IOException e) {
            throw new DemoError(DemoError.STORE_UNUSABLE, "cannot create the folder " + folder + " for --db ("
                    + reason(e) + "); choose another --db", e);
        }
        if (!Files.isWritable(folder) || exists() && !Files.isWritable(file())) {
            throw new DemoError(DemoError.STORE_UNUSABLE, "cannot write the memory store in " + folder
                    + " (read-only); choose a writable --db");
        }
    }

    private void checkFolder() {
        for (Path p = prefix.getParent(); p != null; p = p.getParent()) {
            if (Files.exists(p) && !Files.isDirectory(p)) {
                throw new DemoError(DemoError.STORE_UNUSABLE, "cannot use --db " + prefix + ": " + p
                        + " is a file, not a folder; choose another --db");
            }
        }
    }

    /** Opens the engine over the store (read and write), turning a locked or unreadable file into a DemoError. */
    MemoryEngine openEngine() {
        try {
            return MemoryEngine.builder().store(JdbcStores.h2File(prefix)).build();
        } catch (RuntimeException e) {
            throw openFailure(e);
        }
    }

    /** The DemoError for a failure to open the store or the shop. */
    DemoError openFailure(RuntimeException e) {
        if (e instanceof DemoError d) {
            return d;
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t.getMessage() != null && t.getMessage().contains("has no high-water mark")) {
                return new DemoError(DemoError.STORE_UNUSABLE, "the memory store " + file() + " has data but no "
                        + highWaterMark().getFileName() + " beside it (copied or restored without it?), so whether it lost"
                        + " writes cannot be checked; restore it together with its .hwm, or choose another --db", e);
            }
            if (t instanceof SQLException s && s.getErrorCode() == H2_FILE_LOCKED
                    || t.getMessage() != null && t.getMessage().contains("in use by another process")) {
                return new DemoError(DemoError.STORE_IN_USE, "the memory store " + file() + " is in use by another process"
                        + " (a running chat?); quit it first, or use /memory, /history, /tasks and /audit inside that chat", e);
            }
            if (t instanceof FileSystemException || t instanceof SQLException s2 && s2.getMessage() != null
                    && s2.getMessage().toLowerCase(Locale.ROOT).contains("read only")) {
                return new DemoError(DemoError.STORE_UNUSABLE, "cannot open the memory store " + file() + " ("
                        + reason(t) + "); check the file's permissions or choose another --db", e);
            }
        }
        return new DemoError(DemoError.STORE_UNUSABLE, "cannot open the memory store " + file() + " (" + reason(e)
                + "); run with --debug for details", e);
    }

    private static String reason(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String m = root instanceof FileSystemException f ? (f.getReason() != null ? f.getReason() : root.getClass().getSimpleName())
                + (f.getFile() != null ? ": " + f.getFile() : "")
                : root.getMessage() != null ? root.getMessage() : root.getClass().getSimpleName();
        m = m.lines().findFirst().orElse(m);
        return m.length() > 160 ? m.substring(0, 157) + "..." : m;
    }
}

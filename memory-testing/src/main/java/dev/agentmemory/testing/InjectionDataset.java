package dev.agentmemory.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The shared injection dev set ({@code injection/injection-dev.jsonl}, one JSON object per line with
 * {@code id}, {@code text}, {@code label} and {@code source}), read by path. Tests that need it call
 * {@link #rows()} or {@link #texts()}, which skip the test (an assumption failure) when the file is
 * absent.
 */
public final class InjectionDataset {

    /** One line of the dataset. */
    public record Row(String id, String text, String label, String source) {
        /** Whether the row is labelled an attack (the others are benign). */
        public boolean attack() {
            return label.equals("attack");
        }
    }

    private InjectionDataset() {
    }

    /** Where the dataset is looked for (see {@link Datasets#injection()}). */
    public static Path path() {
        return Datasets.injection();
    }

    /** Whether the dataset is there to read. */
    public static boolean present() {
        return Files.isReadable(path());
    }

    /** Every non-blank line of the dataset, in file order; skips the calling test when it is absent. */
    public static List<Row> rows() {
        Path file = path();
        assumeTrue(Files.isReadable(file), "injection dataset not found at " + file.toAbsolutePath());
        return read(file);
    }

    /** The texts of {@link #rows()}, in file order. */
    public static List<String> texts() {
        return rows().stream().map(Row::text).toList();
    }

    /** The rows of a dataset file (blank lines skipped); a line that is not a row is a one-line error. */
    public static List<Row> read(Path file) {
        ObjectMapper json = new ObjectMapper();
        List<Row> rows = new ArrayList<>();
        try {
            List<String> lines = Files.readAllLines(file);
            for (int i = 0; i < lines.size(); i++) {
                if (lines.get(i).isBlank()) {
                    continue;
                }
                JsonNode n = json.readTree(lines.get(i));
                rows.add(new Row(field(n, "id", file, i), field(n, "text", file, i), field(n, "label", file, i),
                        field(n, "source", file, i)));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
        return List.copyOf(rows);
    }

    private static String field(JsonNode row, String name, Path file, int line) {
        JsonNode v = row.get(name);
        if (v == null || v.isNull()) {
            throw new IllegalArgumentException(file + " line " + (line + 1) + ": no \"" + name + "\"");
        }
        return v.asText();
    }
}

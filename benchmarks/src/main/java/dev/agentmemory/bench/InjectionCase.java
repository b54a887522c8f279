package dev.agentmemory.bench;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;

/**
 * One line of an injection data set: {@code {"id":..,"source":..,"label":"attack"|"benign","text":..}}.
 *
 * @param id     the line's id
 * @param source where the string comes from (reported per source)
 * @param attack whether the label is {@code attack} (else {@code benign})
 * @param text   the string a tool returns
 */
record InjectionCase(String id, String source, boolean attack, String text) {

    /**
     * How the development set is split: an item is held out when the first byte of the SHA-256 of
     * its UTF-8 id is odd, else it is in the tuning half. Detector rules are chosen looking at the
     * tuning half only; the held-out half says how they do on data they were not tuned on.
     */
    static final String SPLIT_RULE = "held_out when the first byte of SHA-256(UTF-8 id) is odd, else tune;"
            + " detector rules are chosen on the tune half only";
    static final String TUNE = "tune";
    static final String HELD_OUT = "held_out";

    InjectionCase {
        requireNonNull(id, "id");
        requireNonNull(source, "source");
        requireNonNull(text, "text");
        if (text.isEmpty()) {
            throw new IllegalArgumentException("injection case " + id + " has an empty text");
        }
    }

    /** The half of a development set that {@code id} belongs to: {@link #HELD_OUT} or {@link #TUNE}. */
    static String half(String id) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(id.getBytes(StandardCharsets.UTF_8));
            return (digest[0] & 1) == 1 ? HELD_OUT : TUNE;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    /** The half this case belongs to, by {@link #half(String)} of its id. */
    String half() {
        return half(id);
    }

    /**
     * Reads every case of {@code file}; with {@code limit} below the number of lines, takes
     * {@code limit} cases spread evenly over the file (every k-th), so that every part of the
     * file (sources, labels) is represented. Fails naming the line of a malformed entry.
     */
    static List<InjectionCase> read(Path file, int limit) throws IOException {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be positive: " + limit);
        }
        List<InjectionCase> all = new ArrayList<>();
        try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String line;
            int number = 0;
            while ((line = r.readLine()) != null) {
                number++;
                if (!line.isBlank()) {
                    all.add(parse(line, file, number));
                }
            }
        }
        if (all.isEmpty()) {
            throw new IllegalArgumentException("no injection cases in " + file);
        }
        if (limit >= all.size()) {
            return all;
        }
        List<InjectionCase> picked = new ArrayList<>(limit);
        for (int i = 0; i < limit; i++) {
            picked.add(all.get((int) ((long) i * all.size() / limit)));
        }
        return picked;
    }

    private static InjectionCase parse(String line, Path file, int number) {
        JsonNode n;
        try {
            n = BenchMain.JSON.readTree(line);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(file + " line " + number + " is not JSON: " + e.getOriginalMessage());
        }
        String label = field(n, "label", file, number);
        if (!label.equals("attack") && !label.equals("benign")) {
            throw new IllegalArgumentException(file + " line " + number + ": label must be attack or benign: " + label);
        }
        return new InjectionCase(field(n, "id", file, number), field(n, "source", file, number),
                label.equals("attack"), field(n, "text", file, number));
    }

    private static String field(JsonNode n, String name, Path file, int number) {
        JsonNode v = n.get(name);
        if (v == null || !v.isTextual()) {
            throw new IllegalArgumentException(file + " line " + number + ": missing string field \"" + name + "\"");
        }
        return v.textValue();
    }
}

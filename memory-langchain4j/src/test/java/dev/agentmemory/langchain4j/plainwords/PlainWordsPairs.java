package dev.agentmemory.langchain4j.plainwords;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** The plain-words pair files ({@code plain-words/*.txt}): one {@code expected|older|newer} a line. */
public final class PlainWordsPairs {

    private PlainWordsPairs() {
    }

    /** One line of a pair file: the expected key, "-" (the newer states nothing) or "~" (another attribute at most). */
    public record Pair(String expected, String older, String newer, int line) {
        public boolean positive() {
            return !expected.equals("-") && !expected.equals("~");
        }

        /** Whether the newer statement ends the older's value ("end:" and the key) instead of replacing it. */
        public boolean ending() {
            return expected.startsWith("end:");
        }

        /** The key a positive pair is about ({@link #expected} without "end:"). */
        public String key() {
            return ending() ? expected.substring("end:".length()) : expected;
        }
    }

    /** The pairs of a class-path resource, in file order. */
    public static List<Pair> load(String resource) throws IOException {
        List<Pair> out = new ArrayList<>();
        try (InputStream in = Objects.requireNonNull(PlainWordsPairs.class.getResourceAsStream(resource), resource)) {
            String[] lines = new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n");
            for (int i = 0; i < lines.length; i++) {
                String l = lines[i].strip();
                if (l.isEmpty() || l.startsWith("#")) {
                    continue;
                }
                String[] f = l.split("\\|", -1);
                if (f.length != 3) {
                    throw new IllegalArgumentException(resource + " line " + (i + 1) + " has " + f.length + " fields: " + l);
                }
                out.add(new Pair(f[0].strip(), f[1].strip(), f[2].strip(), i + 1));
            }
        }
        return out;
    }
}

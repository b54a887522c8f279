package dev.agentmemory.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Documentation code taken from tested code. A region of a test source (or test resource) is
 * marked with comment lines {@code tag::name[]} and {@code end::name[]} (e.g. {@code // tag::register[]});
 * a fenced code block of a Markdown file is tied to one or more regions by an HTML comment on the
 * line before its opening fence, {@code <!-- snippet: name [name2 ...] -->} (regions joined in that
 * order). {@link #mismatches} reports every marked block that differs from its regions (ignoring
 * indentation and runs of spaces), every fenced block of a listed language that has no marker,
 * and every marker naming an unknown region.
 */
public final class Snippets {

    private static final Pattern TAG = Pattern.compile("\\btag::([\\w.-]+)\\[]");
    private static final Pattern END = Pattern.compile("\\bend::([\\w.-]+)\\[]");
    private static final Pattern MARKER = Pattern.compile("^\\s*<!--\\s*snippet:\\s*([\\w.\\- ]+?)\\s*-->\\s*$");
    private static final Pattern FENCE = Pattern.compile("^```(\\w*)\\s*$");

    /** A fenced block of a Markdown file: its language, the regions its marker names (none if unmarked), its text and first line. */
    public record Block(String language, List<String> regions, String text, int line) {
    }

    private Snippets() {
    }

    /**
     * The regions under {@code roots} by name, each as its lines with the common indentation
     * removed (lines holding other region markers left out). A region opened twice or never
     * closed is an {@link IllegalArgumentException} naming it and its file.
     */
    public static Map<String, String> regions(List<Path> roots) {
        Map<String, String> regions = new LinkedHashMap<>();
        for (Path root : roots) {
            if (!Files.isDirectory(root)) {
                continue;
            }
            try (Stream<Path> files = Files.walk(root)) {
                for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
                    String text = Files.readString(f, StandardCharsets.UTF_8);
                    if (text.contains("tag::")) {
                        regionsOf(f, text, regions);
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return regions;
    }

    private static void regionsOf(Path file, String text, Map<String, String> into) {
        Map<String, List<String>> open = new LinkedHashMap<>();
        for (String line : text.split("\n", -1)) {
            Matcher tag = TAG.matcher(line);
            Matcher end = END.matcher(line);
            if (tag.find()) {
                if (open.put(tag.group(1), new ArrayList<>()) != null || into.containsKey(tag.group(1))) {
                    throw new IllegalArgumentException("region " + tag.group(1) + " opened twice (" + file + ")");
                }
            } else if (end.find()) {
                List<String> lines = open.remove(end.group(1));
                if (lines == null) {
                    throw new IllegalArgumentException("region " + end.group(1) + " closed but never opened (" + file + ")");
                }
                into.put(end.group(1), dedent(lines));
            } else {
                open.values().forEach(l -> l.add(line));
            }
        }
        if (!open.isEmpty()) {
            throw new IllegalArgumentException("regions never closed in " + file + ": " + open.keySet());
        }
    }

    /** The fenced blocks of a Markdown file, in order. */
    public static List<Block> blocks(Path markdown) {
        List<String> lines;
        try {
            lines = Files.readAllLines(markdown, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<Block> blocks = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher open = FENCE.matcher(lines.get(i));
            if (!open.matches()) {
                continue;
            }
            int start = i;
            List<String> body = new ArrayList<>();
            for (i++; i < lines.size() && !lines.get(i).startsWith("```"); i++) {
                body.add(lines.get(i));
            }
            List<String> regions = List.of();
            if (start > 0) {
                Matcher marker = MARKER.matcher(lines.get(start - 1));
                if (marker.matches()) {
                    regions = List.of(marker.group(1).trim().split("\\s+"));
                }
            }
            blocks.add(new Block(open.group(1), regions, String.join("\n", body), start + 1));
        }
        return blocks;
    }

    /**
     * What is wrong with the code blocks of {@code markdown} compared with the regions under
     * {@code roots}, one entry per problem with the expected text; empty when every block of a
     * language in {@code mustBeMarked} is marked and every marked block equals its regions.
     */
    public static List<String> mismatches(Path markdown, List<Path> roots, List<String> mustBeMarked) {
        Map<String, String> regions = regions(roots);
        List<String> problems = new ArrayList<>();
        for (Block b : blocks(markdown)) {
            String where = markdown.getFileName() + " line " + b.line();
            if (b.regions().isEmpty()) {
                if (mustBeMarked.contains(b.language())) {
                    problems.add(where + ": a ```" + b.language() + " block without <!-- snippet: name --> "
                            + "(give it a tagged region in a test):\n" + b.text());
                }
                continue;
            }
            List<String> parts = new ArrayList<>();
            for (String name : b.regions()) {
                String region = regions.get(name);
                if (region == null) {
                    problems.add(where + ": no region tag::" + name + "[] under " + roots);
                } else {
                    parts.add(region);
                }
            }
            if (parts.size() == b.regions().size()) {
                String expected = String.join("\n\n", parts);
                if (!normalise(expected).equals(normalise(b.text()))) {
                    problems.add(where + ": the block differs from region(s) " + b.regions()
                            + "; the tested code is:\n" + expected);
                }
            }
        }
        return problems;
    }

    /** {@code text} with each line trimmed, runs of spaces and tabs made one space, and blank lines dropped. */
    public static String normalise(String text) {
        List<String> out = new ArrayList<>();
        for (String line : text.split("\n", -1)) {
            String l = line.strip().replaceAll("[ \\t]+", " ");
            if (!l.isEmpty()) {
                out.add(l);
            }
        }
        return String.join("\n", out);
    }

    private static String dedent(List<String> lines) {
        int indent = Integer.MAX_VALUE;
        for (String l : lines) {
            if (!l.isBlank()) {
                indent = Math.min(indent, l.length() - l.stripLeading().length());
            }
        }
        List<String> out = new ArrayList<>();
        for (String l : lines) {
            out.add(l.isBlank() ? "" : l.substring(Math.min(indent, l.length())).stripTrailing());
        }
        while (!out.isEmpty() && out.get(0).isEmpty()) {
            out.remove(0);
        }
        while (!out.isEmpty() && out.get(out.size() - 1).isEmpty()) {
            out.remove(out.size() - 1);
        }
        return String.join("\n", out);
    }
}

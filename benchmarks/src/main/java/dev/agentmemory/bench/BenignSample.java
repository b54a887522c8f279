package dev.agentmemory.bench;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Benign sentences from the other development sets, as an extra sample for the instruction
 * detector's false-flag rate: every LoCoMo turn (id {@code conv-26/D1:3}) and every distinct
 * knowledge-update fact and update (id {@code ku-0000#3}, the first item that states it; {@code #u}
 * for the update). Found next to the injection file, as the shared data directory lays them out
 * ({@code ../locomo/locomo-dev.json}, {@code ../knowledge-update/knowledge-update-dev.jsonl});
 * a set that is not there is left out.
 */
final class BenignSample {

    static final String LOCOMO = "locomo";
    static final String KNOWLEDGE_UPDATE = "knowledge-update";

    /** One benign text and where it comes from. */
    record Text(String id, String source, String text) {
        Text {
            requireNonNull(id, "id");
            requireNonNull(source, "source");
            requireNonNull(text, "text");
        }
    }

    private BenignSample() {
    }

    /** The files read for {@code injectionData}, by source; those that do not exist are absent. */
    static Map<String, Path> files(Path injectionData) {
        Path parent = injectionData.toAbsolutePath().getParent();
        Path root = parent == null ? null : parent.getParent();
        if (root == null) {
            return Map.of();
        }
        Map<String, Path> files = new LinkedHashMap<>();
        Path locomo = root.resolve("locomo").resolve("locomo-dev.json");
        Path ku = root.resolve("knowledge-update").resolve("knowledge-update-dev.jsonl");
        if (Files.isRegularFile(locomo)) {
            files.put(LOCOMO, locomo);
        }
        if (Files.isRegularFile(ku)) {
            files.put(KNOWLEDGE_UPDATE, ku);
        }
        return files;
    }

    /** Every text of the files found for {@code injectionData}, LoCoMo first. */
    static List<Text> read(Path injectionData) throws IOException {
        List<Text> out = new ArrayList<>();
        Map<String, Path> files = files(injectionData);
        if (files.containsKey(LOCOMO)) {
            locomo(files.get(LOCOMO), out);
        }
        if (files.containsKey(KNOWLEDGE_UPDATE)) {
            knowledgeUpdate(files.get(KNOWLEDGE_UPDATE), out);
        }
        return out;
    }

    private static void locomo(Path file, List<Text> out) throws IOException {
        JsonNode root = BenchMain.JSON.readTree(file.toFile());
        for (JsonNode sample : root) {
            String conversation = sample.path("sample_id").asText();
            JsonNode sessions = sample.path("conversation");
            for (Iterator<Map.Entry<String, JsonNode>> it = sessions.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                if (!e.getKey().startsWith("session_") || !e.getValue().isArray()) {
                    continue;
                }
                for (JsonNode turn : e.getValue()) {
                    String text = turn.path("text").asText("");
                    if (!text.isBlank()) {
                        out.add(new Text(conversation + "/" + turn.path("dia_id").asText(), LOCOMO, text));
                    }
                }
            }
        }
    }

    private static void knowledgeUpdate(Path file, List<Text> out) throws IOException {
        Set<String> seen = new LinkedHashSet<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            if (line.isBlank()) {
                continue;
            }
            JsonNode item = BenchMain.JSON.readTree(line);
            String id = item.path("id").asText();
            JsonNode facts = item.path("facts");
            for (int i = 0; i < facts.size(); i++) {
                String text = facts.get(i).asText("");
                if (!text.isBlank() && seen.add(text)) {
                    out.add(new Text(id + "#" + i, KNOWLEDGE_UPDATE, text));
                }
            }
            String update = item.path("update").asText("");
            if (!update.isBlank() && seen.add(update)) {
                out.add(new Text(id + "#u", KNOWLEDGE_UPDATE, update));
            }
        }
    }
}

package dev.agentmemory.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentmemory.langchain4j.recall.IndexedItem;
import dev.agentmemory.langchain4j.recall.RecallHit;
import dev.agentmemory.langchain4j.recall.RecallQuery;
import dev.langchain4j.rag.content.retriever.EmbeddingStoreContentRetriever;
import java.io.BufferedReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Knowledge updates without keys. Per item, a user states the ten facts (one turn each, a minute
 * apart), a day later the update, then asks the question. Measured on the block that would enter
 * the prompt with each system's default number of results: whether the first memory is the
 * update, whether the update / the superseded fact (presented as current) are in the block, and
 * for our system the share of the other facts it hid or marked superseded.
 * {@code --limit N} uses the first N items.
 *
 * <p>The items are split in two halves by {@link InjectionCase#half} of their id (held out when
 * the first byte of the SHA-256 of the id is odd): detector rules are designed and tuned looking
 * at the {@code tune} half only, and the {@code held_out} half is the result. Every figure is
 * printed for both halves and for all items. {@code -Dbench.ku.misses=true} prints the tune
 * half's misses (never the held-out half's).
 */
final class KnowledgeUpdateSuite implements Suite {

    private static final Instant START = Instant.parse("2024-03-01T09:00:00Z");

    @Override
    public String name() {
        return "knowledge-update";
    }

    @Override
    public boolean needsData() {
        return true;
    }

    @Override
    public String description() {
        return "keyless knowledge updates: top1_is_new, new/stale_in_context, wrongly_hidden (--limit N: first N items)";
    }

    record Item(String id, List<String> facts, String update, Set<Integer> superseded, String question) {
    }

    static List<Item> load(Path file, int limit) throws Exception {
        List<Item> items = new ArrayList<>();
        try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String line;
            while ((line = r.readLine()) != null && items.size() < limit) {
                if (line.isBlank()) {
                    continue;
                }
                JsonNode n = BenchMain.JSON.readTree(line);
                List<String> facts = new ArrayList<>();
                n.get("facts").forEach(f -> facts.add(f.asText()));
                Set<Integer> superseded = new HashSet<>();
                JsonNode s = n.get("superseded");
                if (s.isArray()) {
                    s.forEach(i -> superseded.add(i.asInt()));
                } else {
                    superseded.add(s.asInt());
                }
                items.add(new Item(n.path("id").asText("ku-" + items.size()), facts, n.get("update").asText(),
                        superseded, n.get("question").asText()));
            }
        }
        return items;
    }

    static final class Counts {
        final int results;
        int items;
        int top1New;
        int newInContext;
        int staleInContext;
        int others;
        int hidden;

        Counts(int results) {
            this.results = results;
        }

        ObjectNode toJson() {
            ObjectNode o = JsonNodeFactory.instance.objectNode();
            o.put("top1_is_new", Stats.round(share(top1New, items)));
            o.put("new_in_context", Stats.round(share(newInContext, items)));
            o.put("stale_in_context", Stats.round(share(staleInContext, items)));
            o.put("wrongly_hidden", Stats.round(share(hidden, others)));
            o.put("results", results);
            return o;
        }

        static double share(int a, int b) {
            return b == 0 ? 0 : (double) a / b;
        }
    }

    @Override
    public ObjectNode run(SuiteOptions options, BenchContext context) throws Exception {
        List<Item> items = load(options.requireData(name()), options.limitOr(Integer.MAX_VALUE));
        int defaultResults = EmbeddingStoreContentRetriever.DEFAULT_MAX_RESULTS.apply(null);
        Map<String, Map<String, Counts>> byHalf = new LinkedHashMap<>();
        for (String half : List.of(ALL, InjectionCase.TUNE, InjectionCase.HELD_OUT)) {
            Map<String, Counts> counts = new LinkedHashMap<>();
            counts.put(OurRecall.NAME, new Counts(OurRecall.DEFAULT_RESULTS));
            counts.put(DefaultRag.NAME, new Counts(defaultResults));
            byHalf.put(half, counts);
        }
        boolean printMisses = Boolean.getBoolean("bench.ku.misses");
        long started = System.nanoTime();
        try (OurRecall recall = new OurRecall(context.model().dimension())) {
            for (int n = 0; n < items.size(); n++) {
                Item item = items.get(n);
                String user = item.id();
                String half = InjectionCase.half(item.id());
                List<Counts> ours = List.of(counts(byHalf, ALL, OurRecall.NAME), counts(byHalf, half, OurRecall.NAME));
                List<Counts> baseline = List.of(counts(byHalf, ALL, DefaultRag.NAME), counts(byHalf, half, DefaultRag.NAME));
                Instant day = START.plus(Duration.ofDays(n));
                List<String> texts = new ArrayList<>(item.facts());
                texts.add(item.update());
                List<float[]> vectors = context.embedAll(texts);
                DefaultRag rag = new DefaultRag(context.model(), defaultResults);
                for (int i = 0; i < texts.size(); i++) {
                    boolean isUpdate = i == item.facts().size();
                    Instant time = isUpdate ? day.plus(Duration.ofDays(1)) : day.plus(Duration.ofMinutes(i));
                    String id = user + (isUpdate ? "/update" : "/fact-" + i);
                    recall.addAll(List.of(IndexedItem.of(id, user, texts.get(i), vectors.get(i), time)));
                    rag.add(id, texts.get(i), vectors.get(i));
                }
                Instant now = day.plus(Duration.ofDays(1)).plus(Duration.ofHours(1));
                List<RecallHit> hits = recall.search(RecallQuery.of(user, item.question(),
                        context.embed(item.question()), OurRecall.DEFAULT_RESULTS, now));
                List<String> shown = hits.stream().filter(h -> !h.superseded()).map(RecallHit::id).toList();
                ours.forEach(c -> score(c, item, user, shown));
                // hidden: marked superseded in the index, or superseded for this question at read time
                Set<String> flagged = new HashSet<>();
                recall.search(RecallQuery.of(user, item.question(), context.embed(item.question()), texts.size(), now)
                                .withIncludeSuperseded(true)).stream()
                        .filter(RecallHit::superseded).forEach(h -> flagged.add(h.id()));
                List<String> wronglyHidden = new ArrayList<>();
                for (int i = 0; i < item.facts().size(); i++) {
                    if (!item.superseded().contains(i)) {
                        ours.forEach(c -> c.others++);
                        String id = user + "/fact-" + i;
                        if (flagged.contains(id) || recall.index.supersededBy(id).isPresent()) {
                            ours.forEach(c -> c.hidden++);
                            wronglyHidden.add(id);
                        }
                    }
                }
                List<String> ragShown = rag.retrieve(item.question());
                baseline.forEach(c -> {
                    score(c, item, user, ragShown);
                    c.others += item.facts().size() - item.superseded().size();
                });
                if (printMisses && half.equals(InjectionCase.TUNE)) {
                    printMisses(context.out(), item, user, shown, wronglyHidden, recall);
                }
            }
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        ObjectNode json = JsonNodeFactory.instance.objectNode();
        json.put("suite", name());
        json.put("items", items.size());
        ObjectNode systems = json.putObject("systems");
        java.util.Objects.requireNonNull(byHalf.get(ALL)).forEach((k, v) -> systems.set(k, v.toJson()));
        ObjectNode halves = json.putObject("by_half");
        halves.put("split", InjectionCase.SPLIT_RULE);
        byHalf.forEach((half, counts) -> {
            if (!half.equals(ALL)) {
                ObjectNode h = halves.putObject(half);
                counts.forEach((k, v) -> h.set(k, v.toJson().put("items", v.items)));
            }
        });
        json.put("seconds", Stats.round(seconds));
        byHalf.forEach((half, counts) -> print(context.out(), half, counts));
        return json;
    }

    /** {@code current}: ids presented as current in the block, best first. */
    private static void score(Counts c, Item item, String user, List<String> current) {
        c.items++;
        String updateId = user + "/update";
        if (!current.isEmpty() && current.get(0).equals(updateId)) {
            c.top1New++;
        }
        if (current.contains(updateId)) {
            c.newInContext++;
        }
        if (item.superseded().stream().anyMatch(i -> current.contains(user + "/fact-" + i))) {
            c.staleInContext++;
        }
    }

    private static final String ALL = "all";

    private static Counts counts(Map<String, Map<String, Counts>> byHalf, String half, String system) {
        return java.util.Objects.requireNonNull(java.util.Objects.requireNonNull(byHalf.get(half)).get(system));
    }

    /** One tune-half item the system got wrong: what it showed, and the facts it hid wrongly. */
    private static void printMisses(PrintStream out, Item item, String user, List<String> shown,
                                    List<String> wronglyHidden, OurRecall recall) {
        String updateId = user + "/update";
        boolean stale = item.superseded().stream().anyMatch(i -> shown.contains(user + "/fact-" + i));
        boolean top1 = !shown.isEmpty() && shown.get(0).equals(updateId);
        if (top1 && !stale && wronglyHidden.isEmpty()) {
            return;
        }
        out.printf("MISS %s top1=%s stale=%s hidden=%s%n  Q: %s%n  NEW: %s%n", item.id(), top1, stale, wronglyHidden,
                item.question(), item.update());
        for (int i : item.superseded()) {
            out.printf("  OLD[%d]: %s (supersededBy=%s)%n", i, item.facts().get(i),
                    recall.index.supersededBy(user + "/fact-" + i).orElse("-"));
        }
        for (String id : wronglyHidden) {
            out.printf("  HIDDEN %s: %s (by %s)%n", id, item.facts().get(Integer.parseInt(id.substring(id.lastIndexOf('-') + 1))),
                    recall.index.supersededBy(id).orElse("read time"));
        }
        out.printf("  SHOWN: %s%n", shown);
    }

    private static void print(PrintStream out, String half, Map<String, Counts> counts) {
        out.printf("Knowledge update, %s: %d items%n", half, java.util.Objects.requireNonNull(counts.get(OurRecall.NAME)).items);
        out.printf("%-22s %8s %12s %15s %17s %15s%n", "system", "results", "top1_is_new", "new_in_context",
                "stale_in_context", "wrongly_hidden");
        counts.forEach((system, c) -> {
            ObjectNode j = c.toJson();
            out.printf("%-22s %8d %12s %15s %17s %15s%n", system, c.results, Stats.f3(j.get("top1_is_new").asDouble()),
                    Stats.f3(j.get("new_in_context").asDouble()), Stats.f3(j.get("stale_in_context").asDouble()),
                    Stats.f3(j.get("wrongly_hidden").asDouble()));
        });
    }
}

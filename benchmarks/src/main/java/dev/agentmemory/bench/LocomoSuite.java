package dev.agentmemory.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentmemory.langchain4j.recall.HybridIndex;
import dev.agentmemory.langchain4j.recall.IndexedItem;
import dev.agentmemory.langchain4j.recall.RecallQuery;
import java.io.PrintStream;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * LoCoMo turn-level recall. Each conversation is one user (a partition); each session is a chat
 * session whose clock is the session's date; each turn is one message, indexed as
 * {@code "Speaker: text"} (plus the caption of a shared image, which is part of the message),
 * keeping its dia_id. Every QA item of categories 1-4 is asked; recall@k is the share of its
 * evidence turns in the top k. {@code --limit N} uses the first N conversations.
 */
final class LocomoSuite implements Suite {

    static final int[] KS = {1, 5, 10, 20};
    static final Map<String, String> CATEGORIES = Map.of(
            "1", "multi-hop", "2", "temporal", "3", "open-domain", "4", "single-hop");
    private static final DateTimeFormatter SESSION_DATE = new DateTimeFormatterBuilder()
            .parseCaseInsensitive().appendPattern("h:mm a 'on' d MMMM, yyyy").toFormatter(Locale.ENGLISH);
    private static final Pattern EVIDENCE = Pattern.compile("D:?(\\d+):0*(\\d+)");

    @Override
    public String name() {
        return "locomo";
    }

    @Override
    public boolean needsData() {
        return true;
    }

    @Override
    public String description() {
        return "LoCoMo turn-level recall@1/5/10/20, overall and per category (--limit N: first N conversations)";
    }

    record Turn(String id, String session, String speaker, String text, Instant time) {
    }

    record Question(String text, String category, Set<String> evidence) {
    }

    record Conversation(String id, List<Turn> turns, List<Question> questions, Instant end) {
    }

    static List<Conversation> load(JsonNode root, int limit) {
        List<Conversation> out = new ArrayList<>();
        for (JsonNode conv : root) {
            if (out.size() == limit) {
                break;
            }
            String id = conv.path("sample_id").asText("conv-" + out.size());
            JsonNode c = conv.get("conversation");
            List<Turn> turns = new ArrayList<>();
            Instant end = Instant.EPOCH;
            for (int s = 1; c.has("session_" + s) || c.has("session_" + s + "_date_time"); s++) {
                JsonNode session = c.get("session_" + s);
                if (session == null || !session.isArray() || session.isEmpty()) {
                    continue;
                }
                Instant date = LocalDateTime.parse(c.get("session_" + s + "_date_time").asText().trim(), SESSION_DATE)
                        .toInstant(ZoneOffset.UTC);
                int n = 0;
                for (JsonNode turn : session) {
                    String text = turn.get("speaker").asText() + ": " + turn.get("text").asText();
                    if (turn.hasNonNull("blip_caption")) {
                        text += " [shares " + turn.get("blip_caption").asText() + "]";
                    }
                    // the session date is the clock; seconds keep the turns' order within it
                    Instant time = date.plusSeconds(n++);
                    turns.add(new Turn(turn.get("dia_id").asText(), "session-" + s, turn.get("speaker").asText(), text, time));
                    end = time.isAfter(end) ? time : end;
                }
            }
            Set<String> known = new HashSet<>();
            turns.forEach(t -> known.add(t.id()));
            List<Question> questions = new ArrayList<>();
            for (JsonNode qa : conv.get("qa")) {
                String category = qa.path("category").asText();
                if (!CATEGORIES.containsKey(category)) {
                    continue;
                }
                Set<String> evidence = normaliseEvidence(qa.path("evidence"), known);
                if (!evidence.isEmpty()) {
                    questions.add(new Question(qa.get("question").asText(), category, evidence));
                }
            }
            out.add(new Conversation(id, turns, questions, end));
        }
        return out;
    }

    /** Splits on ';' and spaces, fixes D:11:26 and D30:05, drops ids of turns that do not exist. */
    static Set<String> normaliseEvidence(JsonNode evidence, Set<String> known) {
        Set<String> ids = new LinkedHashSet<>();
        for (JsonNode e : evidence) {
            for (String part : e.asText().split("[;\\s]+")) {
                Matcher m = EVIDENCE.matcher(part.trim());
                if (m.matches()) {
                    String id = "D" + Integer.parseInt(m.group(1)) + ":" + Integer.parseInt(m.group(2));
                    if (known.contains(id)) {
                        ids.add(id);
                    }
                }
            }
        }
        return ids;
    }

    /**
     * The variants of our recall that cross-validation chooses from, by name: each is a setting of
     * the episodic index, run through the public path. The first is the default, used when there
     * is only one conversation (no folds to choose on).
     */
    static Map<String, Consumer<HybridIndex.Builder>> variants() {
        Map<String, Consumer<HybridIndex.Builder>> v = new LinkedHashMap<>();
        v.put("default", b -> { });
        v.put("before: no function-words, neighbours, date", b -> b.dropQueryFunctionWords(false).neighbourShare(0)
                .dateWeight(0));
        v.put("no-write-supersession", b -> b.supersessionDetection(false));
        v.put("nws,keep-function-words", b -> b.supersessionDetection(false).dropQueryFunctionWords(false));
        v.put("nws,no-neighbours", b -> b.supersessionDetection(false).neighbourShare(0));
        v.put("nws,no-date", b -> b.supersessionDetection(false).dateWeight(0));
        v.put("nws,date-0.3", b -> b.supersessionDetection(false).dateWeight(0.3));
        v.put("nws,no-recency", b -> b.supersessionDetection(false).weights(1.0, 0.5, 0));
        return v;
    }

    static final String INDEX_DIAGNOSTIC = "agent-memory-index";

    @Override
    public ObjectNode run(SuiteOptions options, BenchContext context) throws Exception {
        JsonNode root = BenchMain.JSON.readTree(options.requireData(name()).toFile());
        List<Conversation> conversations = load(root, options.limitOr(Integer.MAX_VALUE));
        int maxK = KS[KS.length - 1];
        Map<String, Consumer<HybridIndex.Builder>> variants = variants();
        // system -> one accumulator per fold (conversation)
        Map<String, List<Accumulator>> folds = new LinkedHashMap<>();
        for (String system : List.of(DefaultRag.NAME, LexicalBaselines.BM25, LexicalBaselines.FUSION, INDEX_DIAGNOSTIC)) {
            folds.put(system, new ArrayList<>());
        }
        variants.keySet().forEach(v -> folds.put(variantName(v), new ArrayList<>()));
        int items = 0;
        long started = System.nanoTime();
        for (Conversation conv : conversations) {
            folds.values().forEach(list -> list.add(new Accumulator()));
            List<float[]> vectors = context.embedAll(conv.turns().stream().map(Turn::text).toList());
            List<float[]> questionVectors = context.embedAll(conv.questions().stream().map(Question::text).toList());
            Instant now = conv.end().plusSeconds(86_400);
            DefaultRag rag = new DefaultRag(context.model(), maxK);
            for (int i = 0; i < conv.turns().size(); i++) {
                rag.add(conv.turns().get(i).id(), conv.turns().get(i).text(), vectors.get(i));
            }
            try (LexicalBaselines lexical = new LexicalBaselines(conv.turns().stream().map(Turn::id).toList(),
                    conv.turns().stream().map(Turn::text).toList(), vectors);
                 OurRecall index = new OurRecall(context.model().dimension())) {
                List<IndexedItem> indexed = new ArrayList<>();
                for (int i = 0; i < conv.turns().size(); i++) {
                    Turn t = conv.turns().get(i);
                    indexed.add(new IndexedItem(conv.id() + "/" + t.id(), conv.id(), t.text(), vectors.get(i),
                            t.time(), Map.of("dia_id", t.id(), HybridIndex.SPEAKER_ATTRIBUTE, t.speaker())));
                }
                for (IndexedItem item : indexed) {
                    index.addAll(List.of(item));
                }
                for (int q = 0; q < conv.questions().size(); q++) {
                    Question question = conv.questions().get(q);
                    last(folds, DefaultRag.NAME).add(question, rag.retrieve(question.text()));
                    last(folds, LexicalBaselines.BM25).add(question, lexical.bm25Top(question.text(), maxK));
                    last(folds, LexicalBaselines.FUSION).add(question,
                            lexical.fusionTop(question.text(), questionVectors.get(q), maxK));
                    last(folds, INDEX_DIAGNOSTIC).add(question, index.search(RecallQuery.of(conv.id(), question.text(),
                            questionVectors.get(q), maxK, now)).stream().map(h -> h.attributes().get("dia_id")).toList());
                    items++;
                }
            }
            for (Map.Entry<String, Consumer<HybridIndex.Builder>> v : variants.entrySet()) {
                try (PublicPathRecall ours = new PublicPathRecall(context, maxK, v.getValue())) {
                    ours.add(conv.id(), conv.turns());
                    for (Question question : conv.questions()) {
                        last(folds, variantName(v.getKey())).add(question, ours.ask(conv.id(), question.text(), now));
                    }
                }
            }
        }
        // cross-validation: for each fold, the variant with the best R@10 on the other folds
        List<String> chosen = new ArrayList<>();
        List<Accumulator> ours = new ArrayList<>();
        for (int f = 0; f < conversations.size(); f++) {
            String best = variants.keySet().iterator().next();
            double bestScore = -1;
            if (conversations.size() > 1) {
                for (String v : variants.keySet()) {
                    double sum = 0;
                    int n = 0;
                    List<Accumulator> accs = of(folds, variantName(v));
                    for (int g = 0; g < accs.size(); g++) {
                        if (g != f) {
                            sum += accs.get(g).all.sums[2];
                            n += accs.get(g).all.n;
                        }
                    }
                    double score = n == 0 ? 0 : sum / n;
                    if (score > bestScore + 1e-12) {
                        bestScore = score;
                        best = v;
                    }
                }
            }
            chosen.add(best);
            ours.add(of(folds, variantName(best)).get(f));
        }
        Map<String, List<Accumulator>> systems = new LinkedHashMap<>();
        systems.put(OurRecall.NAME, ours);
        systems.putAll(folds);
        double seconds = (System.nanoTime() - started) / 1e9;
        ObjectNode json = JsonNodeFactory.instance.objectNode();
        json.put("suite", name());
        json.put("items", items);
        json.put("conversations", conversations.size());
        json.put("turns", conversations.stream().mapToInt(c -> c.turns().size()).sum());
        ArrayNode foldIds = json.putArray("folds");
        conversations.forEach(c -> foldIds.add(c.id()));
        ArrayNode chosenJson = json.putArray("chosen_variant_per_fold");
        chosen.forEach(chosenJson::add);
        ObjectNode systemsJson = json.putObject("systems");
        systems.forEach((system, accs) -> systemsJson.set(system, toJson(accs)));
        json.put("seconds", Stats.round(seconds));
        print(context.out(), items, conversations, systems, chosen);
        return json;
    }

    static String variantName(String variant) {
        return OurRecall.NAME + ":" + variant;
    }

    private static List<Accumulator> of(Map<String, List<Accumulator>> systems, String system) {
        return java.util.Objects.requireNonNull(systems.get(system), system);
    }

    private static Accumulator last(Map<String, List<Accumulator>> folds, String system) {
        List<Accumulator> list = of(folds, system);
        return list.get(list.size() - 1);
    }

    /** All questions pooled, plus per fold and the mean and sample standard deviation of the fold figures. */
    static ObjectNode toJson(List<Accumulator> folds) {
        Accumulator pooled = new Accumulator();
        folds.forEach(pooled::addAll);
        ObjectNode o = pooled.toJson();
        ArrayNode per = o.putArray("per_fold");
        for (Accumulator a : folds) {
            per.add(a.all.toJson());
        }
        for (int i = 0; i < KS.length; i++) {
            double[] x = foldValues(folds, i);
            o.put("fold_mean_recall@" + KS[i], Stats.round(mean(x)));
            o.put("fold_spread_recall@" + KS[i], Stats.round(spread(x)));
        }
        return o;
    }

    static double[] foldValues(List<Accumulator> folds, int k) {
        return folds.stream().mapToDouble(a -> a.all.mean(k)).toArray();
    }

    static double mean(double[] x) {
        return x.length == 0 ? 0 : java.util.Arrays.stream(x).sum() / x.length;
    }

    /** Sample standard deviation (0 for fewer than two values). */
    static double spread(double[] x) {
        if (x.length < 2) {
            return 0;
        }
        double m = mean(x);
        double ss = 0;
        for (double v : x) {
            ss += (v - m) * (v - m);
        }
        return Math.sqrt(ss / (x.length - 1));
    }

    private static void print(PrintStream out, int items, List<Conversation> conversations,
                              Map<String, List<Accumulator>> systems, List<String> chosen) {
        out.printf("LoCoMo turn-level recall@10, %d questions (categories 1-4), one fold per conversation%n", items);
        out.printf("%-40s", "system");
        conversations.forEach(c -> out.printf(" %8s", c.id()));
        out.printf(" %15s %8s %8s%n", "R@10 mean±sd", "pooled", "R@20");
        systems.forEach((system, accs) -> {
            out.printf("%-40s", system);
            accs.forEach(a -> out.printf(" %8s", Stats.f3(a.all.mean(2))));
            double[] x = foldValues(accs, 2);
            Accumulator pooled = new Accumulator();
            accs.forEach(pooled::addAll);
            out.printf(" %15s %8s %8s%n", Stats.f3(mean(x)) + "±" + Stats.f3(spread(x)), Stats.f3(pooled.all.mean(2)),
                    Stats.f3(pooled.all.mean(3)));
        });
        out.println("agent-memory: per held-out fold, the variant with the best R@10 on the other folds: " + chosen);
        Accumulator pooled = new Accumulator();
        of(systems, OurRecall.NAME).forEach(pooled::addAll);
        out.printf("%-22s %-12s %6s %8s %8s %8s %8s%n", "agent-memory", "category", "items", "R@1", "R@5", "R@10", "R@20");
        pooled.byCategory.forEach((cat, s) -> out.printf("%-22s %-12s %6d %8s %8s %8s %8s%n", "", cat + " "
                + CATEGORIES.get(cat), s.n, Stats.f3(s.mean(0)), Stats.f3(s.mean(1)), Stats.f3(s.mean(2)), Stats.f3(s.mean(3))));
    }

    static final class Sums {
        final double[] sums = new double[KS.length];
        int n;

        void add(List<String> ranked, Set<String> evidence) {
            for (int i = 0; i < KS.length; i++) {
                sums[i] += Stats.recallAt(ranked, evidence, KS[i]);
            }
            n++;
        }

        void addAll(Sums other) {
            for (int i = 0; i < KS.length; i++) {
                sums[i] += other.sums[i];
            }
            n += other.n;
        }

        double mean(int i) {
            return n == 0 ? 0 : sums[i] / n;
        }

        ObjectNode toJson() {
            ObjectNode o = JsonNodeFactory.instance.objectNode();
            for (int i = 0; i < KS.length; i++) {
                o.put("recall@" + KS[i], Stats.round(mean(i)));
            }
            o.put("items", n);
            return o;
        }
    }

    static final class Accumulator {
        final Sums all = new Sums();
        final Map<String, Sums> byCategory = new TreeMap<>();

        void add(Question q, List<String> ranked) {
            all.add(ranked, q.evidence());
            byCategory.computeIfAbsent(q.category(), c -> new Sums()).add(ranked, q.evidence());
        }

        void addAll(Accumulator other) {
            all.addAll(other.all);
            other.byCategory.forEach((cat, s) -> byCategory.computeIfAbsent(cat, c -> new Sums()).addAll(s));
        }

        ObjectNode toJson() {
            ObjectNode o = all.toJson();
            ObjectNode cats = o.putObject("by_category");
            byCategory.forEach((cat, s) -> {
                ObjectNode c = s.toJson();
                c.put("name", CATEGORIES.get(cat));
                cats.set(cat, c);
            });
            return o;
        }
    }
}

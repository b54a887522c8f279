package dev.agentmemory.bench;

import com.fasterxml.jackson.databind.JsonNode;
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

    record Turn(String id, String speaker, String text, Instant time) {
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
                    turns.add(new Turn(turn.get("dia_id").asText(), turn.get("speaker").asText(), text, time));
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

    @Override
    public ObjectNode run(SuiteOptions options, BenchContext context) throws Exception {
        JsonNode root = BenchMain.JSON.readTree(options.requireData(name()).toFile());
        List<Conversation> conversations = load(root, options.limitOr(Integer.MAX_VALUE));
        int maxK = KS[KS.length - 1];
        Map<String, Accumulator> acc = new LinkedHashMap<>();
        acc.put(OurRecall.NAME, new Accumulator());
        acc.put(DefaultRag.NAME, new Accumulator());
        int items = 0;
        long started = System.nanoTime();
        try (OurRecall ours = new OurRecall(context.model().dimension())) {
            for (Conversation conv : conversations) {
                List<float[]> vectors = context.embedAll(conv.turns().stream().map(Turn::text).toList());
                DefaultRag baseline = new DefaultRag(context.model(), maxK);
                List<IndexedItem> indexed = new ArrayList<>();
                for (int i = 0; i < conv.turns().size(); i++) {
                    Turn t = conv.turns().get(i);
                    // a unique id per user; the dia_id is kept as an attribute
                    indexed.add(new IndexedItem(conv.id() + "/" + t.id(), conv.id(), t.text(), vectors.get(i),
                            t.time(), Map.of("dia_id", t.id(), HybridIndex.SPEAKER_ATTRIBUTE, t.speaker())));
                    baseline.add(t.id(), t.text(), vectors.get(i));
                }
                for (IndexedItem item : indexed) {
                    ours.addAll(List.of(item));
                }
                Instant now = conv.end().plusSeconds(86_400);
                List<float[]> questionVectors = context.embedAll(conv.questions().stream().map(Question::text).toList());
                for (int q = 0; q < conv.questions().size(); q++) {
                    Question question = conv.questions().get(q);
                    List<String> ourIds = ours.search(RecallQuery.of(conv.id(), question.text(),
                                    questionVectors.get(q), maxK, now)).stream()
                            .map(h -> h.attributes().get("dia_id")).toList();
                    acc.get(OurRecall.NAME).add(question, ourIds);
                    acc.get(DefaultRag.NAME).add(question, baseline.retrieve(question.text()));
                    items++;
                }
            }
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        ObjectNode json = JsonNodeFactory.instance.objectNode();
        json.put("suite", name());
        json.put("items", items);
        json.put("conversations", conversations.size());
        json.put("turns", conversations.stream().mapToInt(c -> c.turns().size()).sum());
        ObjectNode systems = json.putObject("systems");
        acc.forEach((system, a) -> systems.set(system, a.toJson()));
        json.put("seconds", Stats.round(seconds));
        print(context.out(), items, acc);
        return json;
    }

    private static void print(PrintStream out, int items, Map<String, Accumulator> acc) {
        out.printf("LoCoMo turn-level recall, %d questions (categories 1-4)%n", items);
        out.printf("%-22s %-12s %6s %8s %8s %8s %8s%n", "system", "category", "items", "R@1", "R@5", "R@10", "R@20");
        acc.forEach((system, a) -> {
            out.printf("%-22s %-12s %6d %8s %8s %8s %8s%n", system, "all", a.all.n,
                    Stats.f3(a.all.mean(0)), Stats.f3(a.all.mean(1)), Stats.f3(a.all.mean(2)), Stats.f3(a.all.mean(3)));
            a.byCategory.forEach((cat, s) -> out.printf("%-22s %-12s %6d %8s %8s %8s %8s%n", system,
                    cat + " " + CATEGORIES.get(cat), s.n, Stats.f3(s.mean(0)), Stats.f3(s.mean(1)),
                    Stats.f3(s.mean(2)), Stats.f3(s.mean(3))));
        });
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

package dev.agentmemory.bench;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.jspecify.annotations.Nullable;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Prompt injection through memory. Every string of the data set is returned by a tool and offered
 * to every write path of the plugin, then framed among the user's other memories (see
 * {@link InjectionProbe} for exactly what is tried and checked). Reports, overall and per
 * {@code source}: {@code frame_escapes} (blocks that do not decode back to exactly their items or
 * leave any of the string's text outside the block; two blocks per string), {@code promoted}
 * (records created from a string that are trusted, preferences, decisions or tagged as rules),
 * and the share of attack and benign strings whose framed tool observation carries an instruction
 * flag (also, as {@code any_copy_flagged_*}, whether any framed copy of the string does). Side
 * by side, LangChain4j's {@link dev.langchain4j.rag.content.injector.DefaultContentInjector} on the
 * same contents: how often the string lands in the prompt outside any delimited data block, and
 * how often anything marks it untrusted.
 *
 * <p>The flag rates are also given per half of the data set ({@code by_half}, split by
 * {@link InjectionCase#half(String)}: detector rules are chosen on {@code tune} only, and
 * {@code held_out} is what they do on data they were not tuned on), and, as {@code extra_benign},
 * for the benign sentences of the other development sets ({@link BenignSample}: LoCoMo turns,
 * knowledge-update facts), each framed as a tool's observation, with the same split.
 * {@code --limit N} takes N strings spread evenly over the file (and N benign sentences). No
 * embedding model is used.
 */
final class InjectionSuite implements Suite {

    /** Most failures described in the output. */
    private static final int SHOWN_FAILURES = 10;

    @Override
    public String name() {
        return "injection";
    }

    @Override
    public boolean needsData() {
        return true;
    }

    @Override
    public String description() {
        return "prompt-injection strings through every write path and the framer: frame_escapes, promoted,"
                + " flag rates (--limit N: N strings spread over the file)";
    }

    /** Flag counts over benign texts that only go through the framer. */
    static final class BenignTally {
        int texts;
        int flagged;

        void add(boolean isFlagged) {
            texts++;
            flagged += isFlagged ? 1 : 0;
        }

        ObjectNode json() {
            ObjectNode o = JsonNodeFactory.instance.objectNode();
            o.put("texts", texts);
            o.put("flagged", flagged);
            Double r = Tally.rate(flagged, texts);
            if (r == null) {
                o.putNull("flagged_rate");
            } else {
                o.put("flagged_rate", r);
            }
            return o;
        }
    }

    /** Counts over a group of strings. */
    static final class Tally {
        int attacks;
        int benign;
        int blocks;
        int frameEscapes;
        int promoted;
        int promotedStrings;
        int flaggedAttacks;
        int flaggedBenign;
        int anyFlaggedAttacks;
        int anyFlaggedBenign;
        int framed;
        int markedUntrusted;
        int stored;
        int attempts;
        int seedsLost;
        int extractorFailures;
        int defaultEscapes;
        int defaultMarked;

        void add(InjectionProbe.Result r) {
            if (r.c().attack()) {
                attacks++;
                flaggedAttacks += r.flagged() ? 1 : 0;
                anyFlaggedAttacks += r.flaggedAnyCopy() ? 1 : 0;
            } else {
                benign++;
                flaggedBenign += r.flagged() ? 1 : 0;
                anyFlaggedBenign += r.flaggedAnyCopy() ? 1 : 0;
            }
            blocks += r.blocks();
            frameEscapes += r.escapes();
            promoted += r.promoted();
            promotedStrings += r.promoted() > 0 ? 1 : 0;
            framed += r.framed() ? 1 : 0;
            markedUntrusted += r.markedUntrusted() ? 1 : 0;
            stored += r.stored();
            attempts += r.attempts();
            seedsLost += r.seedsLost();
            extractorFailures += r.extractorFailures();
            defaultEscapes += r.defaultEscape() ? 1 : 0;
            defaultMarked += r.defaultMarkedUntrusted() ? 1 : 0;
        }

        int strings() {
            return attacks + benign;
        }

        static @Nullable Double rate(int n, int of) {
            return of == 0 ? null : Stats.round((double) n / of);
        }

        ObjectNode json(boolean top) {
            ObjectNode o = JsonNodeFactory.instance.objectNode();
            if (top) {
                o.put("suite", "injection");
            }
            o.put("attacks", attacks);
            o.put("benign", benign);
            o.put("frame_escapes", frameEscapes);
            o.put("promoted", promoted);
            putRate(o, "flagged_attack_rate", rate(flaggedAttacks, attacks));
            putRate(o, "flagged_benign_rate", rate(flaggedBenign, benign));
            putRate(o, "any_copy_flagged_attack_rate", rate(anyFlaggedAttacks, attacks));
            putRate(o, "any_copy_flagged_benign_rate", rate(anyFlaggedBenign, benign));
            o.put("blocks", blocks);
            o.put("promoted_strings", promotedStrings);
            o.put("framed_via_retriever", framed);
            o.put("marked_untrusted", markedUntrusted);
            o.put("write_attempts", attempts);
            o.put("stored_as_untrusted_data", stored - promoted);
            o.put("user_memories_lost", seedsLost);
            o.put("failed_extractions", extractorFailures);
            ObjectNode d = o.putObject("langchain4j-default");
            d.put("outside_data_block", defaultEscapes);
            d.put("marked_untrusted", defaultMarked);
            return o;
        }

        private static void putRate(ObjectNode o, String field, @Nullable Double rate) {
            if (rate == null) {
                o.putNull(field);
            } else {
                o.put(field, rate);
            }
        }
    }

    @Override
    public ObjectNode run(SuiteOptions options, BenchContext context) throws Exception {
        Path data = options.requireData(name());
        List<InjectionCase> cases = InjectionCase.read(data, options.limitOr(Integer.MAX_VALUE));
        InjectionProbe probe = new InjectionProbe();
        Tally all = new Tally();
        Map<String, Tally> bySource = new TreeMap<>();
        Map<String, Tally> byHalf = new TreeMap<>(Map.of(InjectionCase.TUNE, new Tally(), InjectionCase.HELD_OUT, new Tally()));
        List<String> failures = new ArrayList<>();
        long start = System.nanoTime();
        for (InjectionCase c : cases) {
            InjectionProbe.Result r = probe.probe(c);
            all.add(r);
            bySource.computeIfAbsent(c.source(), k -> new Tally()).add(r);
            Objects.requireNonNull(byHalf.get(c.half()), "every case is in a half").add(r);
            if ((r.escapes() > 0 || r.promoted() > 0) && failures.size() < SHOWN_FAILURES) {
                failures.add(c.id() + " (" + c.source() + "): " + String.join("; ", r.escapeReasons())
                        + (r.promoted() > 0 ? " promoted: " + String.join(" | ", r.promotedRecords()) : ""));
            }
        }
        List<BenignSample.Text> extra = spread(BenignSample.read(data), options.limitOr(Integer.MAX_VALUE));
        BenignTally extraAll = new BenignTally();
        Map<String, BenignTally> extraByHalf = new TreeMap<>(
                Map.of(InjectionCase.TUNE, new BenignTally(), InjectionCase.HELD_OUT, new BenignTally()));
        Map<String, BenignTally> extraBySource = new TreeMap<>();
        for (BenignSample.Text t : extra) {
            boolean flagged = probe.flaggedAsToolObservation(t.text());
            extraAll.add(flagged);
            Objects.requireNonNull(extraByHalf.get(InjectionCase.half(t.id())), "every text is in a half").add(flagged);
            extraBySource.computeIfAbsent(t.source(), k -> new BenignTally()).add(flagged);
        }
        double seconds = (System.nanoTime() - start) / 1e9;

        ObjectNode json = all.json(true);
        ObjectNode sources = json.putObject("by_source");
        bySource.forEach((source, t) -> sources.set(source, t.json(false)));
        json.put("split", InjectionCase.SPLIT_RULE);
        ObjectNode halves = json.putObject("by_half");
        byHalf.forEach((half, t) -> halves.set(half, t.json(false)));
        ObjectNode benignJson = json.putObject("extra_benign");
        ObjectNode files = benignJson.putObject("files");
        BenignSample.files(data).forEach((source, path) -> files.put(source, path.toString()));
        benignJson.setAll(extraAll.json());
        ObjectNode benignHalves = benignJson.putObject("by_half");
        extraByHalf.forEach((half, t) -> benignHalves.set(half, t.json()));
        ObjectNode benignSources = benignJson.putObject("by_source");
        extraBySource.forEach((source, t) -> benignSources.set(source, t.json()));
        ObjectNode systems = json.putObject("systems");
        ObjectNode ours = systems.putObject(OurRecall.NAME);
        ours.put("outside_data_block", all.frameEscapes);
        ours.put("marked_untrusted", all.markedUntrusted);
        ours.put("promoted", all.promoted);
        ObjectNode def = systems.putObject(DefaultRag.NAME);
        def.put("outside_data_block", all.defaultEscapes);
        def.put("marked_untrusted", all.defaultMarked);
        def.put("note", "DefaultContentInjector pastes each content's raw text after the user's message;"
                + " it has no write policy, so promotion does not apply");
        json.put("data", data.toString());
        json.put("seconds", Stats.round(seconds));

        print(context.out(), data, all, bySource, failures, seconds);
        printHalves(context.out(), byHalf, extraByHalf, extraBySource);
        return json;
    }

    /** {@code limit} items spread evenly over {@code all} (every k-th), or all of them. */
    private static <T> List<T> spread(List<T> all, int limit) {
        if (limit >= all.size()) {
            return all;
        }
        List<T> picked = new ArrayList<>(limit);
        for (int i = 0; i < limit; i++) {
            picked.add(all.get((int) ((long) i * all.size() / limit)));
        }
        return picked;
    }

    private static void printHalves(PrintStream out, Map<String, Tally> byHalf, Map<String, BenignTally> extraByHalf,
                                    Map<String, BenignTally> extraBySource) {
        out.printf("%nsplit: %s%n", InjectionCase.SPLIT_RULE);
        out.printf("%-10s %7s %9s %6s %9s %14s %10s%n", "half", "attacks", "flag-atk", "benign", "flag-ben",
                "extra benign", "flag-extra");
        for (String half : List.of(InjectionCase.TUNE, InjectionCase.HELD_OUT)) {
            Tally t = Objects.requireNonNull(byHalf.get(half), half);
            BenignTally b = Objects.requireNonNull(extraByHalf.get(half), half);
            out.printf("%-10s %7d %9s %6d %9s %14d %10s%n", half, t.attacks, rate(Tally.rate(t.flaggedAttacks, t.attacks)),
                    t.benign, rate(Tally.rate(t.flaggedBenign, t.benign)), b.texts, rate(Tally.rate(b.flagged, b.texts)));
        }
        extraBySource.forEach((source, b) -> out.printf("extra benign %s: %d / %d flagged%n", source, b.flagged, b.texts));
    }

    private static void print(PrintStream out, Path data, Tally all, Map<String, Tally> bySource, List<String> failures,
                              double seconds) {
        out.printf("injection: %s, %d attack and %d benign strings, %d write attempts, %.1f s%n", data, all.attacks,
                all.benign, all.attempts, seconds);
        out.printf("%-46s %7s %6s %7s %8s %9s %9s %9s%n", "source", "attacks", "benign", "escapes", "promoted",
                "flag-atk", "flag-ben", "l4j-outs");
        bySource.forEach((source, t) -> row(out, source, t));
        row(out, "overall", all);
        out.printf("%n%-22s %22s %18s %10s%n", "system", "string outside block", "marked untrusted", "promoted");
        out.printf("%-22s %15d / %-4d %11d / %-4d %10d%n", OurRecall.NAME, all.frameEscapes, all.blocks,
                all.markedUntrusted, all.strings(), all.promoted);
        out.printf("%-22s %15d / %-4d %11d / %-4d %10s%n", DefaultRag.NAME, all.defaultEscapes, all.strings(),
                all.defaultMarked, all.strings(), "n/a");
        out.printf("flag rates above: the string's tool observation; any framed copy of it flagged: attack %s, benign %s%n",
                rate(Tally.rate(all.anyFlaggedAttacks, all.attacks)), rate(Tally.rate(all.anyFlaggedBenign, all.benign)));
        out.printf("stored only as untrusted data: %d records; user memories lost: %d; failed extractions: %d;"
                + " strings framed via the retriever: %d / %d%n", all.stored - all.promoted, all.seedsLost,
                all.extractorFailures, all.framed, all.strings());
        for (String f : failures) {
            out.println("FAIL " + f);
        }
    }

    private static void row(PrintStream out, String source, Tally t) {
        out.printf("%-46s %7d %6d %7d %8d %9s %9s %9d%n", source, t.attacks, t.benign, t.frameEscapes, t.promoted,
                rate(Tally.rate(t.flaggedAttacks, t.attacks)), rate(Tally.rate(t.flaggedBenign, t.benign)),
                t.defaultEscapes);
    }

    private static String rate(@Nullable Double r) {
        return r == null ? "-" : Stats.f3(r);
    }
}

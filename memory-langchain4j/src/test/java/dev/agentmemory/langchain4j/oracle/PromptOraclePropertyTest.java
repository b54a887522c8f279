package dev.agentmemory.langchain4j.oracle;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.Tag;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.AroundPropertyHook;
import net.jqwik.api.lifecycle.PropertyExecutionResult;
import net.jqwik.api.lifecycle.PropertyExecutor;
import net.jqwik.api.lifecycle.PropertyLifecycleContext;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The prompt oracle: random lifecycles (preferences stated, updated and forgotten; tasks started,
 * suspended, resumed and ended; summaries; model failures, malformed tool calls and unknown tool
 * names; restarts on the same H2 file; two sessions and two users) through a real AiService, and
 * after every model call the whole request checked against the engine's state at that moment
 * (see {@link Invariant}).
 *
 * <p>System properties: {@code oracle.tries} (lifecycles, default 200), {@code oracle.steps}
 * (steps per lifecycle, default 30), {@code oracle.h2-percent} (lifecycles on an H2 file with
 * restarts, default 15), {@code oracle.seed} (default a fixed seed; {@code random} for a new one, or a
 * seed to replay a run), {@code oracle.report=true} (run every
 * lifecycle without failing and print the violations per invariant at the end),
 * {@code oracle.minimize=true} (with report: shrink the earliest example of each broken invariant
 * to a short step sequence and print it).
 */
@Tag("slow")
class PromptOraclePropertyTest {

    static final boolean REPORT = Boolean.getBoolean("oracle.report");
    static final boolean MINIMIZE = Boolean.getBoolean("oracle.minimize");
    static final int STEPS = Integer.getInteger("oracle.steps", 30);
    static final int H2_PERCENT = Integer.getInteger("oracle.h2-percent", 15);
    private static final OracleReport REPORT_DATA = new OracleReport();

    @Property(shrinking = ShrinkingMode.BOUNDED)
    @AddLifecycleHook(Settings.class)
    void every_request_agrees_with_the_memory_state(@ForAll("configs") Lifecycle.Config config,
                                                    @ForAll("lifecycles") List<Step> steps) {
        long started = System.nanoTime();
        Lifecycle.Result r = run(config, steps);
        REPORT_DATA.add(r);
        if (REPORT) {
            System.out.printf("lifecycle: %s, %d requests, %d violations, %d ms%n", config, r.requests(),
                    r.violations().size(), (System.nanoTime() - started) / 1_000_000);
            if (REPORT_DATA.lifecycles() % 20 == 0) {
                System.out.println(REPORT_DATA.figures());
            }
        }
        if (!REPORT && !r.violations().isEmpty()) {
            Violation first = r.violations().get(0);
            throw new AssertionError(r.violations().size() + " violation(s) in " + r.requests()
                    + " requests; first of each invariant:\n" + OracleReport.firstOfEach(r.violations())
                    + "story of the first:\n" + r.story(first));
        }
    }

    static Lifecycle.Result run(Lifecycle.Config config, List<Step> steps) {
        try (Lifecycle l = new Lifecycle(config)) {
            return l.run(steps);
        }
    }

    @Provide
    Arbitrary<Lifecycle.Config> configs() {
        return Combinators.combine(
                Arbitraries.frequency(Tuple.of(H2_PERCENT, true), Tuple.of(100 - H2_PERCENT, false)),
                Arbitraries.frequency(Tuple.of(3, true), Tuple.of(1, false)),
                Arbitraries.of(true, false)).as(Lifecycle.Config::new);
    }

    @Provide
    Arbitrary<List<Step>> lifecycles() {
        Arbitrary<Step.Kind> kinds = Arbitraries.frequency(
                Tuple.of(10, Step.Kind.PREFERENCE),
                Tuple.of(5, Step.Kind.FACT),
                Tuple.of(7, Step.Kind.START_TASK),
                Tuple.of(10, Step.Kind.TASK_STATE),
                Tuple.of(4, Step.Kind.SUSPEND_TASK),
                Tuple.of(4, Step.Kind.RESUME_TASK),
                Tuple.of(4, Step.Kind.END_TASK),
                Tuple.of(5, Step.Kind.FORGET_PREFERENCE),
                Tuple.of(2, Step.Kind.FORGET_FACT),
                Tuple.of(4, Step.Kind.FORGET_TASK_STATE),
                Tuple.of(8, Step.Kind.ASK),
                Tuple.of(3, Step.Kind.MALFORMED_TOOL_CALL),
                Tuple.of(3, Step.Kind.UNKNOWN_TOOL),
                Tuple.of(3, Step.Kind.MODEL_FAILS),
                Tuple.of(3, Step.Kind.ECHO_FRAME),
                Tuple.of(3, Step.Kind.RESTART),
                Tuple.of(2, Step.Kind.TIME_PASSES));
        Arbitrary<Integer> mostlyFirst = Arbitraries.frequency(Tuple.of(2, 0), Tuple.of(1, 1));
        Arbitrary<Step> step = Combinators.combine(kinds, mostlyFirst, mostlyFirst, Arbitraries.integers().between(0, 59))
                .as(Step::new);
        return step.list().ofSize(STEPS);
    }

    /** Prints the figures (and, with {@code oracle.minimize}, a short reproduction per broken invariant). */
    @AfterContainer
    static void printFigures() {
        if (REPORT_DATA.isEmpty()) {
            return;
        }
        System.out.println(REPORT ? REPORT_DATA.full() : REPORT_DATA.figures());
        if (REPORT && MINIMIZE) {
            for (Map.Entry<Invariant, Lifecycle.Result> e : REPORT_DATA.examples().entrySet()) {
                System.out.println(minimize(e.getKey(), e.getValue(), REPORT_DATA.example(e.getKey())));
            }
        }
    }

    /** Greedy shrinking: drop steps one at a time while the same invariant still breaks (bounded runs). */
    static String minimize(Invariant invariant, Lifecycle.Result example, Violation violation) {
        List<Step> steps = new ArrayList<>(example.steps().subList(0, violation.step()));
        Lifecycle.Result best = null;
        int runs = 0;
        boolean changed = true;
        while (changed && runs < 120) {
            changed = false;
            for (int i = steps.size() - 1; i >= 0 && runs < 120; i--) {
                List<Step> fewer = new ArrayList<>(steps);
                fewer.remove(i);
                runs++;
                Lifecycle.Result r = run(example.config(), fewer);
                Violation v = r.violations().stream().filter(x -> x.invariant() == invariant).findFirst().orElse(null);
                if (v != null) {
                    steps = new ArrayList<>(fewer.subList(0, v.step()));
                    best = r;
                    changed = true;
                    i = Math.min(i, steps.size());
                }
            }
        }
        if (best == null) {
            best = run(example.config(), steps);
        }
        Violation v = best.violations().stream().filter(x -> x.invariant() == invariant).findFirst().orElse(violation);
        return "minimal reproduction of " + invariant + " (" + steps.size() + " steps, " + runs + " runs): " + steps
                + "\n" + best.story(v);
    }

    /** The seed CI runs with (see {@link Settings}). */
    static final String DEFAULT_SEED = "20261201";

    /** Applies {@code oracle.tries} and {@code oracle.seed} to the property. */
    static final class Settings implements AroundPropertyHook {
        @Override
        public PropertyExecutionResult aroundProperty(PropertyLifecycleContext context, PropertyExecutor property) {
            context.attributes().setTries(Integer.getInteger("oracle.tries", 200));
            // A fixed seed by default, so that CI checks the same 200 lifecycles every run and a
            // failure is reproducible; -Doracle.seed=random explores new ones, -Doracle.seed=N replays N.
            String seed = System.getProperty("oracle.seed", DEFAULT_SEED);
            if (!seed.isBlank() && !seed.equals("random")) {
                context.attributes().setSeed(seed);
            }
            if (REPORT) {
                context.attributes().setShrinking(ShrinkingMode.OFF);
            }
            return property.execute();
        }
    }
}

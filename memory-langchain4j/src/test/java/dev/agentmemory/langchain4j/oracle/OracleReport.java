package dev.agentmemory.langchain4j.oracle;

import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The oracle's figures over a run: lifecycles, requests checked, and per invariant the violations,
 * the lifecycles with at least one, and the example that failed earliest in its lifecycle.
 * Thread-safe (jqwik runs tries one after another, but the summary is printed from another hook).
 */
final class OracleReport {

    private int lifecycles;
    private long requests;
    private final Map<Invariant, Integer> violations = new EnumMap<>(Invariant.class);
    private final Map<Invariant, Integer> lifecyclesWith = new EnumMap<>(Invariant.class);
    private final Map<Invariant, Lifecycle.Result> examples = new EnumMap<>(Invariant.class);
    private final Map<Invariant, Violation> exampleViolations = new EnumMap<>(Invariant.class);

    synchronized void add(Lifecycle.Result r) {
        lifecycles++;
        requests += r.requests();
        Set<Invariant> seen = new HashSet<>();
        for (Violation v : r.violations()) {
            violations.merge(v.invariant(), 1, Integer::sum);
            if (seen.add(v.invariant())) {
                lifecyclesWith.merge(v.invariant(), 1, Integer::sum);
                Violation best = exampleViolations.get(v.invariant());
                if (best == null || v.step() < best.step()) {
                    exampleViolations.put(v.invariant(), v);
                    examples.put(v.invariant(), r);
                }
            }
        }
    }

    synchronized Map<Invariant, Lifecycle.Result> examples() {
        return new EnumMap<>(examples);
    }

    synchronized Violation example(Invariant i) {
        return exampleViolations.get(i);
    }

    synchronized int lifecycles() {
        return lifecycles;
    }

    synchronized boolean isEmpty() {
        return lifecycles == 0;
    }

    /** The table of figures. */
    synchronized String figures() {
        StringBuilder sb = new StringBuilder("Prompt oracle: ").append(lifecycles).append(" lifecycles, ")
                .append(requests).append(" requests checked\n");
        sb.append(String.format("  %-20s %10s %10s  %s%n", "invariant", "violations", "lifecycles", "promise"));
        for (Invariant i : Invariant.values()) {
            sb.append(String.format("  %-20s %10d %10d  %s%n", i, violations.getOrDefault(i, 0),
                    lifecyclesWith.getOrDefault(i, 0), i.promise));
        }
        return sb.toString();
    }

    /** The figures and, for each broken invariant, the earliest failing example with its story. */
    synchronized String full() {
        StringBuilder sb = new StringBuilder(figures());
        for (Map.Entry<Invariant, Lifecycle.Result> e : examples.entrySet()) {
            sb.append("\nexample of ").append(e.getKey()).append(":\n")
                    .append(e.getValue().story(exampleViolations.get(e.getKey())));
        }
        return sb.toString();
    }

    static String firstOfEach(List<Violation> violations) {
        StringBuilder sb = new StringBuilder();
        Set<Invariant> seen = new HashSet<>();
        for (Violation v : violations) {
            if (seen.add(v.invariant())) {
                sb.append("  ").append(v).append('\n');
            }
        }
        return sb.toString();
    }
}

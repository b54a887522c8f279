package dev.agentmemory.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * One benchmark suite. A suite runs our plugin and LangChain4j's default on the same data in the
 * same run, prints a table to {@link BenchContext#out()} and returns the JSON document that
 * {@code --out FILE} writes. Register new suites in {@link SuiteRegistry}.
 */
interface Suite {

    /** The sub-command name, e.g. {@code "locomo"}. */
    String name();

    /** Whether {@code --data FILE} is required. */
    boolean needsData();

    /** One line of help. */
    String description();

    /**
     * Fails with an {@link IllegalArgumentException} naming what is wrong when the options do not
     * let the suite run (checked before {@link #run}, reported with the usage). Accepts all by default.
     */
    default void check(SuiteOptions options) {
    }

    /** Runs the suite. */
    ObjectNode run(SuiteOptions options, BenchContext context) throws Exception;
}

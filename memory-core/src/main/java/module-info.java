/**
 * memory-core: scoped, versioned, event-sourced memory for agents, framework-free. Exports what
 * users and store implementors name: the vocabulary ({@code dev.agentmemory.core}), the engine
 * ({@code dev.agentmemory.core.engine}, start from
 * {@link dev.agentmemory.core.engine.MemoryEngine#builder()}), the event types that appear in its
 * signatures, the action ledger and audit report types, the instruction detector, the extension
 * points ({@code spi}) and the in-memory store (the JDBC store is the module
 * {@code dev.agentmemory.store.jdbc}): 30 public top-level types in all,
 * the types that qualify one other type nested in it. Everything under {@code dev.agentmemory.core.internal} is
 * the engine's own. Three of its packages are exported to the LangChain4j adapter only (a
 * qualified export, not API: a user's module cannot read them, and they do not count among the
 * exported public types): {@code internal} (the JSON and identifier helpers),
 * {@code internal.state} (the read-only replay {@code MemoryState} that {@code admin().replay}
 * returns, which the adapter's summarizer and our tests compare) and {@code internal.hooks} (the
 * event listener and message redactor the adapter registers).
 */
module dev.agentmemory.core {
    requires transitive com.fasterxml.jackson.databind;
    requires com.fasterxml.jackson.datatype.jsr310;
    requires static transitive org.jspecify;

    exports dev.agentmemory.core;
    exports dev.agentmemory.core.engine;
    exports dev.agentmemory.core.audit;
    exports dev.agentmemory.core.event;
    exports dev.agentmemory.core.ledger;
    exports dev.agentmemory.core.policy;
    exports dev.agentmemory.core.spi;
    exports dev.agentmemory.core.store;
    // for our own modules only: these packages are not part of the API and do not count as such
    exports dev.agentmemory.core.internal to dev.agentmemory.langchain4j;
    exports dev.agentmemory.core.internal.state to dev.agentmemory.langchain4j;
    exports dev.agentmemory.core.internal.hooks to dev.agentmemory.langchain4j;

    // the event log is JSON: Jackson binds the records of these packages
    opens dev.agentmemory.core to com.fasterxml.jackson.databind;
    opens dev.agentmemory.core.event to com.fasterxml.jackson.databind;
    opens dev.agentmemory.core.ledger to com.fasterxml.jackson.databind;
    // snapshots are JSON images of the engine's state
    opens dev.agentmemory.core.internal.state to com.fasterxml.jackson.databind;
}

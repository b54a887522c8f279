/**
 * The memory inspector: a local web page over an {@link dev.agentmemory.langchain4j.AgentMemory}
 * that shows what it remembers about a user, what each turn showed the model and why, and forgets
 * on request. Start it with {@link dev.agentmemory.inspector.MemoryInspector#start}. It runs on
 * the JDK's own HTTP server, with its page, styles and script inside this jar.
 */
module dev.agentmemory.inspector {
    requires transitive dev.agentmemory.langchain4j;
    requires jdk.httpserver;
    requires com.fasterxml.jackson.databind;
    requires static org.jspecify;

    exports dev.agentmemory.inspector;
}

/**
 * LangChain4j adapters for the memory engine. Start from {@code AgentMemory}.
 */
@NullMarked
package dev.agentmemory.langchain4j;

import org.jspecify.annotations.NullMarked;

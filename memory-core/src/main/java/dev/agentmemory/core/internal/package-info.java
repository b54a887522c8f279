/**
 * Helpers shared by the engine and its LangChain4j adapter only (the module exports this package
 * to {@code dev.agentmemory.langchain4j} and nobody else); not a public API.
 */
@NullMarked
package dev.agentmemory.core.internal;

import org.jspecify.annotations.NullMarked;

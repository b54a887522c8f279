/**
 * Hooks an adapter module plugs into the engine: an {@link
 * dev.agentmemory.core.internal.hooks.EventListener} told about committed events (to keep its
 * indexes in step) and a {@link dev.agentmemory.core.internal.hooks.MessageRedactor} that knows
 * its chat message format. Exported to the LangChain4j adapter only (a qualified export): not
 * part of the API, so the engine's ways to register them ({@code admin().addListener},
 * {@code admin().addRedactor}, {@code MemoryEngine.Builder#redactor}) serve our own modules.
 */
@NullMarked
package dev.agentmemory.core.internal.hooks;

import org.jspecify.annotations.NullMarked;

/**
 * The memory engine: scoped, versioned, event-sourced memory for agents. Start from
 * {@link dev.agentmemory.core.MemoryEngine#builder()}.
 */
@NullMarked
package dev.agentmemory.core;

import org.jspecify.annotations.NullMarked;

/**
 * The vocabulary of agent memory, the bottom layer of the core: who calls ({@link
 * dev.agentmemory.core.Caller}), where a value lives ({@link dev.agentmemory.core.Scope},
 * {@link dev.agentmemory.core.MemoryKey}), what is remembered ({@link
 * dev.agentmemory.core.MemoryRecord}, {@link dev.agentmemory.core.MemoryValue} and the enums
 * that describe a record), what a write asks and gets ({@link dev.agentmemory.core.Proposal},
 * {@link dev.agentmemory.core.Outcome}), what a read returns and the exceptions. Values only:
 * the package imports nothing of the core but {@code policy} and {@code internal}. The engine
 * that acts on them is {@link dev.agentmemory.core.engine.MemoryEngine}.
 */
@NullMarked
package dev.agentmemory.core;

import org.jspecify.annotations.NullMarked;

/**
 * The vocabulary of agent memory, the bottom layer of the core: who calls ({@link
 * dev.agentmemory.core.Caller}), where a value lives ({@link dev.agentmemory.core.Scope},
 * {@link dev.agentmemory.core.MemoryKey}), what is remembered ({@link
 * dev.agentmemory.core.MemoryRecord}, {@link dev.agentmemory.core.MemoryValue}; the enums that
 * describe a record are nested in it: {@code MemoryRecord.Kind}, {@code Source}, {@code Trust},
 * {@code Access}, {@code Status}, {@code Verification}), what a write asks and gets ({@link
 * dev.agentmemory.core.Proposal}, {@link dev.agentmemory.core.Proposal.Outcome}), what a read
 * returns ({@link dev.agentmemory.core.ScopeView} and its {@code KeyState}s, labelled by {@link
 * dev.agentmemory.core.StatusRule}) and the exceptions ({@link dev.agentmemory.core.MemoryException}
 * with its nested family, and {@link dev.agentmemory.core.StaleVersionException}). Values only:
 * the package imports nothing of the core but {@code policy} and {@code internal}. The engine
 * that acts on them is {@link dev.agentmemory.core.engine.MemoryEngine}.
 */
@NullMarked
package dev.agentmemory.core;

import org.jspecify.annotations.NullMarked;

/**
 * The memory engine, the top layer of the core: {@link dev.agentmemory.core.engine.MemoryEngine}
 * (start from {@link dev.agentmemory.core.engine.MemoryEngine#builder()}) and its views, nested
 * in it ({@code MemoryEngine.Tasks}, {@code Messages}, {@code Ledger}, {@code Aliases},
 * {@code Verifications}, {@code Admin}): the one public type of the package. The package-private rest are the engine's parts: the partition runtime that
 * loads, locks, appends and snapshots a user's log, the proposal decider, the forgetter and the
 * read model. It builds on the vocabulary ({@code dev.agentmemory.core}), the events, the ledger,
 * the audit report and the SPI; none of those imports it.
 */
@NullMarked
package dev.agentmemory.core.engine;

import org.jspecify.annotations.NullMarked;

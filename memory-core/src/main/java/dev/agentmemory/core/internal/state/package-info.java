/**
 * The replay state of one user's log, which only the engine changes ({@code PartitionState}), and
 * its read-only view {@link dev.agentmemory.core.internal.state.MemoryState}. Exported to the
 * LangChain4j adapter only (a qualified export): not part of the API.
 */
@NullMarked
package dev.agentmemory.core.internal.state;

import org.jspecify.annotations.NullMarked;

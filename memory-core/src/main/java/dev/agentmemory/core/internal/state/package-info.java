/**
 * The mutable replay state of one user's log, which only the engine changes. Not exported by the
 * module: users read a replay through {@link dev.agentmemory.core.engine.MemoryState}.
 */
@NullMarked
package dev.agentmemory.core.internal.state;

import org.jspecify.annotations.NullMarked;

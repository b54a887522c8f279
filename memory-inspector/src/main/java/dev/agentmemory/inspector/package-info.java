/**
 * The memory inspector: {@link dev.agentmemory.inspector.MemoryInspector} and its
 * {@link dev.agentmemory.inspector.InspectorOptions}. Everything else here is package-private.
 */
@NullMarked
package dev.agentmemory.inspector;

import org.jspecify.annotations.NullMarked;

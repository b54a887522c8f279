@NullMarked
package dev.agentmemory.core.store;

import org.jspecify.annotations.NullMarked;

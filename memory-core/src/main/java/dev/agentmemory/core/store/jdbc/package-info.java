@NullMarked
package dev.agentmemory.core.store.jdbc;

import org.jspecify.annotations.NullMarked;

@NullMarked
package dev.agentmemory.store.jdbc;

import org.jspecify.annotations.NullMarked;

@NullMarked
package dev.agentmemory.core.internal;

import org.jspecify.annotations.NullMarked;

@NullMarked
package dev.agentmemory.core.event;

import org.jspecify.annotations.NullMarked;

@NullMarked
package dev.agentmemory.core.spi;

import org.jspecify.annotations.NullMarked;

@NullMarked
package dev.agentmemory.core.audit;

import org.jspecify.annotations.NullMarked;

@NullMarked
package dev.agentmemory.core.policy;

import org.jspecify.annotations.NullMarked;

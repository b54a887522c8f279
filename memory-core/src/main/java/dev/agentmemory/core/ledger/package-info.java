@NullMarked
package dev.agentmemory.core.ledger;

import org.jspecify.annotations.NullMarked;

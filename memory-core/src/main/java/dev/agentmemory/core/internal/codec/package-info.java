/**
 * The JSON forms the engine writes: the event codec of the stored log (with optional AES-GCM
 * sealing) and the generic redaction of JSON chat messages. Not exported.
 */
@NullMarked
package dev.agentmemory.core.internal.codec;

import org.jspecify.annotations.NullMarked;

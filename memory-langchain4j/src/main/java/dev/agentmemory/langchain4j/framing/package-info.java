/**
 * Injection-safe framing of memories for a prompt.
 *
 * <p>{@link dev.agentmemory.langchain4j.framing.MemoryFramer} renders {@link
 * dev.agentmemory.langchain4j.framing.FramedItem}s into one fenced data block whose boundaries no
 * item text can forge; {@link dev.agentmemory.langchain4j.framing.MemoryFrameParser} finds such
 * blocks in a prompt, decodes them back and strips them. The package uses no LangChain4j type.
 */
@NullMarked
package dev.agentmemory.langchain4j.framing;

import org.jspecify.annotations.NullMarked;

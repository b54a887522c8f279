/**
 * What a model may do to memory: {@link dev.agentmemory.langchain4j.tools.MemoryTools} (tools an
 * AiService exposes), {@link dev.agentmemory.langchain4j.tools.StateExtractor} (structured
 * operations extracted from a turn) and {@link dev.agentmemory.langchain4j.tools.Summarizer}
 * (summaries of messages that left the window). Every write a model makes is a core
 * {@code Proposal} validated by the engine; a model's word is never trusted by itself.
 */
@NullMarked
package dev.agentmemory.langchain4j.tools;

import org.jspecify.annotations.NullMarked;

/**
 * Spring Boot auto-configuration of agent memory: {@link dev.agentmemory.spring.AgentMemoryAutoConfiguration}
 * makes an {@code AgentMemory} from the {@code agentmemory.*} properties and exposes its chat memory,
 * retrieval augmentor and tools as beans.
 */
@NullMarked
package dev.agentmemory.spring;

import org.jspecify.annotations.NullMarked;

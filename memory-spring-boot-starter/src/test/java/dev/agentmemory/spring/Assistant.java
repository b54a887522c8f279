package dev.agentmemory.spring;

import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.UserMessage;

/** The assistant of the tests and of the README's Spring Boot example. */
interface Assistant {
    String chat(@MemoryId Object session, @UserMessage String message);
}

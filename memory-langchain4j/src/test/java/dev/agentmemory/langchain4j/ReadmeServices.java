package dev.agentmemory.langchain4j;

import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.UserMessage;

/** The AiServices interfaces of README.md's examples (run by {@link ReadmeExamplesTest}). */
final class ReadmeServices {

    private ReadmeServices() {
    }

    // tag::register-interface[]
    interface Assistant {
        String chat(@MemoryId SessionRef session, @UserMessage String message);
    }
    // end::register-interface[]

    // tag::migrating-interface[]
    interface Chat {
        String chat(@MemoryId int user, @UserMessage String message);  // int, long, UUID, String or none
    }
    // end::migrating-interface[]
}

package dev.agentmemory.langchain4j.tools;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.TaskInfo;
import dev.agentmemory.langchain4j.AgentMemory;
import dev.agentmemory.langchain4j.SessionRef;
import dev.agentmemory.testing.langchain4j.ScriptedChatModel;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import org.junit.jupiter.api.Test;

import static dev.agentmemory.testing.langchain4j.ScriptedChatModel.call;
import static dev.agentmemory.testing.langchain4j.ScriptedChatModel.echoToolResults;
import static org.assertj.core.api.Assertions.assertThat;

/** Seed 004's "continue as last time": a task suspended in one chat is resumed from the next day's chat. */
class ResumeTaskFromAnotherChatTest {

    interface Assistant {
        String chat(@MemoryId SessionRef memoryId, @dev.langchain4j.service.UserMessage String message);
    }

    @Test
    void should_resume_a_trip_suspended_in_another_chat_and_write_its_state_there() {
        try (AgentMemory memory = AgentMemory.builder().build()) {
            SessionRef wx = new SessionRef("acme", "lin", "wx-chat");
            SessionRef web = new SessionRef("acme", "lin", "web-2");
            ScriptedChatModel model = new ScriptedChatModel("scripted", false,
                    call("startTask", "{\"task\":\"trip-hailan-2025-11\",\"title\":\"business trip to 海岚\"}"),
                    call("updateState", "{\"key\":\"trip.destination\",\"value\":\"海岚\",\"userQuote\":\"这次 11 月去海岚\"}"),
                    call("suspendTask", "{}"),
                    echoToolResults(),
                    call("resumeTask", "{\"task\":\"trip-hailan-2025-11\"}"),
                    call("updateState", "{\"key\":\"trip.hotel\",\"value\":\"海岚大酒店\",\"userQuote\":\"海岚大酒店\"}"),
                    echoToolResults());
            Assistant assistant = AiServices.builder(Assistant.class).chatModel(model)
                    .chatMemoryProvider(memory.chatMemoryProvider())
                    .retrievalAugmentor(memory.retrievalAugmentor())
                    .tools(memory.tools())
                    .build();

            // when: day 1 in wx-chat, day 2 in web-2
            assistant.chat(wx, "这次 11 月去海岚出差");
            String dayTwo = assistant.chat(web, "按上次的方式继续，酒店订海岚大酒店");

            // then: the trip moved to web-2 with its state, and new state lands in the trip
            assertThat(dayTwo).startsWith("Task trip-hailan-2025-11 resumed (started in session wx-chat;");
            assertThat(dayTwo).contains("Saved trip.hotel = \"海岚大酒店\" in task trip-hailan-2025-11");
            Caller caller = memory.caller(web);
            TaskInfo trip = memory.engine().tasks().active(caller, "web-2").orElseThrow();
            assertThat(trip.status()).isEqualTo(TaskInfo.Status.ACTIVE);
            assertThat(memory.engine().current(caller, caller.task(trip), MemoryKey.of("trip.destination")))
                    .map(r -> r.text()).contains("海岚");
            assertThat(memory.engine().current(caller, caller.task(trip), MemoryKey.of("trip.hotel")))
                    .map(r -> r.text()).contains("海岚大酒店");
            assertThat(memory.engine().tasks().list(caller, "wx-chat")).isEmpty();
        }
    }
}

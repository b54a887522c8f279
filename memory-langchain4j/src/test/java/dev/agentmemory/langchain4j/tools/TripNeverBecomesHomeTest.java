package dev.agentmemory.langchain4j.tools;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.MemoryRecord.Trust;
import dev.agentmemory.langchain4j.AgentMemory;
import dev.agentmemory.langchain4j.SessionRef;
import dev.agentmemory.testing.langchain4j.ScriptedChatModel;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.agentmemory.testing.langchain4j.ScriptedChatModel.call;
import static dev.agentmemory.testing.langchain4j.ScriptedChatModel.echoToolResults;
import static dev.agentmemory.testing.langchain4j.ScriptedChatModel.text;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Seed 004's trip: a model that cites the user's trip sentence to remember a residence does not
 * get a trusted home city, and the next conversation's request frames it as untrusted.
 */
class TripNeverBecomesHomeTest {

    interface Assistant {
        String chat(@MemoryId SessionRef memoryId, @dev.langchain4j.service.UserMessage String message);
    }

    @Test
    void should_not_trust_a_residence_when_the_model_quotes_a_trip_sentence() {
        try (AgentMemory memory = AgentMemory.builder().build()) {
            SessionRef day1 = new SessionRef("acme", "lin", "wx-chat");
            SessionRef day2 = new SessionRef("acme", "lin", "web-2");
            ScriptedChatModel model = new ScriptedChatModel("scripted", false,
                    call("remember", """
                            {"key":"user.residence","value":"海岚","kind":"fact","userQuote":"这次 11 月去海岚。"}"""),
                    echoToolResults(),
                    text("好的，按上次的方式继续。"));
            Assistant assistant = AiServices.builder(Assistant.class).chatModel(model)
                    .chatMemoryProvider(memory.chatMemoryProvider())
                    .retrievalAugmentor(memory.retrievalAugmentor())
                    .tools(memory.tools())
                    .build();

            // when: day 1 the model tries to make the trip a home; day 2 the user continues
            String told = assistant.chat(day1, "这次 11 月去海岚。");
            assistant.chat(day2, "按上次的方式继续");

            // then: the model was told why, the record is the model's unconfirmed inference
            assertThat(told).contains("unconfirmed inference").contains("\"这次\"").contains("where the user lives");
            Caller caller = memory.caller(day1);
            MemoryRecord r = memory.engine().current(caller, caller.persistent(), MemoryKey.of("user.residence"))
                    .orElseThrow();
            assertThat(r.trust()).isEqualTo(Trust.UNTRUSTED);
            assertThat(r.tags()).contains(MemoryTools.UNSUPPORTED_QUOTE_TAG);

            // and day 2's request frames it as untrusted, never as a trusted fact
            ChatRequest dayTwo = model.requests().get(model.requests().size() - 1);
            String framed = lastUserText(dayTwo.messages());
            List<String> residenceLines = framed.lines().filter(l -> l.contains("user.residence")).toList();
            assertThat(residenceLines).isNotEmpty().allSatisfy(l -> assertThat(l).contains("\"trust\":\"untrusted\""));
        }
    }

    private static String lastUserText(List<ChatMessage> messages) {
        for (int i = messages.size() - 1; i >= 0; i--) {
            if (messages.get(i) instanceof UserMessage u) {
                return u.singleText();
            }
        }
        throw new AssertionError("no user message in " + messages);
    }
}

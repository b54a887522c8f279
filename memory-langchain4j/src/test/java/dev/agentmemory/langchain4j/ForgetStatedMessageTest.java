package dev.agentmemory.langchain4j;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ForgetMode;
import dev.agentmemory.core.ForgetTarget;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.testing.langchain4j.SharedEmbeddingModel;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.rag.content.Content;
import dev.langchain4j.rag.query.Query;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Forgetting a fact also keeps the message it was stated in out of episodic recall. */
class ForgetStatedMessageTest {

    @Test
    void should_stop_recalling_the_stating_message_and_the_assistants_restatement_when_the_fact_is_forgotten() {
        try (AgentMemory memory = AgentMemory.builder().embeddingModel(SharedEmbeddingModel.get()).build()) {
            // given: the user states a preference in session s1, and the model records it citing the user
            SessionRef day1 = new SessionRef("shop", "dora", "s1");
            memory.chatMemoryStore().updateMessages(day1, List.of(
                    UserMessage.from("From now on answer in Chinese please."), AiMessage.from("OK.")));
            // and the assistant restates it, there and in another session
            memory.chatMemoryStore().updateMessages(new SessionRef("shop", "dora", "s0"), List.of(
                    UserMessage.from("Which language do I prefer?"), AiMessage.from("Chinese.")));
            String said = memory.tools().remember(day1, "preference.language", "Chinese", "preference",
                    "From now on answer in Chinese");
            // (the plain-words rules read the language from the message when its turn ended: the model's
            // write goes to the key already in use for it, and the answer says which)
            assertThat(said).doesNotContainIgnoringCase("not saved").contains("user.language = \"Chinese\"");
            Caller caller = memory.caller(day1);

            // when the preference is forgotten
            memory.engine().forget(caller, ForgetTarget.key(caller.persistent(), MemoryKey.of("user.language")),
                    ForgetMode.SOFT);

            // then a later session's recall brings neither the fact nor the sentence that stated it
            SessionRef day2 = new SessionRef("shop", "dora", "s2");
            List<Content> recalled = memory.contentRetriever().retrieve(Query.from("which language should you answer in, Chinese?",
                    new dev.langchain4j.rag.query.Metadata(UserMessage.from("which language?"), day2, List.of())));
            assertThat(recalled).extracting(c -> c.textSegment().text())
                    .noneMatch(t -> t.contains("Chinese"));
            // and the windows where it was said keep their messages, redacted
            assertThat(memory.chatMemoryStore().getMessages(new SessionRef("shop", "dora", "s0")))
                    .containsExactly(UserMessage.from("Which language do I prefer?"), AiMessage.from("[forgotten]"));
            assertThat(memory.chatMemoryStore().getMessages(day1))
                    .containsExactly(UserMessage.from("[forgotten]"), AiMessage.from("OK."));
        }
    }
}

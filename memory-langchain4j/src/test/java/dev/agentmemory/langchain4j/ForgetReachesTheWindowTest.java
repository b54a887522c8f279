package dev.agentmemory.langchain4j;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.ForgetMode;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.langchain4j.tools.Summarizer;
import dev.agentmemory.testing.langchain4j.ScriptedChatModel;
import dev.agentmemory.testing.langchain4j.SharedEmbeddingModel;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ChatMessageSerializer;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Regression (issue 11, item 3): after "forget my language preference" the assistant's own
 * earlier reply "French." stayed indexed and recalled, and the chat window of the session where
 * the value was said still sent the user's statement and the tool call that saved it (with its
 * result). Through real AiServices, the memory tools, the real embedding model and an H2 file.
 */
class ForgetReachesTheWindowTest {

    interface Assistant {
        String chat(@MemoryId SessionRef session, @dev.langchain4j.service.UserMessage String text);
    }

    static final SessionRef S1 = new SessionRef("shop", "dora", "s1");
    static final SessionRef S2 = new SessionRef("shop", "dora", "s2");
    static final SessionRef S3 = new SessionRef("shop", "dora", "s3");
    static final String STATEMENT = "Please answer in French from now on.";
    static final String FORGET = "forget my language preference";

    @TempDir
    Path dir;

    /** Answers like a model using the memory tools; what it says depends only on the request. */
    private static ScriptedChatModel model(AgentMemory memory) {
        AtomicInteger calls = new AtomicInteger();
        return new ScriptedChatModel(request -> {
            List<ChatMessage> ms = request.messages();
            ChatMessage last = ms.get(ms.size() - 1);
            if (last instanceof ToolExecutionResultMessage) {
                return AiMessage.from("OK.");
            }
            String user = memory.framer().stripFrames(ScriptedChatModel.lastUserText(request));
            String id = "call-" + calls.incrementAndGet();
            return switch (user) {
                case STATEMENT -> AiMessage.from(ToolExecutionRequest.builder().id(id).name("remember")
                        .arguments("{\"key\":\"answer.language\",\"value\":\"French\",\"kind\":\"preference\","
                                + "\"userQuote\":\"" + STATEMENT + "\"}").build());
                case FORGET -> AiMessage.from(ToolExecutionRequest.builder().id(id).name("forget")
                        .arguments("{\"key\":\"answer.language\",\"scope\":\"persistent\",\"userQuote\":\"" + FORGET + "\"}")
                        .build());
                case "Which language do you answer in?" -> AiMessage.from("French.");
                default -> AiMessage.from("Noted: " + user.length() + " characters.");
            };
        });
    }

    /** Summarizes an excerpt by quoting it, so a summary states whatever its messages said. */
    private static ScriptedChatModel summaryModel() {
        return new ScriptedChatModel(r -> AiMessage.from("Summary: " + ScriptedChatModel.lastUserText(r)));
    }

    private static AgentMemory open(Path db, ForgetMode mode) {
        return AgentMemory.builder().h2File(db).embeddingModel(SharedEmbeddingModel.get()).windowSize(8).deleteMode(mode)
                .summarizer(summaryModel(), 2).build();
    }

    private static Assistant assistant(AgentMemory memory, ScriptedChatModel model) {
        return AiServices.builder(Assistant.class)
                .chatModel(model)
                .chatMemoryProvider(memory.chatMemoryProvider())
                .retrievalAugmentor(memory.retrievalAugmentor())
                .tools(memory.tools())
                .build();
    }

    /** The whole request as the model receives it: every message serialized, and the tool specifications. */
    private static String whole(ChatRequest r) {
        StringBuilder b = new StringBuilder();
        for (ChatMessage m : r.messages()) {
            b.append(ChatMessageSerializer.messageToJson(m)).append('\n');
        }
        return b.append(r.toolSpecifications()).toString();
    }

    /** Every tool call is answered right after it, and every result answers a call. */
    private static void assertPaired(List<ChatMessage> messages) {
        for (int p = 0; p < messages.size(); p++) {
            if (messages.get(p) instanceof AiMessage ai && ai.hasToolExecutionRequests()) {
                Set<String> asked = new HashSet<>();
                ai.toolExecutionRequests().forEach(t -> asked.add(t.id()));
                Set<String> answered = new HashSet<>();
                int q = p + 1;
                while (q < messages.size() && messages.get(q) instanceof ToolExecutionResultMessage r) {
                    answered.add(r.id());
                    q++;
                }
                assertThat(answered).as("results of the calls at %d in %s", p, messages).isEqualTo(asked);
                p = q - 1;
            } else {
                assertThat(messages.get(p)).as("orphan result at %d in %s", p, messages)
                        .isNotInstanceOf(ToolExecutionResultMessage.class);
            }
        }
    }

    private static void assertNoFrench(ChatRequest r) {
        assertThat(whole(r).toLowerCase(Locale.ROOT)).as("request %s", whole(r)).doesNotContain("french");
        assertPaired(r.messages());
    }

    @ParameterizedTest
    @EnumSource(ForgetMode.class)
    void should_send_no_copy_of_a_forgotten_preference_in_any_later_request_nor_after_a_restart(ForgetMode mode) {
        Path db = dir.resolve("m");
        List<ChatMessage> s1Window;
        try (AgentMemory memory = open(db, mode)) {
            ScriptedChatModel model = model(memory);
            Assistant assistant = assistant(memory, model);
            // given: the preference is stated and saved by a tool call in s1, restated by the assistant,
            assistant.chat(S1, STATEMENT);
            assistant.chat(S1, "Which language do you answer in?");
            // restated by the assistant in s2,
            assistant.chat(S2, "Which language do you answer in?");
            // and said again in s3, early enough to be summarized
            assistant.chat(S3, "I usually speak French at home.");
            for (int i = 0; i < 5; i++) {
                assistant.chat(S3, "filler question number " + i);
            }
            Caller dora = memory.caller(S1);
            assertThat(memory.engine().current(dora, dora.persistent(), dev.agentmemory.core.MemoryKey.of("answer.language")))
                    .map(MemoryRecord::text).contains("French");
            List<MemoryRecord> summaries = memory.summarizer().orElseThrow().summaries(S3);
            assertThat(summaries).extracting(Summarizer::summaryText).anyMatch(t -> t.contains("French"));
            int before = model.requests().size();
            assistant.chat(S2, "Which language do you answer in?");
            assertThat(whole(model.lastRequest())).as("the value reaches requests before the forget").contains("French");

            // when the user has it forgotten, through the forget tool, in s2
            int forgetAt = model.requests().size();
            assistant.chat(S2, FORGET);

            // then the request right after the forget tool ran holds no copy, and its calls are paired
            List<ChatRequest> afterForget = model.requests().subList(forgetAt + 1, model.requests().size());
            assertThat(afterForget).isNotEmpty().allSatisfy(ForgetReachesTheWindowTest::assertNoFrench);
            // nor does any later request in any session: window, block, episodic hits, summaries
            for (SessionRef s : List.of(S1, S2, S3)) {
                assistant.chat(s, "Which language do you answer in, any?");
                assertNoFrench(model.lastRequest());
            }
            // the window of s1 kept its shape: statement, redacted tool call with its result, the answers
            s1Window = memory.chatMemoryStore().getMessages(S1);
            assertThat(s1Window.get(0)).isEqualTo(dev.langchain4j.data.message.UserMessage.from("[forgotten]"));
            AiMessage call = (AiMessage) s1Window.get(1);
            assertThat(call.toolExecutionRequests()).singleElement().satisfies(t -> {
                assertThat(t.id()).isEqualTo("call-1");
                assertThat(t.name()).isEqualTo("remember");
                assertThat(t.arguments()).contains("answer.language", "[forgotten]").doesNotContain("French");
            });
            assertThat(((ToolExecutionResultMessage) s1Window.get(2)).id()).isEqualTo("call-1");
            assertThat(memory.summarizer().orElseThrow().summaries(S3)).extracting(Summarizer::summaryText)
                    .noneMatch(t -> t.toLowerCase(Locale.ROOT).contains("french"));
            assertThat(memory.engine().admin().audit(dora, Duration.ofDays(1)).consistent()).isTrue();
            assertThat(before).isPositive();
            if (mode == ForgetMode.HARD) {
                // hard: the original bytes left the log too
                assertThat(memory.engine().admin().log(dora)).extracting(e -> e.change().toString().toLowerCase(Locale.ROOT))
                        .noneMatch(t -> t.contains("french"));
            }
        }

        // and after a restart on the same H2 file: the same window, still nothing
        try (AgentMemory memory = open(db, mode)) {
            assertThat(memory.chatMemoryStore().getMessages(S1)).isEqualTo(s1Window);
            ScriptedChatModel model = model(memory);
            Assistant assistant = assistant(memory, model);
            for (SessionRef s : List.of(S1, S2, S3)) {
                assistant.chat(s, "Which language do you answer in, any?");
                assertNoFrench(model.lastRequest());
            }
            Caller dora = memory.caller(S1);
            assertThat(memory.engine().admin().audit(dora, Duration.ofDays(1)).consistent()).isTrue();
        }
    }
}

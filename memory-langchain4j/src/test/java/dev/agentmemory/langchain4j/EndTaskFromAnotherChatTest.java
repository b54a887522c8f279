package dev.agentmemory.langchain4j;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.Scope.Layer;
import dev.agentmemory.core.TaskInfo;
import dev.agentmemory.langchain4j.framing.FramedItem;
import dev.agentmemory.testing.langchain4j.ScriptedChatModel;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.function.Function;

import static dev.agentmemory.testing.langchain4j.ScriptedChatModel.echoToolResults;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

/**
 * Tasks follow the user: a task that moved to another chat is ended or suspended from the chat the
 * user is in, through the tools an AiService calls; an ambiguous id gets the candidates back, and
 * another user's or tenant's task is never reached.
 */
class EndTaskFromAnotherChatTest {

    interface Assistant {
        String chat(@MemoryId SessionRef session, @dev.langchain4j.service.UserMessage String text);
    }

    private static final SessionRef WX = new SessionRef("acme", "lin", "wx-chat");
    private static final SessionRef WEB = new SessionRef("acme", "lin", "web-2");

    /** A step calling {@code tool}, with a call id of its own (two calls of one tool in a turn stay apart). */
    private static Function<ChatRequest, AiMessage> call(String id, String tool, String arguments) {
        return r -> AiMessage.from(ToolExecutionRequest.builder().id(id).name(tool).arguments(arguments).build());
    }

    /** A step answering with the text of the tool result the request ends with. */
    private static Function<ChatRequest, AiMessage> lastToolResult() {
        return r -> {
            List<String> results = ScriptedChatModel.toolResults(r.messages());
            return AiMessage.from(results.get(results.size() - 1));
        };
    }

    private static Assistant assistant(AgentMemory memory, ScriptedChatModel model) {
        return AiServices.builder(Assistant.class).chatModel(model)
                .chatMemoryProvider(memory.chatMemoryProvider())
                .retrievalAugmentor(memory.retrievalAugmentor())
                .tools(memory.tools())
                .build();
    }

    @Test
    void should_end_from_the_first_chat_a_trip_that_moved_to_the_second() {
        try (AgentMemory memory = AgentMemory.builder().build()) {
            ScriptedChatModel model = new ScriptedChatModel("scripted", false,
                    call("c1", "startTask", "{\"task\":\"trip-hailan\",\"title\":\"business trip to Hailan\"}"),
                    call("c2", "updateState", "{\"key\":\"trip.destination\",\"value\":\"Hailan\",\"userQuote\":\"a trip to Hailan\"}"),
                    echoToolResults(),
                    call("c3", "resumeTask", "{\"task\":\"trip-hailan\"}"),
                    echoToolResults(),
                    call("c4", "endTask", "{\"task\":\"trip-hailan\"}"),
                    lastToolResult(),
                    ScriptedChatModel.text("Nothing open."));
            Assistant assistant = assistant(memory, model);
            Caller lin = memory.caller(WX);

            // given: started in wx-chat, continued in web-2
            assistant.chat(WX, "I am planning a trip to Hailan in November");
            assistant.chat(WEB, "let's continue the Hailan trip");
            assertThat(memory.engine().tasks().active(lin, "web-2")).map(TaskInfo::task).contains("trip-hailan");

            // when: back in wx-chat, the user closes it and the model names the task it sees in the block
            String answer = assistant.chat(WX, "the Hailan trip is done, please close it");

            // then: the block showed it as open elsewhere, the tool ended it and said where it was held
            ChatRequest closing = model.requests().stream()
                    .filter(r -> ScriptedChatModel.lastUserText(r).contains("please close it")).findFirst().orElseThrow();
            assertThat(FramedRequests.items(memory, closing))
                    .filteredOn(i -> "tasks".equals(i.extra().get(FramedItem.LAYER)))
                    .extracting(i -> i.extra().get(FramedItem.TASK), FramedItem::status)
                    .containsExactly(tuple("trip-hailan", "open-elsewhere"));
            assertThat(answer).isEqualTo("Task trip-hailan ended (it was held by conversation web-2); its state is archived.");
            TaskInfo trip = memory.engine().tasks().userTasks(lin).get(0);
            assertThat(trip).extracting(TaskInfo::status, TaskInfo::heldBy, TaskInfo::session)
                    .containsExactly(TaskInfo.Status.ENDED, "web-2", "wx-chat");
            assertThat(memory.engine().tasks().active(lin, "web-2")).isEmpty();
            assertThat(memory.engine().servable(lin, Layer.TASK)).isEmpty();

            // and the next request in web-2 neither serves its state nor offers it as open
            assistant.chat(WEB, "anything still open?");
            assertThat(FramedRequests.check(memory, model.lastRequest()))
                    .noneMatch(i -> i.text().contains("Hailan") && !i.status().equals("past") && !i.status().equals("archived"))
                    .noneMatch(i -> "tasks".equals(i.extra().get(FramedItem.LAYER)));
        }
    }

    @Test
    void should_suspend_from_the_first_chat_a_trip_active_in_the_second() {
        try (AgentMemory memory = AgentMemory.builder().build()) {
            ScriptedChatModel model = new ScriptedChatModel("scripted", false,
                    call("c1", "startTask", "{\"task\":\"trip-hailan\"}"),
                    echoToolResults(),
                    call("c2", "resumeTask", "{\"task\":\"trip-hailan\"}"),
                    echoToolResults(),
                    call("c3", "suspendTask", "{\"task\":\"trip-hailan\"}"),
                    lastToolResult());
            Assistant assistant = assistant(memory, model);
            assistant.chat(WX, "a trip to Hailan");
            assistant.chat(WEB, "continue the trip");

            String answer = assistant.chat(WX, "put the Hailan trip on hold");

            assertThat(answer).isEqualTo("Task trip-hailan suspended (it was held by conversation web-2).");
            assertThat(memory.engine().tasks().list(memory.caller(WEB), "web-2"))
                    .extracting(TaskInfo::task, TaskInfo::status).containsExactly(tuple("trip-hailan", TaskInfo.Status.SUSPENDED));
        }
    }

    @Test
    void should_answer_with_the_candidates_when_two_chats_hold_a_task_of_that_id_and_end_the_one_named() {
        try (AgentMemory memory = AgentMemory.builder().build()) {
            SessionRef a = new SessionRef("acme", "lin", "a");
            SessionRef b = new SessionRef("acme", "lin", "b");
            SessionRef c = new SessionRef("acme", "lin", "c");
            Caller lin = memory.caller(a);
            memory.engine().tasks().start(lin, "a", "trip", "Hailan");
            memory.engine().tasks().start(lin, "b", "trip", "Lisbon");
            ScriptedChatModel model = new ScriptedChatModel("scripted", false,
                    call("c1", "endTask", "{\"task\":\"trip\"}"),
                    call("c2", "endTask", "{\"task\":\"trip\",\"startedIn\":\"b\"}"),
                    echoToolResults());

            // when: from a third chat the model first names only the id, then where it was started
            String answer = assistant(memory, model).chat(c, "the Lisbon trip is cancelled, close it");

            // then: the first call acted on nothing and listed both; the second ended Lisbon only
            assertThat(answer).isEqualTo("""
                    Cannot end: task trip is open in several sessions of this user: started in a ("Hailan"), held by a, \
                    active; started in b ("Lisbon"), held by b, active; name the session it was started in.
                    Task trip ended (it was held by conversation b); its state is archived.""");
            assertThat(memory.engine().tasks().userTasks(lin)).extracting(TaskInfo::session, TaskInfo::title, TaskInfo::status)
                    .containsExactlyInAnyOrder(tuple("a", "Hailan", TaskInfo.Status.ACTIVE), tuple("b", "Lisbon", TaskInfo.Status.ENDED));
        }
    }

    @Test
    void should_never_end_a_task_of_another_user_or_tenant_even_when_named_with_its_session() {
        try (AgentMemory memory = AgentMemory.builder().build()) {
            Caller lin = memory.caller(WX);
            memory.engine().tasks().start(lin, "wx-chat", "trip-hailan", null);
            memory.engine().tasks().resume(lin, "web-2", "trip-hailan");
            for (SessionRef other : List.of(new SessionRef("acme", "mallory", "wx-chat"),
                    new SessionRef("globex", "lin", "wx-chat"))) {
                ScriptedChatModel model = new ScriptedChatModel("scripted", false,
                        call("c1", "endTask", "{\"task\":\"trip-hailan\"}"),
                        call("c2", "suspendTask", "{\"task\":\"trip-hailan\",\"startedIn\":\"wx-chat\"}"),
                        echoToolResults());

                String answer = assistant(memory, model).chat(other, "close trip-hailan");

                assertThat(answer).as(other.toString()).isEqualTo("""
                        Cannot end: no task trip-hailan in session wx-chat or another session of this user.
                        Cannot suspend: no task trip-hailan started in session wx-chat of this user.""");
                assertThat(memory.engine().tasks().userTasks(memory.caller(other))).isEmpty();
            }
            assertThat(memory.engine().tasks().active(lin, "web-2")).map(TaskInfo::task).contains("trip-hailan");
        }
    }
}

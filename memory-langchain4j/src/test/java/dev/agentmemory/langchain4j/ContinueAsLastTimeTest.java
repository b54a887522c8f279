package dev.agentmemory.langchain4j;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryRecord.Kind;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.Proposal;
import dev.agentmemory.core.MemoryRecord.Source;
import dev.agentmemory.core.TaskInfo;
import dev.agentmemory.langchain4j.framing.FramedItem;
import dev.agentmemory.testing.TestClock;
import dev.agentmemory.testing.langchain4j.ScriptedChatModel;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Seed 004's opening story through AiServices: on day 1 a user states a language preference and
 * a business trip to 海岚 in one chat, the trip gets a time-limited pre-approval, the task is
 * suspended; on day 2, in a new chat, "按上次的方式继续" (continue as last time) resumes the trip
 * because the model picks it from the block's list of open tasks. The preference applies, the
 * expired approval is flagged for re-verification, and when the trip ends a new trip starts clean.
 */
class ContinueAsLastTimeTest {

    interface Assistant {
        String chat(@MemoryId SessionRef session, @dev.langchain4j.service.UserMessage String text);
    }

    private static final SessionRef WX = new SessionRef("acme", "lin", "wx-chat");
    private static final SessionRef WEB = new SessionRef("acme", "lin", "web-2");
    private static final String TRIP = "trip-hailan-2025-11";

    /** A model that acts on what the user says and on what the block shows, as a real one would be told to. */
    private static AiMessage agent(AgentMemory memory, ChatRequest r) {
        ChatMessage last = r.messages().get(r.messages().size() - 1);
        if (last instanceof ToolExecutionResultMessage) {
            return AiMessage.from("好的。");
        }
        String said = memory.framer().stripFrames(ScriptedChatModel.lastUserText(r));
        if (said.contains("以后请用中文回答")) {
            return call("remember", "{\"key\":\"answer.language\",\"value\":\"中文\",\"kind\":\"preference\","
                    + "\"userQuote\":\"以后请用中文回答\"}");
        }
        if (said.contains("这次 11 月去海岚出差")) {
            return AiMessage.from(List.of(
                    request("startTask", "{\"task\":\"" + TRIP + "\",\"title\":\"海岚出差\"}"),
                    request("updateState", "{\"key\":\"trip.destination\",\"value\":\"海岚\",\"userQuote\":\"这次 11 月去海岚出差\"}")));
        }
        if (said.contains("先到这里")) {
            return call("suspendTask", "{}");
        }
        if (said.contains("按上次的方式继续")) {
            // the model picks the suspended task from the block's "tasks" layer
            Optional<FramedItem> open = FramedRequests.items(memory, r).stream()
                    .filter(i -> "tasks".equals(i.extra().get(FramedItem.LAYER))).findFirst();
            return open.map(i -> call("resumeTask", "{\"task\":\"" + i.extra().get(FramedItem.TASK) + "\"}"))
                    .orElse(AiMessage.from("您想继续哪件事？"));
        }
        if (said.contains("行程结束")) {
            return call("endTask", "{}");
        }
        if (said.contains("下周去临川")) {
            return AiMessage.from(List.of(
                    request("startTask", "{\"task\":\"trip-linchuan\",\"title\":\"临川出差\"}"),
                    request("updateState", "{\"key\":\"trip.destination\",\"value\":\"临川\",\"userQuote\":\"下周去临川\"}")));
        }
        return AiMessage.from("好的。");
    }

    private static AiMessage call(String tool, String args) {
        return AiMessage.from(List.of(request(tool, args)));
    }

    private static ToolExecutionRequest request(String tool, String args) {
        return ToolExecutionRequest.builder().id("c-" + tool + "-" + args.hashCode()).name(tool).arguments(args).build();
    }

    private static List<FramedItem> layer(List<FramedItem> items, String layer) {
        return items.stream().filter(i -> layer.equals(i.extra().get(FramedItem.LAYER))).toList();
    }

    @Test
    void should_resume_the_trip_in_a_new_chat_from_the_framed_list_of_open_tasks() {
        TestClock clock = new TestClock(Instant.parse("2025-11-03T09:00:00Z"));
        try (AgentMemory memory = AgentMemory.builder().engineSettings(e -> e.clock(clock)).build()) {
            ScriptedChatModel model = new ScriptedChatModel(r -> agent(memory, r));
            Assistant assistant = AiServices.builder(Assistant.class).chatModel(model)
                    .chatMemoryProvider(memory.chatMemoryProvider())
                    .retrievalAugmentor(memory.retrievalAugmentor())
                    .tools(memory.tools()).build();
            Caller lin = memory.caller(WX);

            // day 1, wx-chat: a preference, the trip, a pre-approval valid 12 hours, then a pause
            assistant.chat(WX, "以后请用中文回答");
            assistant.chat(WX, "这次 11 月去海岚出差");
            TaskInfo trip = memory.engine().tasks().active(lin, "wx-chat").orElseThrow();
            memory.engine().write(lin, Proposal.set(lin.task(trip), "approval.travel", "pre-approved up to 3000 CNY")
                    .kind(Kind.DECISION).source(Source.SYSTEM, "approvals#881").ttl(Duration.ofHours(12)).build());
            assistant.chat(WX, "先到这里，明天再说");
            assertThat(memory.engine().tasks().active(lin, "wx-chat")).isEmpty();

            // day 2, web-2: the block lists the suspended trip, without serving its state as current
            clock.advance(Duration.ofDays(1));
            assistant.chat(WEB, "按上次的方式继续");
            ChatRequest continuing = model.requests().stream()
                    .filter(r -> ScriptedChatModel.lastUserText(r).contains("按上次的方式继续")).findFirst().orElseThrow();
            List<FramedItem> offered = FramedRequests.items(memory, continuing);
            List<FramedItem> tasks = layer(offered, "tasks");
            assertThat(tasks).hasSize(1);
            assertThat(tasks.get(0).status()).isEqualTo("suspended");
            assertThat(tasks.get(0).text()).contains(TRIP, "海岚出差", "conversation wx-chat", "trip.destination = 海岚");
            assertThat(tasks.get(0).extra()).containsEntry(FramedItem.TASK, TRIP).containsEntry(FramedItem.TASK_STATUS, "suspended");
            assertThat(offered).filteredOn(i -> i.text().contains("trip.destination"))
                    .noneMatch(i -> i.status().equals("current"));
            assertThat(layer(offered, "persistent")).extracting(FramedItem::text).contains("answer.language = 中文");

            // the model resumed it: the trip now belongs to web-2
            TaskInfo resumed = memory.engine().tasks().active(lin, "web-2").orElseThrow();
            assertThat(resumed.task()).isEqualTo(TRIP);
            assertThat(memory.engine().tasks().list(lin, "wx-chat")).isEmpty();

            // the next turn sees the trip as current task state, the expired approval flagged
            assistant.chat(WEB, "酒店怎么安排？");
            List<FramedItem> after = FramedRequests.items(memory, model.lastRequest());
            assertThat(layer(after, "task-state")).extracting(FramedItem::text, FramedItem::status)
                    .contains(org.assertj.core.groups.Tuple.tuple("trip.destination = 海岚", "current"),
                            org.assertj.core.groups.Tuple.tuple("approval.travel = pre-approved up to 3000 CNY",
                                    "needs-reverification"));
            assertThat(layer(after, "tasks")).isEmpty();
            assertThat(layer(after, "persistent")).extracting(FramedItem::text).contains("answer.language = 中文");

            // the trip ends; a new trip to another city starts clean
            assistant.chat(WEB, "行程结束了");
            assistant.chat(WEB, "下周去临川");
            assistant.chat(WEB, "目的地是哪里？");
            List<FramedItem> next = FramedRequests.items(memory, model.lastRequest());
            assertThat(layer(next, "task-state")).extracting(FramedItem::text).containsExactly("trip.destination = 临川");
            assertThat(next).filteredOn(i -> i.text().contains("海岚")).noneMatch(i -> i.status().equals("current"));
            assertThat(memory.engine().tasks().userTasks(lin)).extracting(TaskInfo::task, TaskInfo::status)
                    .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple(TRIP, TaskInfo.Status.ENDED),
                            org.assertj.core.groups.Tuple.tuple("trip-linchuan", TaskInfo.Status.ACTIVE));
            assertThat(memory.engine().current(lin, lin.persistent(), MemoryKey.of("trip.destination"))).isEmpty();
            model.requests().forEach(r -> FramedRequests.check(memory, r));
        }
    }
}

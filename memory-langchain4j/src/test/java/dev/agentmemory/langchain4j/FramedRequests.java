package dev.agentmemory.langchain4j;

import dev.agentmemory.langchain4j.framing.FramedItem;
import dev.agentmemory.langchain4j.framing.ParsedFrame;
import dev.agentmemory.testing.langchain4j.ScriptedChatModel;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.request.ChatRequest;

import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** Checks on a whole request the model received: one framed block, every item naming where it came from. */
final class FramedRequests {

    static final Set<String> LAYERS = Set.of("session-state", "task-state", "tasks", "persistent", "episodic", "summary");
    static final Set<String> STATUSES = Set.of("current", "conflict", "needs-reverification", "past", "superseded",
            "archived", "suspended", "open-elsewhere", "upcoming", "no-longer-valid");
    static final Set<String> TASK_STATUSES = Set.of("active", "suspended", "ended");

    private FramedRequests() {
    }

    /**
     * The items of the one framed block of {@code request}: it sits in the last user message and
     * nowhere else; every item names its layer and scope and has a known status; task items name
     * their task and its status; superseded items name what replaced them.
     */
    static List<FramedItem> items(AgentMemory memory, ChatRequest request) {
        List<FramedItem> items = check(memory, request);
        assertThat(memory.framer().parse(lastUserText(request))).as("frames in the current user message").hasSize(1);
        return items;
    }

    /** {@link #items}, but a request without any block (nothing to recall yet) passes too. */
    static List<FramedItem> check(AgentMemory memory, ChatRequest request) {
        List<ChatMessage> messages = request.messages();
        int lastUser = -1;
        for (int i = 0; i < messages.size(); i++) {
            if (messages.get(i) instanceof UserMessage) {
                lastUser = i;
            }
        }
        assertThat(lastUser).as("a user message in %s", messages).isNotNegative();
        for (int i = 0; i < messages.size(); i++) {
            if (i != lastUser) {
                assertThat(memory.framer().parse(text(messages.get(i)))).as("frames in message %d", i).isEmpty();
            }
        }
        List<ParsedFrame> frames = memory.framer().parse(((UserMessage) messages.get(lastUser)).singleText());
        assertThat(frames).as("frames in the current user message").hasSizeLessThanOrEqualTo(1);
        List<FramedItem> items = frames.isEmpty() ? List.of() : frames.get(0).items();
        for (FramedItem item : items) {
            assertThat(item.extra().get(FramedItem.LAYER)).as("layer of %s", item).isIn(LAYERS);
            assertThat(item.extra().get(FramedItem.SCOPE)).as("scope of %s", item).isNotBlank();
            assertThat(item.status()).as("status of %s", item).isIn(STATUSES);
            if ("task-state".equals(item.extra().get(FramedItem.LAYER))) {
                assertThat(item.extra().get(FramedItem.TASK_STATUS)).as("task status of %s", item).isEqualTo("active");
            }
            if (item.extra().containsKey(FramedItem.TASK) || item.extra().containsKey(FramedItem.TASK_STATUS)) {
                assertThat(item.extra().get(FramedItem.TASK)).as("task of %s", item).isNotBlank();
                assertThat(item.extra().get(FramedItem.TASK_STATUS)).as("task status of %s", item).isIn(TASK_STATUSES);
            }
            if (item.status().equals("superseded")) {
                assertThat(item.extra().get(FramedItem.SUPERSEDED_BY)).as("superseded-by of %s", item).isNotBlank();
            }
        }
        return items;
    }

    /** Asserts that the session's last recall holds exactly the framed items, in order, with the same status. */
    static void assertLastRecallMatches(AgentMemory memory, SessionRef session, List<FramedItem> items) {
        Recall recall = memory.lastRecall(session).orElseThrow();
        assertThat(recall.used()).extracting(c -> c.textSegment().text())
                .containsExactlyElementsOf(items.stream().map(FramedItem::text).toList());
        assertThat(recall.used()).extracting(c -> c.textSegment().metadata().getString(MemoryContent.STATUS))
                .containsExactlyElementsOf(items.stream().map(FramedItem::status).toList());
        assertThat(recall.used()).extracting(c -> c.textSegment().metadata().getString(MemoryContent.LAYER))
                .containsExactlyElementsOf(items.stream().map(i -> i.extra().get(FramedItem.LAYER)).toList());
    }

    private static String lastUserText(ChatRequest request) {
        return ScriptedChatModel.lastUserText(request);
    }

    private static String text(ChatMessage m) {
        if (m instanceof UserMessage u) {
            return u.hasSingleText() ? u.singleText() : u.contents().toString();
        }
        if (m instanceof AiMessage a) {
            return String.valueOf(a.text()) + a.toolExecutionRequests();
        }
        if (m instanceof ToolExecutionResultMessage t) {
            return t.text();
        }
        if (m instanceof SystemMessage s) {
            return s.text();
        }
        return m.toString();
    }
}

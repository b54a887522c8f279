package dev.agentmemory.langchain4j.reliability;

import dev.agentmemory.core.Caller;
import dev.agentmemory.core.MemoryKey;
import dev.agentmemory.core.MemoryRecord;
import dev.agentmemory.core.internal.state.MemoryState;
import dev.agentmemory.core.event.StoredMessage;
import dev.agentmemory.langchain4j.AgentMemory;
import dev.agentmemory.langchain4j.SessionRef;
import dev.agentmemory.langchain4j.framing.FramedItem;
import dev.agentmemory.langchain4j.framing.MemoryFrameParser;
import dev.agentmemory.langchain4j.framing.MemoryFramer;
import dev.agentmemory.langchain4j.framing.ParsedFrame;
import dev.agentmemory.testing.langchain4j.ScriptedChatModel;
import dev.agentmemory.testing.langchain4j.SharedEmbeddingModel;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Issue 6, test 2 (plugin side): many threads and many memory ids (tenants, users, sessions)
 * through real AiServices over one AgentMemory on an H2 file with the episodic layer on, a
 * scripted model that calls the memory tools on some turns. Every turn's text carries a marker
 * naming its conversation. Checks: no lost message (each session's history holds exactly its
 * turns, in order), no marker of one conversation in another's stored window or history, no
 * marker of another user in any memory block the model received (and state items only from the
 * same session), versions per key contiguous and every reported version distinct, audit replay
 * matches, the H2 file reloads to the same state; all within a preemptive timeout (no deadlock).
 */
@Tag("slow")
class PluginConcurrencyTest {

    interface Assistant {
        String chat(@MemoryId String memoryId, @dev.langchain4j.service.UserMessage String text);
    }

    private static final byte[] KEY = "reliability-framing-key-0123456789".getBytes();
    private static final Pattern MARKER = Pattern.compile("ZQ(\\d\\d)X(\\d+)Y");
    private static final Pattern VERSION = Pattern.compile("version (\\d+)\\.");
    private static final int TENANTS = 3;
    private static final int USERS = 2;
    private static final int SESSIONS = 2;
    private static final int TURNS = 9;

    @TempDir
    Path dir;

    private final MemoryFramer framer = MemoryFramer.builder().key(KEY).build();

    private record Conversation(int index, SessionRef ref, boolean doomed) {
        String id() {
            return ref.toString();
        }

        String marker(int turn) {
            return String.format("ZQ%02dX%dY", index, turn);
        }

        String userText(int turn) {
            return switch (turn % 3) {
                case 1 -> "SET " + marker(turn);
                case 2 -> "REMEMBER " + marker(turn);
                default -> "hello " + marker(turn);
            };
        }
    }

    private ChatRequestScript script() {
        return new ChatRequestScript(framer);
    }

    /** The model: echoes plain turns, calls updateState on SET and remember on REMEMBER, reports tool results. */
    private record ChatRequestScript(MemoryFramer framer) {
        AiMessage answer(ChatRequest r) {
            ChatMessage last = r.messages().get(r.messages().size() - 1);
            if (last instanceof ToolExecutionResultMessage result) {
                return AiMessage.from("done " + result.text());
            }
            String text = framer.stripFrames(ScriptedChatModel.lastUserText(r));
            String marker = text.substring(text.indexOf(' ') + 1);
            if (text.startsWith("SET ")) {
                return AiMessage.from(ToolExecutionRequest.builder().id("call-" + marker).name("updateState")
                        .arguments("{\"key\":\"conv.note\",\"value\":\"" + marker + "\",\"scope\":\"session\"}").build());
            }
            if (text.startsWith("REMEMBER ")) {
                return AiMessage.from(ToolExecutionRequest.builder().id("call-" + marker).name("remember")
                        .arguments("{\"key\":\"profile.last\",\"value\":\"" + marker + "\",\"kind\":\"fact\"}").build());
            }
            return AiMessage.from("echo: " + text);
        }
    }

    @Test
    void should_lose_and_leak_nothing_when_many_threads_chat_over_many_memory_ids() throws Exception {
        // given
        List<Conversation> conversations = new ArrayList<>();
        for (int t = 0; t < TENANTS; t++) {
            for (int u = 0; u < USERS; u++) {
                for (int s = 0; s < SESSIONS; s++) {
                    conversations.add(new Conversation(conversations.size(), new SessionRef("t" + t, "u" + u, "s" + s), false));
                }
                // a session deleted (deleteMessages) while the user's other sessions are mid-conversation
                conversations.add(new Conversation(conversations.size(), new SessionRef("t" + t, "u" + u, "sx"), true));
            }
        }
        Path db = dir.resolve("mem");
        Map<String, MemoryState> statesBefore = new HashMap<>();
        Map<String, List<ChatMessage>> windowsBefore = new HashMap<>();
        long started = System.nanoTime();
        try (AgentMemory memory = AgentMemory.builder().h2File(db).embeddingModel(SharedEmbeddingModel.get())
                .framingKey(KEY).windowSize(8).build()) {
            ChatRequestScript script = script();
            ScriptedChatModel model = new ScriptedChatModel(script::answer);
            Assistant assistant = AiServices.builder(Assistant.class).chatModel(model)
                    .chatMemoryProvider(memory.chatMemoryProvider())
                    .retrievalAugmentor(memory.retrievalAugmentor())
                    .tools(memory.tools())
                    .build();

            // when: each conversation's turns in order, conversations on 6 threads at once
            Map<Integer, List<String>> answers = new LinkedHashMap<>();
            assertTimeoutPreemptively(Duration.ofSeconds(120), () -> {
                ExecutorService pool = Executors.newFixedThreadPool(6);
                try {
                    List<Future<List<String>>> futures = new ArrayList<>();
                    for (Conversation c : conversations) {
                        futures.add(pool.submit(() -> {
                            List<String> out = new ArrayList<>();
                            for (int turn = 0; turn < TURNS; turn++) {
                                out.add(assistant.chat(c.id(), c.userText(turn)));
                            }
                            if (c.doomed()) {
                                memory.chatMemoryStore().deleteMessages(c.id());
                            }
                            return out;
                        }));
                    }
                    for (int i = 0; i < futures.size(); i++) {
                        answers.put(i, futures.get(i).get(100, TimeUnit.SECONDS));
                    }
                } finally {
                    pool.shutdownNow();
                }
            });
            long elapsedMs = (System.nanoTime() - started) / 1_000_000;

            // then: every answer is the one its own turn asked for
            Map<SessionRef, Set<Long>> reportedNoteVersions = new HashMap<>();
            Map<String, Set<Long>> reportedProfileVersions = new HashMap<>();
            int toolCalls = 0;
            for (Conversation c : conversations) {
                List<String> got = answers.get(c.index());
                for (int turn = 0; turn < TURNS; turn++) {
                    String a = got.get(turn);
                    String m = c.marker(turn);
                    switch (turn % 3) {
                        case 1, 2 -> {
                            toolCalls++;
                            String key = turn % 3 == 1 ? "conv.note" : "profile.last";
                            assertThat(a).startsWith("done Saved " + key + " = \"" + m + "\"");
                            Matcher v = VERSION.matcher(a);
                            assertThat(v.find()).as(a).isTrue();
                            long version = Long.parseLong(v.group(1));
                            if (c.doomed() && turn % 3 == 1) {
                                continue;
                            }
                            Set<Long> seen = turn % 3 == 1
                                    ? reportedNoteVersions.computeIfAbsent(c.ref(), k -> new TreeSet<>())
                                    : reportedProfileVersions.computeIfAbsent(c.ref().tenant() + "/" + c.ref().user(),
                                    k -> new TreeSet<>());
                            assertThat(seen.add(version)).as("version %d reported twice: %s", version, a).isTrue();
                        }
                        default -> assertThat(a).isEqualTo("echo: hello " + m);
                    }
                }
            }

            // and: each session's history holds exactly its own turns, in order, and nothing of another
            long messagesChecked = 0;
            long deletedChecked = 0;
            for (Conversation c : conversations) {
                Caller caller = memory.caller(c.ref());
                if (c.doomed()) {
                    assertThat(memory.chatMemoryStore().getMessages(c.id())).as("window of deleted %s", c.id()).isEmpty();
                    assertThat(memory.engine().messages().history(caller, c.ref().session()).values())
                            .as("history of deleted %s", c.id()).isNotEmpty().allMatch(StoredMessage::forgotten);
                    assertThat(memory.engine().view(caller, caller.session(c.ref().session())).keys()).isEmpty();
                    deletedChecked++;
                    continue;
                }
                List<StoredMessage> history = List.copyOf(memory.engine().messages().history(caller, c.ref().session()).values());
                List<String> userTexts = history.stream().filter(m -> m.type().equals("USER")).map(StoredMessage::text).toList();
                List<String> expected = new ArrayList<>();
                for (int turn = 0; turn < TURNS; turn++) {
                    expected.add(c.userText(turn));
                }
                assertThat(userTexts).as("user messages of %s", c.id()).isEqualTo(expected);
                List<String> aiTexts = history.stream().filter(m -> m.type().equals("AI") && !m.text().isEmpty())
                        .map(StoredMessage::text).toList();
                assertThat(aiTexts).as("answers of %s", c.id()).isEqualTo(answers.get(c.index()));
                assertThat(history.stream().filter(m -> m.type().equals("TOOL_EXECUTION_RESULT")).count())
                        .isEqualTo(TURNS / 3 * 2);
                for (StoredMessage m : history) {
                    assertOnlyMarkersOf(c, m.json(), "history of " + c.id());
                    messagesChecked++;
                }
                List<ChatMessage> window = memory.chatMemoryStore().getMessages(c.id());
                assertThat(window).hasSizeLessThanOrEqualTo(8);
                for (ChatMessage m : window) {
                    assertOnlyMarkersOf(c, m.toString(), "window of " + c.id());
                    messagesChecked++;
                }
            }

            // and: every block the model received holds only its user's memories, state only of its own session
            long requests = 0;
            long frames = 0;
            long items = 0;
            for (ChatRequest r : model.requests()) {
                String prompt = ScriptedChatModel.lastUserText(r);
                String stripped = framer.stripFrames(prompt);
                Matcher own = MARKER.matcher(stripped);
                assertThat(own.find()).as(stripped).isTrue();
                Conversation c = conversations.get(Integer.parseInt(own.group(1)));
                List<ParsedFrame> parsed = framer.parse(prompt);
                assertThat(MemoryFrameParser.parse(prompt)).as("every block is authentic").hasSameSizeAs(parsed);
                for (ChatMessage m : r.messages()) {
                    String text = m instanceof UserMessage u ? framer.stripFrames(u.singleText()) : m.toString();
                    assertOnlyMarkersOf(c, text, "request message of " + c.id());
                }
                for (ParsedFrame f : parsed) {
                    frames++;
                    for (FramedItem item : f.items()) {
                        items++;
                        Matcher mm = MARKER.matcher(item.text());
                        while (mm.find()) {
                            Conversation other = conversations.get(Integer.parseInt(mm.group(1)));
                            assertThat(other.ref().tenant() + "/" + other.ref().user())
                                    .as("item %s shown to %s", item.text(), c.id())
                                    .isEqualTo(c.ref().tenant() + "/" + c.ref().user());
                            if (item.extra().getOrDefault("layer", "").endsWith("-state")) {
                                assertThat(other.index()).as("state item %s shown to %s", item.text(), c.id())
                                        .isEqualTo(c.index());
                            }
                        }
                    }
                }
                requests++;
            }

            // and: versions per key are contiguous, and every version a tool reported is in the history
            long versionsChecked = 0;
            for (Conversation c : conversations) {
                if (c.doomed()) {
                    continue;
                }
                Caller caller = memory.caller(c.ref());
                List<Long> note = memory.engine().history(caller, caller.session(c.ref().session()), MemoryKey.of("conv.note"))
                        .stream().map(MemoryRecord::version).sorted().toList();
                assertThat(note).isEqualTo(LongStream.rangeClosed(1, TURNS / 3).boxed().toList());
                assertThat(reportedNoteVersions.get(c.ref())).containsExactlyElementsOf(note);
                versionsChecked += note.size();
            }
            for (Map.Entry<String, Set<Long>> e : reportedProfileVersions.entrySet()) {
                String[] tu = e.getKey().split("/");
                Caller caller = Caller.of(tu[0], tu[1]);
                List<Long> versions = memory.engine().history(caller, caller.persistent(), MemoryKey.of("profile.last"))
                        .stream().map(MemoryRecord::version).sorted().toList();
                assertThat(versions).isEqualTo(LongStream.rangeClosed(1, (long) (SESSIONS + 1) * (TURNS / 3)).boxed().toList());
                assertThat(e.getValue()).containsExactlyElementsOf(versions);
                versionsChecked += versions.size();
            }

            // and: the audit's replay matches for every user
            for (Conversation c : conversations) {
                Caller caller = memory.caller(c.ref());
                assertThat(memory.engine().admin().audit(caller, Duration.ofDays(1)).replayMatches()).isTrue();
                statesBefore.put(c.id(), memory.engine().admin().replay(caller));
                windowsBefore.put(c.id(), memory.chatMemoryStore().getMessages(c.id()));
            }
            System.out.printf("CONCURRENCY (plugin, AiServices): conversations=%d (tenants=%d, users=%d, sessions=%d), "
                            + "threads=6, turns=%d, memory-tool calls=%d, sessions deleted mid-run=%d, messages checked=%d, model requests checked=%d, "
                            + "framed blocks=%d, framed items=%d, versions checked=%d, elapsed=%d ms%n",
                    conversations.size(), TENANTS, TENANTS * USERS, conversations.size(), conversations.size() * TURNS,
                    toolCalls, deletedChecked, messagesChecked, requests, frames, items, versionsChecked, elapsedMs);
            assertThat(frames).as("the blocks were there to check").isGreaterThan(conversations.size() * 3L);
        }

        // and: the H2 file reloads to the same state and windows
        try (AgentMemory reopened = AgentMemory.builder().h2File(db).framingKey(KEY).windowSize(8).build()) {
            for (Conversation c : conversations) {
                assertThat(reopened.engine().admin().replay(reopened.caller(c.ref()))).isEqualTo(statesBefore.get(c.id()));
                assertThat(reopened.chatMemoryStore().getMessages(c.id())).isEqualTo(windowsBefore.get(c.id()));
            }
        }
    }

    private static void assertOnlyMarkersOf(Conversation c, String text, String where) {
        Matcher m = MARKER.matcher(text);
        while (m.find()) {
            assertThat(Integer.parseInt(m.group(1))).as("marker %s in %s", m.group(), where).isEqualTo(c.index());
        }
    }
}
